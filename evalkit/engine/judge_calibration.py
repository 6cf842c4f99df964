"""`evalkit calibrate`: the judge and the extraction run on every gold output N times and are
measured against the gold labels and values; the figures are saved beside the suite.

Nothing is left out to flatter: a verdict the judge failed to give (a malformed reply, a failed
call) is a disagreement in the agreement and in κ, and an extraction that failed is a wrong value.
κ comes with a 95 % interval, so a judge that answers the same for everything (κ = 0) reads as
"no better than chance" whatever its raw agreement. The suite's `calibration:` bar decides the
exit code: κ, the error share, each field's extraction accuracy, each item's agreement and flips.

With the suite's `confirm_failures: N`, each answer is asked as a run asks it: an item the judge
failed is asked N more times and the majority decides. The single answers (each one's first vote)
and the confirmed verdicts are both measured, from the same calls; the bar holds the confirmed
judge, since that is the one whose verdicts gate a run."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import replace
from datetime import datetime, timezone
from typing import Any

from evalkit.checks.base import output_text
from evalkit.llm.client import ModelClient
from evalkit.results.agreement import values_agree
from evalkit.results.intervals import cohen_kappa, flipped, kappa_interval
from evalkit.scoring.grading import score_output
from evalkit.scoring.items import applicable_items
from evalkit.scoring.judge_input import JudgeInput, JudgeSettings
from evalkit.scoring.structured import refuse_unroutable
from evalkit.suite import Calibration, FieldCalibration, ItemCalibration, JudgeFigures, fingerprints
from evalkit.suite.model import Case, GoldOutput, Suite
from evalkit.trace.steps import judged_trace


def gold_case_input(case: Case, gold: GoldOutput) -> Any:
    """What the judge is shown beside the output, as a run shows it: the case's input, and for a
    conversation the messages the final reply answered (the gold trace's messages but that reply)."""
    if not case.turns:
        return case.input
    said = [{"role": s.role, "content": s.text or ""} for s in gold.trace or [] if s.type == "message"]
    if said and said[-1]["role"] == "assistant":
        said.pop()
    return {"input": case.input, "conversation": said}


def _judged_labels(suite: Suite, gold: GoldOutput) -> dict[str, str]:
    """Criteria by item id of the labelled (pass/fail), applicable items a judge decides (a
    conversation's final turn's items included: its gold output is the final reply)."""
    case = suite.case(gold.case_id)
    applicable, _ = applicable_items(replace(case, items=case.gold_items), gold.facts)
    return {it.id: it.judge for it in applicable if it.judge is not None and gold.labels.get(it.id) in ("pass", "fail")}


class _Measured:
    """What one gold output's repeats gave: per item its single answers (each repeat's first vote)
    and its confirmed verdicts (the same as the single ones without confirm_failures), per field the
    values extracted, and how many confirming calls were made."""

    def __init__(self, criteria: dict[str, str], fields: dict[str, Any]) -> None:
        self.single: dict[str, list[str]] = {cid: [] for cid in criteria}
        self.confirmed: dict[str, list[str]] = {cid: [] for cid in criteria}
        self.extracted: dict[str, list[Any]] = {n: [] for n in fields}
        self.confirming_calls = 0


async def _measure_gold(
    client: ModelClient, suite: Suite, judge_model: str, gold: GoldOutput, repeats: int, *, index: int
) -> _Measured:
    case = suite.case(gold.case_id)
    text = output_text(gold.output)
    criteria = _judged_labels(suite, gold)
    fields = {n: suite.fields[n] for n in (case.fields or list(suite.fields))} if gold.fields is not None else {}
    measured = _Measured(criteria, fields)
    bound = client.bind(model=judge_model, repeat=index)
    # As a run asks (evalkit.scoring.grading.score_output): one call for both where both are asked.
    ask = JudgeInput(
        text,
        criteria=criteria,
        fields=fields,
        case_input=gold_case_input(case, gold),
        facts=gold.facts,
        trace=judged_trace(gold.trace),
    )
    settings = JudgeSettings(judge_model, thinking=suite.judge_thinking, confirm=suite.confirm_failures)

    async def once(k: int) -> None:
        outcome, values, error = await score_output(bound.sampled(k), ask, settings)
        first_failed = False
        for cid in criteria:
            if outcome is None or outcome.error:
                measured.single[cid].append("error")
                measured.confirmed[cid].append("error")
                continue
            decided = outcome.verdicts[cid].verdict
            first = (outcome.votes.get(cid) or [decided])[0]  # confirm_failures keeps every vote, the first first
            first_failed = first_failed or first == "fail"
            measured.single[cid].append(first)
            measured.confirmed[cid].append(decided)
        if first_failed:
            measured.confirming_calls += suite.confirm_failures
        for name in fields:
            measured.extracted[name].append(("error",) if error or values is None else values.get(name))

    await asyncio.gather(*(once(k) for k in range(repeats)))
    return measured


async def calibrate(client: ModelClient, suite: Suite, judge_model: str, repeats: int = 3) -> Calibration:
    """Measure the judge and the extraction of `suite` on its gold outputs, with the judge's settings
    of a run (the same route, `judge_thinking` and all); a judge model evalkit cannot ask is refused
    before any call."""
    refuse_unroutable([suite], judge_model, client.capabilities.of)
    measured = await asyncio.gather(
        *(_measure_gold(client, suite, judge_model, g, repeats, index=i) for i, g in enumerate(suite.gold))
    )
    per_field: dict[str, list[tuple[bool, bool]]] = {}  # (right, an error) per extraction
    for gold, m in zip(suite.gold, measured):
        for name, values in m.extracted.items():
            if name in gold.misread:  # a fooled extraction on purpose: not the value to extract
                continue
            want = (gold.fields or {}).get(name)
            per_field.setdefault(name, []).extend((_same(v, want, suite, name), v == ("error",)) for v in values)
    single = _judge_figures(suite, measured, lambda m: m.single)
    # An extraction is one call for all of an output's fields: count calls, not fields, so the
    # error share weighs a failed extraction like a failed judge verdict.
    extractions = [v == ("error",) for m in measured if m.extracted for v in next(iter(m.extracted.values()))]
    fields = [
        FieldCalibration(
            field=n,
            compared=len(ok),
            errors=sum(error for _, error in ok),
            accuracy=sum(good for good, _ in ok) / len(ok) if ok else None,
        )
        for n, ok in sorted(per_field.items())
    ]
    result = Calibration(
        suite=suite.name,
        judge_model=judge_model,
        repeats=repeats,
        gold_outputs=len(suite.gold),
        measured_at=datetime.now(timezone.utc).isoformat(timespec="seconds"),
        agreement=single.agreement,
        kappa=single.kappa,
        kappa_interval=single.kappa_interval,
        labels=single.labels,
        verdicts=single.verdicts,
        errors=single.errors + sum(extractions),
        calls=single.verdicts + len(extractions),
        flip_rate=single.flip_rate,
        items=single.items,
        fields=fields,
    )
    if suite.confirm_failures:
        result.confirmed = _judge_figures(suite, measured, lambda m: m.confirmed)
        result.confirmed.confirm_failures = suite.confirm_failures
        result.confirmed.confirming_calls = sum(m.confirming_calls for m in measured)
    result.judge_prompt_sha256, result.gold_sha256 = fingerprints(suite)
    # The bar holds the judge whose verdicts gate a run: the confirmed one where the suite confirms.
    held, confirmed = result, result.confirmed
    if confirmed is not None:
        held = result.model_copy(
            update={
                "agreement": confirmed.agreement,
                "kappa": confirmed.kappa,
                "kappa_interval": confirmed.kappa_interval,
                "flip_rate": confirmed.flip_rate,
                "items": confirmed.items,
                "errors": confirmed.errors + sum(extractions),
            }
        )
    result.below, result.short = _under_the_bar(held, suite)
    return result


def _judge_figures(
    suite: Suite, measured: list[_Measured], verdicts: Callable[[_Measured], dict[str, list[str]]]
) -> JudgeFigures:
    """Agreement, κ (with its interval), flips and per-item figures of one kind of verdict (the
    single answers or the confirmed ones) against the gold labels."""
    per_item: dict[str, list[tuple[str, list[str]]]] = {}
    for gold, m in zip(suite.gold, measured):
        for cid, got in verdicts(m).items():
            per_item.setdefault(cid, []).append((gold.labels[cid], got))
    items = [_item(cid, rows) for cid, rows in sorted(per_item.items())]
    all_pairs = [(label, v) for rows in per_item.values() for label, got in rows for v in got]
    all_rows = [got for rows in per_item.values() for _, got in rows]
    labels = sum(i.labels for i in items)
    interval = kappa_interval(all_pairs, units=labels)
    return JudgeFigures(
        agreement=(sum(a == b for a, b in all_pairs) / len(all_pairs)) if all_pairs else None,
        kappa=cohen_kappa(all_pairs),
        kappa_interval=[round(x, 4) for x in interval] if interval else None,
        labels=labels,
        verdicts=len(all_pairs),
        errors=sum(i.errors for i in items),
        flip_rate=(sum(flipped(g) for g in all_rows) / len(all_rows)) if all_rows else None,
        items=items,
    )


def _under_the_bar(c: Calibration, suite: Suite) -> tuple[list[str], list[str]]:
    """The items under the suite's bar, and every way the figures fall short of it, in words."""
    bar = suite.calibration
    if bar is None:
        return [], []
    short, below, weak = [], [], []  # weak: items under their own κ bar, said after the overall κ
    for i in c.items:
        if bar.min_agreement is not None and (i.agreement or 0) < bar.min_agreement:
            short.append(f"{i.id} agrees {i.agreement or 0:.0%} < {bar.min_agreement:.0%}")
        if bar.max_flip_rate is not None and (i.flip_rate or 0) > bar.max_flip_rate:
            short.append(f"{i.id} flips {i.flip_rate or 0:.0%} > {bar.max_flip_rate:.0%}")
        if bar.min_item_kappa is not None and 0 < i.fail_labels < i.labels and (i.kappa or 0) < bar.min_item_kappa:
            weak.append(f"{i.id} κ {i.kappa or 0:.2f} < {bar.min_item_kappa:g}")
        if (short and short[-1].startswith(f"{i.id} ")) or (weak and weak[-1].startswith(f"{i.id} ")):
            below.append(i.id)
    if bar.min_kappa is not None:
        if c.kappa is None:
            short.append("κ cannot be measured: no judged item has a gold label")
        elif c.kappa < bar.min_kappa:
            short.append(f"κ {c.kappa:.2f} < {bar.min_kappa:g}" + (f" ({c.chance})" if c.chance else ""))
    short += weak
    share = c.error_share
    if bar.max_error_share is not None and share is not None and share > bar.max_error_share:
        short.append(f"errors {share:.0%} of verdicts and extractions > {bar.max_error_share:.0%}")
    if bar.min_extraction_accuracy is not None:
        low = sorted(
            (f for f in c.fields if f.accuracy is not None and f.accuracy < bar.min_extraction_accuracy),
            key=lambda f: (f.accuracy, f.field),
        )
        if low:
            more = f" and {len(low) - 1} more field{'s' if len(low) > 2 else ''}" if len(low) > 1 else ""
            short.append(
                f"extraction of {low[0].field} {low[0].accuracy:.0%}{more} < {bar.min_extraction_accuracy:.0%}"
            )
    return below, short


def _item(cid: str, rows: list[tuple[str, list[str]]]) -> ItemCalibration:
    pairs = [(label, v) for label, got in rows for v in got]  # an "error" verdict is a disagreement
    return ItemCalibration(
        id=cid,
        labels=len(rows),
        fail_labels=sum(label == "fail" for label, _ in rows),
        verdicts=len(pairs),
        agreement=sum(a == b for a, b in pairs) / len(pairs) if pairs else None,
        kappa=cohen_kappa(pairs),
        false_pass=sum(a == "fail" and b == "pass" for a, b in pairs),
        false_fail=sum(a == "pass" and b == "fail" for a, b in pairs),
        errors=sum(v == "error" for _, got in rows for v in got),
        flip_rate=sum(flipped(got) for _, got in rows) / len(rows) if rows else None,
    )


def _same(value: Any, want: Any, suite: Suite, name: str) -> bool:
    if value == ("error",):
        return False
    if value is None or want is None:
        return value is None and want is None
    return values_agree([value, want], suite.fields[name], suite.tolerance)


def describe(calibration: Calibration) -> list[str]:
    """The headline (under the bar, and why, first), one line per item and per field, and the items
    under the bar."""
    lines = [f"{calibration.suite}: {calibration.summary()}"]
    confirmed = {i.id: i for i in calibration.confirmed.items} if calibration.confirmed is not None else {}
    for i in calibration.items:
        lines.append(f"  judge {i.id}: {_item_figures(i)}")
        if i.id in confirmed:
            lines.append(f"    confirmed: {_item_figures(confirmed[i.id])}")
    for f in calibration.fields:
        accuracy = f"{f.accuracy:.0%}" if f.accuracy is not None else "-"
        lines.append(
            f"  field {f.field}: extraction accuracy {accuracy} over {f.compared} extractions"
            + (f" ({f.errors} failed)" if f.errors else "")
        )
    if calibration.below:
        lines.append(f"  below the suite's calibration bar — rewrite: {', '.join(calibration.below)}")
    return lines


def _item_figures(i: ItemCalibration) -> str:
    agreement = f"{i.agreement:.0%}" if i.agreement is not None else "-"
    kappa = f"{i.kappa:.2f}" if i.kappa is not None else "-"
    flips = f"{i.flip_rate:.0%}" if i.flip_rate is not None else "-"
    return (
        f"agreement {agreement} over {i.verdicts} verdicts ({i.labels} gold), κ {kappa}, false pass "
        f"{i.false_pass}, false fail {i.false_fail}, flip rate {flips}"
        + (f", {i.errors} judge errors" if i.errors else "")
    )
