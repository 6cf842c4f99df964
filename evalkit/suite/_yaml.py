"""YAML reading that remembers where every value stood, so errors can name a line, and that
refuses what would hang or exhaust the reader: huge files, deep nesting, alias bombs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from evalkit import limits

Loc = tuple[Any, ...]
_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class YamlDocument:
    """A parsed YAML file plus a map from a value's location (keys and indexes) to its line."""

    def __init__(self, path: Path, data: Any, lines: dict[Loc, int]):
        self.path = path
        self.data = data
        self._lines = lines

    def line(self, loc: Loc) -> int | None:
        """Line (1-based) of the value at `loc`, or of its nearest enclosing value."""
        loc = tuple(loc)
        while loc:
            if loc in self._lines:
                return self._lines[loc]
            loc = loc[:-1]
        return self._lines.get(())


def read_yaml(path: Path) -> YamlDocument:
    """Parse `path`; a syntax error or a broken limit becomes a one-line `ValueError` naming file and line."""
    try:
        size = path.stat().st_size
        if size > limits.yaml_max_bytes():
            raise ValueError(f"{path}: file is {size:,} bytes, over the limit of {limits.yaml_max_bytes():,} "
                             f"(EVALKIT_YAML_MAX_BYTES)")
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"{path}: not UTF-8 text ({exc.reason})") from None
    try:
        # Events first: libyaml's composer recurses in C (deep nesting crashes it) and an alias
        # bomb only explodes once expanded, so both are measured on the flat event stream.
        _check_shape(text, path)
        # One parse: compose the node tree (which knows lines), then build the data from it.
        # libyaml's loader, where PyYAML has it, is an order of magnitude faster on big suites.
        loader = _Loader(text)
        try:
            node = loader.get_single_node()
            lines: dict[Loc, int] = {}
            if node is not None:
                _walk(node, (), lines, path)  # before construction, which merges `<<` keys into the node
            data = loader.construct_document(node) if node is not None else None
        finally:
            loader.dispose()
    except yaml.constructor.ConstructorError as exc:  # a tag such as !!python/object: never built
        mark = exc.problem_mark or exc.context_mark
        tag = exc.problem.split("tag ", 1)[-1] if exc.problem and "tag " in exc.problem else "this tag"
        raise ValueError(f"{path}:{mark.line + 1 if mark else 1}: YAML tag {tag} is not allowed "
                         f"(suite files hold plain data)") from None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = f"{path}:{mark.line + 1}" if mark else str(path)
        what = " ".join(filter(None, [exc.context, exc.problem]))
        raise ValueError(f"{where}: YAML syntax error: {what}") from None
    except yaml.YAMLError as exc:
        raise ValueError(f"{path}: YAML error: {exc}") from None
    return YamlDocument(path, data, lines)


def _check_shape(text: str, path: Path) -> None:
    """Refuse nesting deeper than the limit and more values than the limit once aliases expand."""
    max_depth, max_nodes = limits.yaml_max_depth(), limits.yaml_max_nodes()
    depth, total = 0, 0
    sizes: dict[str, int] = {}  # anchor -> values under it, expanded
    open_: list[tuple[str | None, int]] = []  # (anchor, total when the collection opened)
    first_alias: int | None = None
    for event in yaml.parse(text, Loader=_Loader):
        if isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
            depth += 1
            if depth > max_depth:
                raise ValueError(f"{path}:{_line(event)}: nesting deeper than {max_depth} levels "
                                 f"(EVALKIT_YAML_MAX_DEPTH)")
            total += 1
            open_.append((event.anchor, total))
        elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
            depth -= 1
            anchor, at = open_.pop()
            if anchor is not None:
                sizes[anchor] = total - at + 1
        elif isinstance(event, yaml.ScalarEvent):
            total += 1
            if event.anchor is not None:
                sizes[event.anchor] = 1
        elif isinstance(event, yaml.AliasEvent):
            if first_alias is None:
                first_alias = _line(event)
            total += sizes.get(event.anchor or '', 1)
        if total > max_nodes:
            where = f"line {first_alias}, the first alias" if first_alias else "the file"
            raise ValueError(f"{path}:{first_alias or 1}: more than {max_nodes:,} values once aliases are "
                             f"expanded (an alias bomb?); see {where} (EVALKIT_YAML_MAX_NODES)")


def _line(event: yaml.Event) -> int:
    return event.start_mark.line + 1 if event.start_mark is not None else 1


def _walk(node: yaml.Node, loc: Loc, lines: dict[Loc, int], path: Path) -> None:
    lines[loc] = node.start_mark.line + 1
    if isinstance(node, yaml.MappingNode):
        seen: dict[Any, int] = {}
        for key_node, value_node in node.value:
            key = key_node.value if isinstance(key_node, yaml.ScalarNode) else str(key_node.value)
            line = key_node.start_mark.line + 1
            if key == "<<":
                continue  # a merge key: later keys override merged ones on purpose
            if key in seen:
                raise ValueError(f"{path}:{line}: duplicate key {key!r} (first at line {seen[key]}); "
                                 f"the second would silently replace the first")
            seen[key] = line
            _walk(value_node, loc + (key,), lines, path)
            lines[loc + (key,)] = line
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            _walk(item, loc + (i,), lines, path)
