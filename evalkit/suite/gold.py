"""Gold-labelled outputs (`gold:` in a suite, inline or a glob of files): read, validated against the
suite's cases, items and fields, every problem with its file and line."""

from __future__ import annotations

import glob
import re
from pathlib import Path
from typing import Any

from pydantic import Field, ValidationError, field_validator

from evalkit.errors import Problem
from evalkit.suite._validation import clean_loc, pydantic_message
from evalkit.suite.model import Case, GoldOutput
from evalkit.suite.spec import FieldSpec, GoldLabel
from evalkit.suite.spec_base import Strict
from evalkit.suite.yaml_reader import YamlDocument, read_yaml
from evalkit.trace.steps import read_trace


class GoldSpec(Strict):
    """A gold-labelled output: what a careful reader decides about one output of one case."""

    case: str = Field(min_length=1, description="The id of the case this output answers.")
    output: Any = Field(description="The output (text, or the data the target returns).")
    fields: dict[str, Any] | None = Field(
        default=None,
        description="The field values a careful reader records; a declared field left out is not stated (null).",
    )
    misread: list[str] = Field(
        default_factory=list,
        description=(
            "Fields recorded on purpose as a fooled extraction gives them (to prove that the code's second witness "
            "catches it): `calibrate` does not score the extraction on them, and selftest does not compare them with "
            "other entries of the same output."
        ),
    )
    facts: dict[str, Any] = Field(
        default_factory=dict,
        description="The facts the target gave with this output; "
        "`evalkit selftest` recomputes them with the "
        "target and fails where they differ.",
    )
    extraction: dict[str, Any] | None = Field(
        default=None,
        description="An extraction reply recorded for this "
        "output, as the model gave it; `evalkit "
        "selftest` parses it like a run and "
        "compares it with `fields:` (default: "
        "`fields:` itself).",
    )
    trace: list[dict[str, Any]] | None = Field(
        default=None,
        description=(
            "The run's trajectory (evalkit.trace.steps: messages and tool calls with their arguments and results), "
            "for a suite whose checks read the agent's tool calls; a conversation's whole trace, turns included."
        ),
    )
    labels: dict[str, GoldLabel] = Field(min_length=1, description="Item or check id -> pass, fail or n/a.")
    note: str = Field(default="", description="One line: why these labels.")

    @field_validator("output")
    @classmethod
    def _has_output(cls, v: Any) -> Any:
        if v is None:
            raise ValueError("a gold entry needs an `output`")
        return v


_TURN_FIELD = re.compile(r"^turn \d+\.")

_KIND_CHECK = {
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "string": lambda v: isinstance(v, str),
    "enum": lambda v: isinstance(v, str),
    "list": lambda v: isinstance(v, list) and all(isinstance(e, dict) for e in v),
}


class GoldReader:
    """Reads a suite's `gold:` value; `problems` collects what is wrong, `read` returns the entries."""

    def __init__(self, doc: YamlDocument, cases: list[Case], fields: dict[str, FieldSpec]):
        self.doc = doc
        self.cases = {c.id: c for c in cases}
        self.fields = fields
        self.problems: list[Problem] = []

    def read(self, value: list[dict[str, Any]] | str | None) -> list[GoldOutput]:
        if value is None:
            return []
        if isinstance(value, list):
            return self._entries(self.doc, value, ("gold",))
        found: list[GoldOutput] = []
        pattern = str(self.doc.path.parent / value)
        files = sorted(Path(p) for p in glob.glob(pattern, recursive=True) if Path(p).is_file())
        if not files:
            self._problem(self.doc, ("gold",), f"gold: no file matches {value!r} (relative to the suite)")
        for file in files:
            try:
                doc = read_yaml(file)
            except (OSError, ValueError) as exc:
                self.problems.append(Problem(str(exc).removeprefix(f"{file}: "), file=str(file)))
                continue
            data = doc.data
            if isinstance(data, dict):
                found += self._entries(doc, [data], (), single=True)
            elif isinstance(data, list):
                found += self._entries(doc, data, ())
            else:
                self._problem(doc, (), "a gold file holds a gold entry (a mapping) or a list of them")
        return found

    def _problem(self, doc: YamlDocument, loc: tuple[Any, ...], message: str, case_id: str | None = None) -> None:
        self.problems.append(Problem(message, file=str(doc.path), line=doc.line(loc) or 0, case_id=case_id))

    def _entries(
        self, doc: YamlDocument, raw: list[Any], prefix: tuple[Any, ...], single: bool = False
    ) -> list[GoldOutput]:
        found = []
        for i, entry in enumerate(raw):
            loc = () if single else prefix + (i,)
            try:
                spec = GoldSpec.model_validate(entry)
            except ValidationError as exc:
                for err in exc.errors():
                    case_id = (
                        entry.get("case") if isinstance(entry, dict) and isinstance(entry.get("case"), str) else None
                    )
                    self._problem(doc, loc + clean_loc(err["loc"]), f"gold: {pydantic_message(err)}", case_id)
                continue
            gold = self._entry(doc, loc, spec)
            if gold is not None:
                found.append(gold)
        return found

    def _entry(self, doc: YamlDocument, loc: tuple[Any, ...], spec: GoldSpec) -> GoldOutput | None:
        case = self.cases.get(spec.case)
        if case is None:
            self._problem(
                doc, loc + ("case",), f"gold: no case {spec.case!r}; cases: {', '.join(sorted(self.cases)) or '(none)'}"
            )
            return None
        before = len(self.problems)
        labels = {}
        for key, label in spec.labels.items():
            item_id = self._item_id(case, key)
            if item_id is None:
                ids = ", ".join(it.id for it in case.gold_items) or "(none)"
                self._problem(
                    doc,
                    loc + ("labels", key),
                    f"gold: no item or check {key!r} in this case (or it names several); ids: {ids}",
                    case.id,
                )
            elif item_id in labels:
                self._problem(doc, loc + ("labels", key), f"gold: {item_id} is labelled twice", case.id)
            else:
                labels[item_id] = label
        fields = self._fields(doc, loc, spec, case)
        for name in spec.misread:
            if fields is None or name not in fields:
                self._problem(
                    doc,
                    loc + ("misread",),
                    f"gold: misread names {name!r}, not a field this entry records under `fields:`",
                    case.id,
                )
        readers = [
            it.id for it in case.gold_items if it.id in labels and it.check is not None and it.check.needs_fields
        ]
        if spec.extraction is not None and spec.fields is None:
            self._problem(
                doc,
                loc + ("extraction",),
                "gold: `extraction:` needs `fields:` (the values the recorded reply must give)",
                case.id,
            )
        if readers and fields is None:
            self._problem(
                doc,
                loc + ("labels",),
                f"gold: {', '.join(readers)} read(s) extracted fields; record the values under `fields:`",
                case.id,
            )
        trace = None
        if spec.trace is not None:
            try:
                trace = read_trace(spec.trace)
            except ValueError as exc:
                self._problem(doc, loc + ("trace",), f"gold: {exc}", case.id)
        if len(self.problems) > before:
            return None
        return GoldOutput(
            case_id=case.id,
            output=spec.output,
            labels=labels,
            fields=fields,
            facts=spec.facts,
            misread=tuple(spec.misread),
            note=spec.note,
            file=doc.path,
            line=doc.line(loc),
            extraction=spec.extraction,
            trace=trace,
        )

    @staticmethod
    def _item_id(case: Case, key: str) -> str | None:
        """An item id as written, or a check type that names exactly one of the case's checks."""
        if any(it.id == key for it in case.gold_items):
            return key
        matches = [it.id for it in case.gold_items if it.required and it.id.split(":", 1)[-1] == key]
        return matches[0] if len(matches) == 1 else None

    def _fields(self, doc: YamlDocument, loc: tuple[Any, ...], spec: GoldSpec, case: Case) -> dict[str, Any] | None:
        if spec.fields is None:
            return None
        for name, value in spec.fields.items():
            # a conversation's earlier turn's field, as a run stores it: "turn N.<field>"
            fspec = self.fields.get(_TURN_FIELD.sub("", name))
            where = loc + ("fields", name)
            if fspec is None:
                self._problem(
                    doc,
                    where,
                    f"gold: unknown field {name!r}; declared: {', '.join(sorted(self.fields)) or '(none)'}",
                    case.id,
                )
            elif value is not None and not _KIND_CHECK[fspec.type](value):
                self._problem(doc, where, f"gold: {name} = {value!r} is not a {fspec.type}", case.id)
            elif fspec.type == "enum" and value is not None and value not in (fspec.values or []):
                self._problem(doc, where, f"gold: {name} = {value!r}; values: {', '.join(fspec.values or [])}", case.id)
        # A declared field the reader left out is one the output does not state.
        turns = {name: value for name, value in spec.fields.items() if _TURN_FIELD.match(name)}
        return {**turns, **{name: spec.fields.get(name) for name in self.fields}}
