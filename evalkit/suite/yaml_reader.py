"""YAML reading that remembers where every value stood, so errors can name a line, and that
refuses what would hang or exhaust the reader: huge files, deep nesting, alias bombs.

One pass over libyaml's event stream builds the data, the line map and the limit checks
together. PyYAML's own loader first composes a node tree (two `Mark`s per value) and then
constructs from it; on a 20,000-case suite that peaked at 190 MB and took 3 s, where the event
pass holds only the data and takes a fraction of the time."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from evalkit import limits
from evalkit.suite.reading import read_suite_text

Loc = tuple[Any, ...]
_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_STR, _SEQ, _MAP = "tag:yaml.org,2002:str", "tag:yaml.org,2002:seq", "tag:yaml.org,2002:map"
_MERGE = "tag:yaml.org,2002:merge"
# The scalar types of plain data; anything else (python/object, binary, a local !tag) is refused.
_SCALARS = frozenset({_STR} | {f"tag:yaml.org,2002:{t}" for t in ("null", "bool", "int", "float", "timestamp")})
# The first characters of plain scalars that an implicit type (null, bool, number, date, merge) may match
# (None: a resolver that tries every first character).
_IMPLICIT_FIRST = frozenset(yaml.resolver.Resolver.yaml_implicit_resolvers)
_ANY_FIRST = None in _IMPLICIT_FIRST


class YamlDocument:
    """A parsed YAML file plus a map from a value's location (keys and indexes) to its line.

    Reading records only where each list item starts (what a run asks for: a case's, a check's,
    a rubric item's line), which keeps a large suite's line map small. Every other line (a key's,
    a scalar's) is needed only to point at a problem: the first question the small map cannot
    answer reads the text again for the full map."""

    def __init__(self, path: Path, data: Any, lines: dict[Loc, int], text: str | None = None):
        self.path = path
        self.data = data
        self._lines = lines
        self._text = text  # None once `_lines` is the full map

    def line(self, loc: Loc) -> int | None:
        """Line (1-based) of the value at `loc`, or of its nearest enclosing value."""
        loc = tuple(loc)
        if loc not in self._lines and self._text is not None:
            self._lines = _Reader(self.path, every_line=True).read(self._text)[1]
            self._text = None
        while loc:
            if loc in self._lines:
                return self._lines[loc]
            loc = loc[:-1]
        return self._lines.get(())


def read_yaml(path: Path) -> YamlDocument:
    """Parse `path`; a syntax error or a broken limit becomes a one-line `ValueError` naming file and line."""
    text = read_suite_text(path)
    try:
        data, lines = _Reader(path, every_line=False).read(text)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = f"{path}:{mark.line + 1}" if mark else str(path)
        what = " ".join(filter(None, [exc.context, exc.problem]))
        raise ValueError(f"{where}: YAML syntax error: {what}") from None
    except yaml.YAMLError as exc:
        raise ValueError(f"{path}: YAML error: {exc}") from None
    return YamlDocument(path, data, lines, text)


class _Open:
    """A mapping or sequence whose end event has not come yet."""

    __slots__ = ("value", "loc", "anchor", "total_at_start", "key", "key_line", "seen", "merges")

    def __init__(self, value: dict[Any, Any] | list[Any], loc: Loc, anchor: str | None, total: int):
        self.value, self.loc, self.anchor, self.total_at_start = value, loc, anchor, total
        self.key: Any = _NO_KEY  # a mapping's key waiting for its value
        self.key_line = 0
        self.seen: dict[Any, int] = {}  # a mapping's keys -> their lines, to refuse duplicates
        self.merges: list[dict[Any, Any]] = []  # mappings named by `<<` keys, earliest first


_NO_KEY, _MERGE_KEY = object(), object()


class _Reader:
    def __init__(self, path: Path, every_line: bool):
        self.path = path
        self.every_line = every_line  # else only list items' lines (see YamlDocument)
        self.max_depth, self.max_nodes = limits.yaml_max_depth(), limits.yaml_max_nodes()
        self.resolver = yaml.resolver.Resolver()
        self.constructor = yaml.constructor.SafeConstructor()
        self.lines: dict[Loc, int] = {}
        self.stack: list[_Open] = []
        self.anchors: dict[str, Any] = {}
        self.sizes: dict[str, int] = {}  # anchor -> values under it once aliases are expanded
        self.total = 0  # values read so far, aliases expanded
        self.first_alias: int | None = None
        self.root: Any = None
        self.strings: dict[str, str] = {}

    def read(self, text: str) -> tuple[Any, dict[Loc, int]]:
        loader = _Loader(text)
        try:
            self._read(loader.get_event)
        finally:
            loader.dispose()
        return self.root, self.lines

    def _read(self, next_event: Any) -> None:
        # Events are read from the loader one by one (not through yaml.parse's generator) and told
        # apart by their exact type: a 20,000-case suite is 360,000 events.
        documents = 0
        while True:
            event = next_event()
            kind = type(event)
            if kind is yaml.ScalarEvent:
                self._count(1, event)
                value = self._scalar(event)
                if event.anchor is not None:
                    self.anchors[event.anchor], self.sizes[event.anchor] = value, 1
                self._place(value, event)
            elif kind is yaml.MappingStartEvent or kind is yaml.SequenceStartEvent:
                self._start(event)
            elif kind is yaml.MappingEndEvent or kind is yaml.SequenceEndEvent:
                self._end(event)
            elif kind is yaml.AliasEvent:
                self._alias(event)
            elif kind is yaml.DocumentStartEvent:
                documents += 1
                if documents > 1:
                    raise self._error(
                        event, "YAML syntax error: expected a single document in the stream but found another document"
                    )
            elif kind is yaml.StreamEndEvent:
                return

    # -- values -------------------------------------------------------------------------------

    def _scalar(self, event: yaml.ScalarEvent) -> Any:
        tag, text = event.tag, event.value
        if tag is None or tag == "!":
            # Only a plain scalar starting with a character an implicit type starts with can be
            # other than text (as PyYAML's resolver decides, which is asked only about those).
            tag = (
                self.resolver.resolve(yaml.ScalarNode, text, event.implicit)  # type: ignore[no-untyped-call]  # types-PyYAML leaves it unannotated
                if event.implicit[0] and (_ANY_FIRST or text[:1] in _IMPLICIT_FIRST)
                else _STR
            )
        if tag == _STR:
            # A suite repeats the same keys and short values (check types, labels) in every case:
            # one string object each, not one per occurrence.
            return self.strings.setdefault(text, text) if len(text) <= 64 else text
        if tag == _MERGE:
            parent = self.stack[-1] if self.stack else None
            if parent is not None and isinstance(parent.value, dict) and parent.key is _NO_KEY:
                return _MERGE_KEY
            return text  # `<<` anywhere but a mapping's key is just text
        if tag not in _SCALARS:
            raise self._refused_tag(event, tag)
        return self.constructor.yaml_constructors[tag](self.constructor, yaml.ScalarNode(tag, text))

    def _start(self, event: yaml.CollectionStartEvent) -> None:
        mapping = type(event) is yaml.MappingStartEvent
        if event.tag is not None and event.tag not in ("!", _MAP if mapping else _SEQ):
            raise self._refused_tag(event, event.tag)
        if len(self.stack) >= self.max_depth:
            raise self._error(event, f"nesting deeper than {self.max_depth} levels (EVALKIT_YAML_MAX_DEPTH)")
        self._count(1, event)
        value: dict[Any, Any] | list[Any] = {} if mapping else []
        self.stack.append(_Open(value, self._child_loc(event), event.anchor, self.total))
        if event.anchor is not None:
            self.anchors.pop(event.anchor, None)  # until it ends, an alias to it is recursive

    def _end(self, event: yaml.Event) -> None:
        done = self.stack.pop()
        value = done.value
        if done.merges:
            # Explicit keys win over merged ones, and earlier merged mappings over later ones;
            # merged keys come first, as PyYAML orders them.
            merged: dict[Any, Any] = {}
            for source in done.merges:
                for k, v in source.items():
                    merged.setdefault(k, v)
            merged.update(value)
            value.clear()
            value.update(merged)  # type: ignore[union-attr]  # only a mapping holds a merge key, so `value` is a dict here
        if done.anchor is not None:
            self.anchors[done.anchor], self.sizes[done.anchor] = value, self.total - done.total_at_start + 1
        self._place(value, event, done.loc)

    def _alias(self, event: yaml.AliasEvent) -> None:
        name = event.anchor or ""
        if self.first_alias is None:
            self.first_alias = _line(event)
        if name not in self.anchors:
            if any(o.anchor == name for o in self.stack):
                raise self._error(event, f"alias *{name} refers to a value that contains it (a recursive alias)")
            raise self._error(event, f"YAML syntax error: found undefined alias {name!r}")
        self._count(self.sizes[name], event)
        self._place(self.anchors[name], event)

    def _place(self, value: Any, event: yaml.Event, loc: Loc | None = None) -> None:
        """Put a finished value into the collection that holds it (or make it the document)."""
        if not self.stack:
            self.root = value
            self.lines.setdefault((), _line(event))
            return
        parent = self.stack[-1]
        if isinstance(parent.value, list):
            here = loc if loc is not None else parent.loc + (len(parent.value),)
            self.lines.setdefault(here, _line(event))
            parent.value.append(value)
        elif parent.key is _NO_KEY:
            if isinstance(value, (dict, list)):
                raise self._error(
                    event,
                    f"a mapping key must be plain text or a number, not a "
                    f"{'mapping' if isinstance(value, dict) else 'list'}",
                )
            parent.key, parent.key_line = value, _line(event)
        else:
            key, parent.key = parent.key, _NO_KEY
            if key is _MERGE_KEY:
                self._merge(parent, value, event)
                return
            if key in parent.seen:
                raise self._error_at(
                    parent.key_line,
                    f"duplicate key {key!r} (first at line {parent.seen[key]}); "
                    f"the second would silently replace the first",
                )
            parent.seen[key] = parent.key_line
            parent.value[key] = value
            if self.every_line:
                self.lines[parent.loc + (key,)] = parent.key_line

    def _merge(self, parent: _Open, value: Any, event: yaml.Event) -> None:
        sources = value if isinstance(value, list) else [value]
        if not sources or not all(isinstance(s, dict) for s in sources):
            raise self._error(event, "a `<<` merge key takes a mapping or a list of mappings")
        parent.merges.extend(sources)

    def _child_loc(self, event: yaml.Event) -> Loc:
        """Where a collection starting now will stand, recording its line as it opens."""
        if not self.stack:
            self.lines[()] = _line(event)
            return ()
        parent = self.stack[-1]
        if isinstance(parent.value, list):
            loc = parent.loc + (len(parent.value),)
            self.lines[loc] = _line(event)
            return loc
        if parent.key is _NO_KEY:
            return parent.loc  # a collection as a key: refused once it ends
        loc = parent.loc + (parent.key,) if parent.key is not _MERGE_KEY else parent.loc
        if self.every_line:
            self.lines.setdefault(loc, parent.key_line)
        return loc

    # -- limits and errors --------------------------------------------------------------------

    def _count(self, values: int, event: yaml.Event) -> None:
        self.total += values
        if self.total > self.max_nodes:
            where = f"line {self.first_alias}, the first alias" if self.first_alias else "the file"
            raise self._error_at(
                self.first_alias or 1,
                f"more than {self.max_nodes:,} values once aliases are "
                f"expanded (an alias bomb?); see {where} (EVALKIT_YAML_MAX_NODES)",
            )

    def _refused_tag(self, event: yaml.Event, tag: str | None) -> ValueError:
        return self._error(event, f"YAML tag {tag!r} is not allowed (suite files hold plain data)")

    def _error(self, event: yaml.Event, message: str) -> ValueError:
        return self._error_at(_line(event), message)

    def _error_at(self, line: int, message: str) -> ValueError:
        return ValueError(f"{self.path}:{line}: {message}")


def _line(event: yaml.Event) -> int:
    return event.start_mark.line + 1 if event.start_mark is not None else 1
