"""YAML reading that remembers where every value stood, so errors can name a line."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

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
    """Parse `path`; a syntax error becomes a one-line `ValueError` naming file and line."""
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"{path}: not UTF-8 text ({exc.reason})") from None
    # One parse: compose the node tree (which knows lines), then build the data from it.
    # libyaml's loader, where PyYAML has it, is an order of magnitude faster on big suites.
    loader = _Loader(text)
    try:
        node = loader.get_single_node()
        data = loader.construct_document(node) if node is not None else None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = f"{path}:{mark.line + 1}" if mark else str(path)
        what = " ".join(filter(None, [exc.context, exc.problem]))
        raise ValueError(f"{where}: YAML syntax error: {what}") from None
    except yaml.YAMLError as exc:
        raise ValueError(f"{path}: YAML error: {exc}") from None
    finally:
        loader.dispose()
    lines: dict[Loc, int] = {}
    if node is not None:
        _walk(node, (), lines)
    return YamlDocument(path, data, lines)


def _walk(node: yaml.Node, loc: Loc, lines: dict[Loc, int]) -> None:
    lines[loc] = node.start_mark.line + 1
    if isinstance(node, yaml.MappingNode):
        for key_node, value_node in node.value:
            key = key_node.value if isinstance(key_node, yaml.ScalarNode) else str(key_node.value)
            _walk(value_node, loc + (key,), lines)
            lines[loc + (key,)] = key_node.start_mark.line + 1
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            _walk(item, loc + (i,), lines)
