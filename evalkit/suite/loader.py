"""`load_suite`: read a suite file, validate it, and build the runtime `Suite`, reporting every
problem of the file at once."""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from evalkit import limits
from evalkit._runtime.import_names import import_module
from evalkit._runtime.user_calls import USER_EXITS, describe_exit
from evalkit.checks.base import Check
from evalkit.checks.registry import CheckRegistry, JudgeCriterion
from evalkit.errors import Problem, SuiteError, UsageError
from evalkit.suite._checks import CheckBuilder
from evalkit.suite._validation import clean_loc, pydantic_message
from evalkit.suite.conditions import compile_condition
from evalkit.suite.files import default_suite_name, resolve_suite_path
from evalkit.suite.gold import GoldReader
from evalkit.suite.model import Case, Item, JudgeThinking, Suite, Turn
from evalkit.suite.prompts import check_template
from evalkit.suite.spec import AssistantTurnSpec, CaseSpec, CheckSpec, RubricItemSpec, SuiteSpec, id_skeleton
from evalkit.suite.target_loader import check_tool_results, load_target
from evalkit.suite.yaml_reader import YamlDocument, read_yaml


def load_suite(path: str | Path) -> Suite:
    """Read and validate a suite file (or folder); raise one SuiteError listing every problem."""
    file = resolve_suite_path(path)
    try:
        doc = read_yaml(file)
    except (OSError, ValueError) as exc:
        raise SuiteError(str(file), [Problem(str(exc).removeprefix(f"{file}: "), file=str(file))]) from None
    return _Loader(doc).load()


def refuse_duplicate_names(suites: Sequence[Suite]) -> None:
    """A one-line UsageError naming both files when two suites share a name: results, comparisons
    with the base and the PR comment are keyed by a suite's name, so one would hide the other."""
    first: dict[str, Suite] = {}
    for suite in suites:
        seen = first.setdefault(suite.name, suite)
        if seen is not suite and seen.path != suite.path:
            raise UsageError(
                f"two suites are named {suite.name!r}: {seen.path} and {suite.path}; give one of them another `name:`"
            )


class _Loader:
    def __init__(self, doc: YamlDocument):
        self.doc = doc
        self.problems: list[Problem] = []
        self.cases_doc: YamlDocument | None = None  # a fixture list named by `cases: file.yml`

    def line_of(self, loc: tuple[Any, ...]) -> int | None:
        if self.cases_doc is not None and loc[:1] == ("cases",):
            return self.cases_doc.line(loc[1:])
        return self.doc.line(loc)

    @property
    def cases_file(self) -> Path:
        return (self.cases_doc or self.doc).path

    def problem(
        self, loc: tuple[Any, ...], message: str, case_id: str | None = None, into: list[Problem] | None = None
    ) -> None:
        if self.cases_doc is not None and loc[:1] == ("cases",):
            file, line = self.cases_doc.path, self.cases_doc.line(loc[1:])
        else:
            file, line = self.doc.path, self.doc.line(loc)
        found = Problem(message, file=str(file), line=line or (0 if file == self.doc.path else None), case_id=case_id)
        problems = self.problems if into is None else into
        if found not in problems:
            problems.append(found)

    def _case_id(self, loc: tuple[Any, ...]) -> str | None:
        data = self.doc.data
        if loc and loc[0] == "cases" and len(loc) > 1 and isinstance(data, dict):
            data, loc = (self.cases_doc.data if self.cases_doc else data.get("cases")), loc[1:]
        if loc and isinstance(loc[0], int) and isinstance(data, list) and loc[0] < len(data):
            entry = data[loc[0]]
            if isinstance(entry, dict) and isinstance(entry.get("id"), str):
                return str(entry["id"])
            return f"#{loc[0] + 1}"
        return None

    def load(self) -> Suite:
        data = self.doc.data
        fixture_list = isinstance(data, list)
        if fixture_list:
            data = {"cases": data}
        elif data is None:
            raise SuiteError(str(self.doc.path), [Problem("the file is empty", file=str(self.doc.path))])
        elif not isinstance(data, dict):
            raise SuiteError(
                str(self.doc.path),
                [
                    Problem(
                        f"top level is a {type(data).__name__}; expected a mapping with `cases:` or a list of cases",
                        file=str(self.doc.path),
                    )
                ],
            )
        elif isinstance(data.get("cases"), str):
            data = {**data, "cases": self._include_cases(data["cases"])}
        prefix: tuple[Any, ...] = () if fixture_list else ("cases",)
        # Suite-level keys and each case are validated apart, so one bad case does not hide
        # the problems of the others (nor those found later, like unknown check types).
        spec = self._validate_settings({k: v for k, v in data.items() if k != "cases"})
        raw_cases = data.get("cases")
        if raw_cases is None:
            self.problem((), "missing required key 'cases'")
        elif not isinstance(raw_cases, list):
            self.problem(("cases",), f"`cases` must be a list of cases or a file name, not {type(raw_cases).__name__}")
        elif not raw_cases:
            self.problem(("cases",), "a suite needs at least one case")
        before, validation = len(self.problems), list[Problem]()
        suite = self._build(
            spec, self._validated(raw_cases if isinstance(raw_cases, list) else [], prefix, validation), fixture_list
        )
        # Each case is validated just before it is built (a large suite never holds every case's
        # spec at once), yet its validation problems are still listed before the build's.
        built, self.problems = self.problems[before:], self.problems[:before]
        for problem in validation + built:
            if problem not in self.problems:
                self.problems.append(problem)
        if self.problems:
            raise SuiteError(str(self.doc.path), self.problems)
        return suite

    def _validated(
        self, raw_cases: list[Any], prefix: tuple[Any, ...], problems: list[Problem]
    ) -> Iterator[tuple[int, CaseSpec]]:
        """Each case's spec in turn; a case that does not validate adds its problems and is skipped."""
        for i, raw in enumerate(raw_cases):
            try:
                yield i, CaseSpec.model_validate(raw)
            except ValidationError as exc:
                for err in exc.errors():
                    loc = prefix + (i,) + clean_loc(err["loc"])
                    self.problem(loc, pydantic_message(err), self._case_id(loc), into=problems)

    def _include_cases(self, name: str) -> Any:
        file = self.doc.path.parent / name
        try:
            self.cases_doc = read_yaml(file)
        except (OSError, ValueError) as exc:
            raise SuiteError(
                str(self.doc.path),
                [
                    Problem(
                        f"cases file {name}: {str(exc).removeprefix(f'{file}: ')}",
                        file=str(self.doc.path),
                        line=self.doc.line(("cases",)),
                    )
                ],
            ) from None
        if not isinstance(self.cases_doc.data, list):
            raise SuiteError(
                str(self.doc.path),
                [
                    Problem(
                        f"cases file {name} must hold a YAML list of cases",
                        file=str(self.doc.path),
                        line=self.doc.line(("cases",)),
                    )
                ],
            )
        return self.cases_doc.data

    def _validate_settings(self, settings: dict[str, Any]) -> SuiteSpec:
        placeholder = [{"id": "placeholder"}]
        try:
            return SuiteSpec.model_validate({**settings, "cases": placeholder})
        except ValidationError as exc:
            bad = set()
            for err in exc.errors():
                loc = clean_loc(err["loc"])
                bad.add(loc[0] if loc else None)
                self.problem(loc, pydantic_message(err))
        # Go on with the keys that were valid, to find the cases' problems too.
        good = {k: v for k, v in settings.items() if k not in bad and k in SuiteSpec.model_fields}
        try:
            return SuiteSpec.model_validate({**good, "cases": placeholder})
        except ValidationError:
            return SuiteSpec.model_validate({"cases": placeholder})

    def _build(self, spec: SuiteSpec, case_specs: Iterable[tuple[int, CaseSpec]], fixture_list: bool) -> Suite:
        base = self.doc.path.parent
        prefix: tuple[Any, ...] = () if fixture_list else ("cases",)
        for i, module in enumerate(spec.plugins):
            try:
                import_module(module, base)
            except USER_EXITS as exc:  # sys.exit() at import must not end evalkit with the plugin's code
                self.problem(
                    ("plugins", i), f"plugin {module!r}: importing it {describe_exit(exc).removeprefix('target ')}"
                )
            except Exception as exc:  # a plugin's own bug is still this file's problem to report
                self.problem(("plugins", i), f"plugin {module!r}: {exc}")
        registry = CheckRegistry(spec.plugins)
        for collision in registry.problems:
            self.problem(("plugins",), collision)
        defaults = spec.check_defaults
        for name in defaults:
            if name not in registry:
                self.problem(
                    ("check_defaults", name), f"unknown check type {name!r}; valid types: {registry.valid_types()}"
                )

        checks = CheckBuilder(registry, defaults, self.problem)

        shared_checks = [(c, ("checks", i)) for i, c in enumerate(spec.checks)]
        field_names = set(spec.fields)
        cases: list[Case] = []
        seen: dict[str, tuple[int, str]] = {}  # by what an id looks like: `Ａda` and `ada` are one id to a reader
        for ci, cspec in case_specs:
            cloc = prefix + (ci,)
            (first, first_id) = seen.setdefault(id_skeleton(cspec.id), (ci, cspec.id))
            if first != ci:
                self.problem(
                    cloc + ("id",),
                    f"duplicate case id (first at case #{first + 1})"
                    if first_id == cspec.id
                    else f"case id looks the same as {first_id!r} (case #{first + 1})",
                    cspec.id,
                )
            repeats = cspec.repeats or spec.repeats
            items, fields = self._scored(
                spec,
                checks,
                field_names,
                cspec.id,
                cloc=cloc,
                check_specs=shared_checks + [(c, cloc + ("checks", j)) for j, c in enumerate(cspec.checks)],
                rubric=cspec.rubric,
                wanted=cspec.fields,
                extract=repeats > 1,
            )
            turns = self._turns(spec, checks, field_names, cspec, cloc=cloc) if cspec.conversation is not None else ()
            check_tool_results(spec.target, cspec, cloc, self.problem)
            cases.append(
                Case(
                    id=cspec.id,
                    input=cspec.input if cspec.input is not None else {},
                    items=items,
                    repeats=repeats,
                    fields=fields,
                    description=cspec.description,
                    tool_results=dict(cspec.tool_results),
                    pass_all=spec.pass_all if cspec.pass_all is None else cspec.pass_all,
                    tags=list(dict.fromkeys([*spec.tags, *cspec.tags])) if spec.tags else cspec.tags,
                    skip=cspec.skip,
                    line=self.line_of(cloc),
                    file=self.cases_file,
                    turns=turns,
                )
            )
        compared = self._check_comparisons(spec, {c.id: i for i, c in enumerate(cases)}, field_names)
        for case in cases:
            if case.id in compared and not case.fields:
                case.fields = list(spec.fields)
        gold = GoldReader(self.doc, cases, spec.fields)
        gold_outputs = gold.read(spec.gold)
        self.problems += [p for p in gold.problems if p not in self.problems]
        return Suite(
            name=spec.name or default_suite_name(self.doc.path),
            path=self.doc.path,
            cases=cases,
            target=load_target(spec.target, self.doc.path.parent, self.problem),
            model=spec.model,
            judge_model=spec.judge_model,
            judge_thinking=JudgeThinking(spec.judge_thinking.effort, spec.judge_thinking.budget_tokens)
            if spec.judge_thinking
            else None,
            confirm_failures=spec.confirm_failures,
            compare_models=list(spec.compare_models),
            tiers={k: v for k, v in spec.models.model_dump().items() if v},
            max_tokens=spec.max_tokens,
            max_cost=spec.max_cost,
            temperature=spec.temperature,
            watch=spec.watch,
            thresholds=spec.thresholds,
            timeout=spec.timeout,
            tolerance=spec.tolerance,
            missing=spec.missing,
            complete=spec.complete,
            calibration=spec.calibration,
            inconclusive=spec.inconclusive,
            fields=spec.fields,
            comparisons=spec.compare,
            description=spec.description,
            is_fixture_list=fixture_list,
            gold=gold_outputs,
        )

    def _scored(
        self,
        spec: SuiteSpec,
        checks: CheckBuilder,
        field_names: set[str],
        case_id: str,
        *,
        cloc: tuple[Any, ...],
        check_specs: list[tuple[CheckSpec, tuple[Any, ...]]],
        rubric: str | list[Any],
        wanted: list[str] | None,
        extract: bool,
    ) -> tuple[list[Item], list[str]]:
        """The items of a case (or of one turn of a conversation) and the fields it extracts."""
        items: list[Item] = []
        for cs, loc in check_specs:
            check = checks.build(cs, loc, case_id)
            if check is None:
                continue
            items.append(
                checks_item(
                    sys.intern(f"check{len(items) + 1}:{cs.type}"),
                    check,
                    line=self.line_of(loc),
                    judge_repeats=spec.judge_repeats,
                    text=checks.describe(check),
                )
            )
        rloc = cloc + ("rubric",)
        if isinstance(rubric, str):
            if rubric not in spec.rubrics:
                self.problem(
                    rloc, f"no rubric named {rubric!r}; defined: {', '.join(spec.rubrics) or '(none)'}", case_id
                )
                rubric = []
            else:
                rloc = ("rubrics", rubric)
                rubric = spec.rubrics[rubric]
        for j, raw in enumerate(rubric):
            item_spec = RubricItemSpec(judge=raw) if isinstance(raw, str) else raw
            check = checks.build(item_spec.check, rloc + (j, "check"), case_id) if item_spec.check else None
            if item_spec.check and check is None:
                continue
            if isinstance(check, JudgeCriterion):
                self.problem(
                    rloc + (j, "check"),
                    "a rubric item's `check:` cannot be llm_judge; write the criterion as `judge:`",
                    case_id,
                )
                continue
            if item_spec.when is not None:
                self._check_expression(item_spec.when, rloc + (j, "when"), case_id)
            items.append(
                Item(
                    id=item_spec.id or f"item{j + 1}",
                    text=item_spec.text or item_spec.judge or (checks.describe(check) if check else ""),
                    check=check,
                    judge=item_spec.judge,
                    critical=item_spec.critical,
                    when=item_spec.when,
                    line=self.line_of(rloc + (j,)),
                    weight=item_spec.weight,
                    judge_repeats=item_spec.judge_repeats or spec.judge_repeats,
                )
            )
        ids = [it.id for it in items]
        for dup in sorted({x for x in ids if ids.count(x) > 1}):
            self.problem(rloc, f"duplicate rubric item id {dup!r}", case_id)
        needed = set().union(*(it.check.referenced_fields() for it in items if it.check)) if items else set()
        unknown = sorted(needed - field_names)
        if unknown:
            self.problem(
                cloc, f"checks refer to undeclared field(s) {', '.join(unknown)}; declare them under `fields:`", case_id
            )
        if wanted is not None:
            for name in sorted(set(wanted) - field_names):
                self.problem(
                    cloc + ("fields",),
                    f"unknown field {name!r}; declared: {', '.join(sorted(field_names)) or '(none)'}",
                    case_id,
                )
        extract = extract or any(it.check is not None and it.check.needs_fields for it in items)
        fields = (
            [f for f in (wanted if wanted is not None else list(spec.fields)) if f in field_names]
            if extract or wanted
            else []
        )
        return items, fields

    def _turns(
        self, spec: SuiteSpec, checks: CheckBuilder, field_names: set[str], cspec: CaseSpec, *, cloc: tuple[Any, ...]
    ) -> tuple[Turn, ...]:
        """A conversation's turns; a user turn's items and fields are its own, named "turn N: ..."."""
        turns = []
        entries = cspec.conversation or []
        if len(entries) > limits.conversation_max_turns():
            self.problem(
                cloc + ("conversation",),
                f"the conversation has {len(entries):,} turns, over the limit of "
                f"{limits.conversation_max_turns():,} (EVALKIT_CONVERSATION_MAX_TURNS "
                "raises it)",
                cspec.id,
            )
            return ()
        for k, tspec in enumerate(entries):
            tloc, number = cloc + ("conversation", k), k + 1
            if isinstance(tspec, AssistantTurnSpec):
                if k == 0 or isinstance(entries[k - 1], AssistantTurnSpec):
                    self.problem(
                        tloc + ("assistant",),
                        f"turn {number}: a scripted `assistant:` turn answers the `user:` turn just before it",
                        cspec.id,
                    )
                turns.append(Turn(number=number, role="assistant", text=tspec.assistant, line=self.line_of(tloc)))
                continue
            error = check_template(tspec.user)
            if error:
                self.problem(tloc + ("user",), f"turn {number}: template: {error}", cspec.id)
            scripted = k + 1 < len(entries) and isinstance(entries[k + 1], AssistantTurnSpec)
            if scripted and (tspec.checks or tspec.rubric or tspec.fields):
                self.problem(
                    tloc,
                    f"turn {number}: the scripted turn {number + 1} answers it (no call), so it has "
                    f"no `checks`, `rubric` or `fields` of its own",
                    cspec.id,
                )
            items, fields = self._scored(
                spec,
                checks,
                field_names,
                cspec.id,
                cloc=tloc,
                check_specs=[(c, tloc + ("checks", j)) for j, c in enumerate(tspec.checks)],
                rubric=tspec.rubric,
                wanted=tspec.fields,
                extract=False,
            )
            prefix = f"turn {number}: "
            turns.append(
                Turn(
                    number=number,
                    role="user",
                    text=tspec.user,
                    line=self.line_of(tloc),
                    scripted=scripted,
                    items=tuple(replace(it, id=prefix + it.id, text=prefix + it.text) for it in items),
                    fields=tuple(fields),
                )
            )
        return tuple(turns)

    def _check_comparisons(self, spec: SuiteSpec, case_ids: dict[str, int], field_names: set[str]) -> set[str]:
        compared: set[str] = set()
        for i, cmp in enumerate(spec.compare):
            for side in ("left", "right"):
                ref = getattr(cmp, side)
                if ref.case is None:
                    continue
                if ref.case not in case_ids:
                    self.problem(("compare", i, side, "case"), f"compare {cmp.id}: no case {ref.case!r}")
                if ref.field is not None and ref.field not in field_names:
                    self.problem(("compare", i, side, "field"), f"compare {cmp.id}: undeclared field {ref.field!r}")
                if ref.field is not None:
                    compared.add(ref.case)
        return compared

    def _check_expression(self, expr: str, loc: tuple[Any, ...], case_id: str) -> None:
        try:
            compile_condition(expr)
        except ValueError as exc:
            self.problem(loc, str(exc), case_id)


def checks_item(
    item_id: str,
    check: Check | JudgeCriterion,
    line: int | None = None,
    judge_repeats: int = 1,
    text: str | None = None,
) -> Item:
    """The item of a `checks:` entry: required, decided by code or, for `llm_judge`, by the judge;
    `text` is the check's description when the caller has it already."""
    if isinstance(check, JudgeCriterion):
        return Item(
            id=item_id, text=check.criteria, judge=check.criteria, required=True, line=line, judge_repeats=judge_repeats
        )
    return Item(
        id=item_id, text=text or check.describe(), check=check, required=True, line=line, judge_repeats=judge_repeats
    )
