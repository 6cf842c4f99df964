"""`evalkit selftest`: every code-decided item of a suite run on its gold outputs and compared with
the gold labels, offline (no model, no key). The facts and fields the items read are not taken on
trust: the suite's target recomputes the facts and the run's extraction code reads the recorded
extraction reply (`gold_replay`), and a difference from the gold entry fails too. Judge items are
measured by `evalkit calibrate`."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field, replace
from typing import Callable

from evalkit.checks.base import CheckContext
from evalkit.engine.gold_replay import Replayed, replay
from evalkit.exit_codes import passed_or_failed
from evalkit.results.report import ItemResult
from evalkit.scoring.items import applicable_items, decide_item, item_result
from evalkit.suite.calibration import calibration_note
from evalkit.suite.model import GoldOutput, Item, Suite


@dataclass(frozen=True)
class Disagreement:
    gold: GoldOutput
    item_id: str
    label: str
    verdict: str
    reason: str

    def describe(self) -> str:
        return (
            f"{self.gold.where} case {self.gold.case_id}: {self.item_id} labelled {self.label}, "
            f"code says {self.verdict}: {self.reason}"
        )


@dataclass
class GoldCheck:
    """One gold output's code verdicts against its labels."""

    gold: GoldOutput
    compared: int = 0
    disagreements: list[Disagreement] = field(default_factory=list)
    judge_labels: int = 0  # labels of judge-only items: selftest cannot decide them
    replayed: Replayed | None = None  # the facts and fields the suite's own code made of it
    problems: list[str] = field(default_factory=list)  # facts or extraction that differ from the entry

    def describe_problems(self) -> list[str]:
        return [f"{self.gold.where} case {self.gold.case_id}: {p}" for p in self.problems]


@dataclass(frozen=True)
class FieldConflict:
    """Two gold entries recording different values of a field for the same output: extraction reads
    only the output, so at most one of them can be right."""

    first: GoldOutput
    second: GoldOutput
    name: str

    def describe(self) -> str:
        a, b = (_shown(g.fields.get(self.name)) for g in (self.first, self.second))  # type: ignore[union-attr]  # a conflict is found only between entries that record fields
        return (
            f"{self.first.where} case {self.first.case_id} and {self.second.where} case {self.second.case_id}: "
            f"the same output, but {self.name} is {a} in one and {b} in the other"
        )


def _shown(value: object) -> str:
    return "null" if value is None else repr(value)


@dataclass
class SelftestResult:
    suite: Suite
    checked: list[GoldCheck] = field(default_factory=list)
    conflicts: list[FieldConflict] = field(default_factory=list)

    @property
    def compared(self) -> int:
        return sum(g.compared for g in self.checked)

    @property
    def disagreements(self) -> list[Disagreement]:
        return [d for g in self.checked for d in g.disagreements]

    @property
    def judge_labels(self) -> int:
        return sum(g.judge_labels for g in self.checked)

    @property
    def problems(self) -> list[str]:
        return [p for g in self.checked for p in g.describe_problems()]

    @property
    def ok(self) -> bool:
        return not self.disagreements and not self.problems and not self.conflicts

    def replay_note(self) -> str:
        """How many gold outputs had their facts recomputed and their extraction replayed ("" for none)."""
        done = [g.replayed for g in self.checked if g.replayed is not None]
        facts = sum(r.recomputed_facts for r in done)
        extracted = [r.extraction for r in done if r.extraction]
        recorded = extracted.count("recorded")
        parts = [f"facts recomputed by the target for {facts}"] if facts else []
        written = sum(r.facts_as_written for r in done)
        if written:
            parts.append(f"facts as written for {written} (the suite names no target to recompute them)")
        if extracted:
            parts.append(
                f"extraction replayed for {len(extracted)} ({recorded} recorded "
                f"repl{'y' if recorded == 1 else 'ies'}, {len(extracted) - recorded} read from `fields:`)"
            )
        return "; " + ", ".join(parts) if parts else ""

    def summary(self, judge_note: str | None = None) -> str:
        judge_note = judge_note or calibration_note(self.suite)
        if not self.suite.gold:
            return f"{self.suite.name}: no gold outputs (add `gold:` to the suite to prove its checks)"
        agree = self.compared - len(self.disagreements)
        judge = judge_note or (
            "judge items: not measured (run `evalkit calibrate`)" if self.judge_labels else "no judge labels"
        )
        wrong = f", {len(self.problems)} facts or extractions wrong" if self.problems else ""
        return (
            f"{self.suite.name}: code-decided items agree with {agree}/{self.compared} gold labels "
            f"({len(self.suite.gold)} gold outputs{self.replay_note()}{wrong}); {judge}"
        )


def code_verdicts(suite: Suite, gold: GoldOutput, replayed: Replayed | None = None) -> dict[str, ItemResult]:
    """The code witness's verdict of every code-decided item of the gold output's case, by item id,
    on the facts and fields `replayed` gives (default: the ones the entry records)."""
    case = suite.case(gold.case_id)
    facts, fields = (replayed.facts, replayed.fields) if replayed is not None else (gold.facts, gold.fields)
    applicable, recorded = applicable_items(replace(case, items=case.gold_items), facts)
    verdicts = {r.id: r for r in recorded}
    ctx = CheckContext(
        output=gold.output,
        input=case.input,
        fields=fields,
        facts=facts,
        case_id=case.id,
        suite_dir=suite.dir,
        trace=gold.trace,
    )
    for it in applicable:
        if it.check is None:
            continue
        if it.check.needs_fields and fields is None:
            verdicts[it.id] = item_result(
                it, "error", "no fields: the gold entry records none, or the extraction failed"
            )
        else:
            verdicts[it.id] = decide_item(_code_witness(it), ctx)
    return verdicts


def _code_witness(it: Item) -> Item:
    return Item(id=it.id, text=it.text, check=it.check, critical=it.critical, required=it.required, weight=it.weight)


def check_gold(suite: Suite, gold: GoldOutput) -> GoldCheck:
    """One gold output: its facts and extraction replayed, its code verdicts against its labels."""
    replayed = asyncio.run(replay(suite, gold))
    result = GoldCheck(gold, replayed=replayed, problems=list(replayed.problems))
    verdicts = code_verdicts(suite, gold, replayed)
    items = {it.id: it for it in suite.case(gold.case_id).gold_items}
    for item_id, label in gold.labels.items():
        got = verdicts.get(item_id)
        if got is None or (items[item_id].check is None and got.status != "n/a"):
            result.judge_labels += 1  # decided by the judge alone: calibrate measures it
            continue
        result.compared += 1
        if got.status != label:
            result.disagreements.append(Disagreement(gold, item_id, label, got.status, got.reason))
    return result


def field_conflicts(gold: list[GoldOutput]) -> list[FieldConflict]:
    """Fields recorded differently for one output (the same text) by two gold entries (fields marked
    `misread` aside: recorded wrong on purpose)."""
    first: dict[str, GoldOutput] = {}
    conflicts = []
    for g in gold:
        if g.fields is None or not isinstance(g.output, str):
            continue
        seen = first.setdefault(g.output, g)
        recorded = seen.fields or {}
        if seen is g:
            continue
        conflicts += [
            FieldConflict(seen, g, name)
            for name, value in g.fields.items()
            if name in recorded and recorded[name] != value and name not in g.misread and name not in seen.misread
        ]
    return conflicts


def selftest(suite: Suite) -> SelftestResult:
    """Every gold output of `suite` checked against its labels, and its gold fields against each other."""
    return SelftestResult(suite, [check_gold(suite, g) for g in suite.gold], field_conflicts(suite.gold))


def selftest_all(suites: list[Suite], echo: Callable[[str], None] = print) -> int:
    """Print `evalkit selftest`'s lines for `suites`; its exit code (1 on any disagreement, wrong fact
    or wrong extraction)."""
    results = [selftest(s) for s in suites]
    echo("\n".join(line for r in results for line in describe(r)))
    return passed_or_failed(not all(r.ok for r in results))


def describe(result: SelftestResult, judge_note: str | None = None) -> list[str]:
    """The summary line, then one line per wrong fact or extraction, per disagreement and per conflict
    between gold entries."""
    return (
        [result.summary(judge_note)]
        + [f"  WRONG {p}" for p in result.problems]
        + [f"  DISAGREE {d.describe()}" for d in result.disagreements]
        + [f"  CONFLICT {c.describe()}" for c in result.conflicts]
    )
