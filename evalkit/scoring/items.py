"""Scoring: deciding each item of a run (by code or from the judge's verdicts), and the checks
across cases. Shared by the runner and the pytest helpers, so both decide alike."""

from __future__ import annotations

from typing import Any, Callable

from evalkit._runtime.user_calls import USER_EXITS, DaemonPool
from evalkit.checks.base import Check, CheckContext, normalize
from evalkit.errors import one_line
from evalkit.results.agreement import consensus
from evalkit.results.report import CaseResult, ComparisonResult, ItemResult
from evalkit.scoring.judge import JudgeOutcome
from evalkit.suite.conditions import condition_holds
from evalkit.suite.model import Case, Item, Suite
from evalkit.suite.spec import CompareSpec, FieldRef

# Checks from plugins are user code: they run here, where one that never returns can be left behind.
_CHECK_WORKERS = DaemonPool(4, "evalkit-check")


def applicable_items(case: Case, facts: dict[str, Any]) -> tuple[list[Item], list[ItemResult]]:
    """Items whose `when` holds; the others are recorded as not applicable (or error)."""
    applicable, recorded = [], []
    for it in case.items:
        if it.when is None:
            applicable.append(it)
            continue
        try:
            holds = condition_holds(it.when, input=case.input, facts=facts)
        except ValueError as exc:
            recorded.append(item_result(it, "error", str(exc)))
            continue
        if holds:
            applicable.append(it)
        else:
            recorded.append(item_result(it, "n/a", f"not applicable: {it.when}"))
    return applicable, recorded


def decide_items(
    case: Case,
    applicable: list[Item],
    recorded: list[ItemResult],
    ctx: CheckContext,
    verdicts: JudgeOutcome | None,
    *,
    extract_error: str | None,
    checked: dict[str, ItemResult] | None = None,
) -> list[ItemResult]:
    """Every item of a run, in the case's order: judged, decided by code, or recorded before.
    `checked`: code items already decided elsewhere (plugins' checks, in a worker process)."""
    decided = {r.id: r for r in recorded}
    for it in applicable:
        code = None
        if it.check is not None and it.check.needs_fields and ctx.fields is None:
            code = item_result(it, "error", extract_error or "no fields were extracted")
        elif checked is not None and it.id in checked:
            code = checked[it.id]
        elif it.check is not None:
            code = decide_item(it, ctx)
        judged = judged_item(it, verdicts) if it.judge is not None else None
        decided[it.id] = both_witnesses(it, code, judged) if code and judged else (code or judged)  # type: ignore[assignment]  # an item has a check, a judge or both: one of the two is set
    return [decided[it.id] for it in case.items]


def both_witnesses(it: Item, code: ItemResult, judged: ItemResult) -> ItemResult:
    """Two witnesses: a fail of either fails the item, then an error of either is an error;
    one witness not applicable leaves the other's verdict."""
    statuses = {code.status, judged.status}
    status = next((s for s in ("fail", "error", "pass") if s in statuses), "n/a")
    return item_result(it, status, f"code: {code.reason} · judge: {judged.reason}")


def truncated_item() -> ItemResult:
    """The built-in `complete` check, recorded (failed) only for an output cut off at max_tokens."""
    return ItemResult(
        id="complete",
        text="The output is complete (did not stop at max_tokens)",
        status="fail",
        reason="the output stopped at max_tokens: it is truncated",
        required=True,
    )


def item_result(it: Item, status: str, reason: str) -> ItemResult:
    return ItemResult(
        id=it.id,
        text=it.text,
        reason=reason,
        status=status,  # type: ignore[arg-type]  # pydantic checks status against the Literal when it builds the result
        critical=it.critical,
        required=it.required,
        decided_by=it.decided_by,  # type: ignore[arg-type]  # as above, for decided_by
        weight=it.weight,
    )


def judged_item(it: Item, outcome: Any) -> ItemResult:
    """The item's result from the judge's outcome (a JudgeOutcome, or None if never called)."""
    if outcome is None or outcome.error:
        return item_result(it, "error", outcome.error if outcome else "judge not called")
    v = outcome.verdicts[it.id]
    result = item_result(it, v.verdict, v.reason)
    result.votes = list(getattr(outcome, "votes", {}).get(it.id, []))
    return result


def decide_item(it: Item, ctx: CheckContext) -> ItemResult:
    """Decide a code item; a check that raises is an error row, never a pass."""
    try:
        outcome = normalize(evaluate_check(it.check, ctx))  # type: ignore[arg-type]  # only items with a check are decided here
    except TimeoutError as exc:
        return item_result(it, "error", f"check timed out: {one_line(exc)}")
    except (Exception, *USER_EXITS) as exc:  # the check's own bug, or an output it cannot read
        return item_result(it, "error", f"check raised {type(exc).__name__}: {one_line(exc)}")
    status = "n/a" if outcome.passed is None else ("pass" if outcome.passed else "fail")
    return item_result(it, status, outcome.reason)


def evaluate_check(check: Check, ctx: CheckContext) -> Any:
    """`check.evaluate(ctx)`; a plugin's check runs on a worker thread within `ctx.timeout` seconds
    (the built-ins are bounded by construction, and skip the thread's cost)."""
    if ctx.timeout is None or (type(check).__module__.startswith("evalkit.") and not check.calls_user_code):
        return check.evaluate(ctx)
    future = _CHECK_WORKERS.submit(check.evaluate, ctx)
    try:
        return future.result(timeout=ctx.timeout)
    except TimeoutError:
        if not future.done():
            _CHECK_WORKERS.abandon()
            raise TimeoutError(f"{check.type} took over {ctx.timeout:g} s") from None
        raise


def _compared_cases_ran(cmp: CompareSpec, cases: list[CaseResult]) -> bool:
    ran = {c.id for c in cases}
    return all(ref.case is None or ref.case in ran for ref in (cmp.left, cmp.right))


_OPS: dict[str, Callable[[Any, Any], bool]] = {
    "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b,
    "==": lambda a, b: a == b,
    "!=": lambda a, b: a != b,
}


def compare_cases(suite: Suite, cases: list[CaseResult]) -> list[ComparisonResult]:
    """The suite's checks across cases, for those whose cases all ran."""
    return [compare(c, suite, cases) for c in suite.comparisons if _compared_cases_ran(c, cases)]


def compare(cmp: CompareSpec, suite: Suite, cases: list[CaseResult]) -> ComparisonResult:
    """Evaluate a check across cases on extracted fields (consensus over a case's runs)."""
    by_id = {c.id: c for c in cases}
    text = cmp.text or f"{_ref_name(cmp.left)} {cmp.op} {_ref_name(cmp.right)}"
    try:
        left, right = _ref_value(cmp.left, by_id), _ref_value(cmp.right, by_id)
    except LookupError as exc:
        return ComparisonResult(id=cmp.id, text=text, status="error", reason=str(exc))
    if left is None or right is None:
        missing = _ref_name(cmp.left) if left is None else _ref_name(cmp.right)
        return ComparisonResult(id=cmp.id, text=text, status="fail", reason=f"{missing} is not stated")
    try:
        if cmp.op == "within":
            ok = abs(left - right) <= cmp.tolerance * abs(right)
            detail = f"{left:g} vs {right:g} (±{cmp.tolerance:.0%})"
        else:
            ok = _OPS[cmp.op](left, right)
            detail = f"{left!r} {cmp.op} {right!r}"
    except TypeError:
        return ComparisonResult(id=cmp.id, text=text, status="error", reason=f"cannot compare {left!r} with {right!r}")
    return ComparisonResult(id=cmp.id, text=text, status="pass" if ok else "fail", reason=detail)


def _ref_name(ref: FieldRef) -> str:
    if ref.case is None:
        return repr(ref.value)
    return f"{ref.case}.{ref.field or 'facts.' + str(ref.fact)}"


def _ref_value(ref: FieldRef, cases: dict[str, CaseResult]) -> Any:
    if ref.case is None:
        return ref.value
    case = cases[ref.case]
    runs = [r for r in case.runs if r.error is None]
    if not runs:
        raise LookupError(f"case {ref.case} has no successful run")
    if ref.fact is not None:
        if ref.fact not in runs[0].facts:
            raise LookupError(f"case {ref.case} has no fact {ref.fact!r}")
        return runs[0].facts[ref.fact]
    values = [r.fields.get(ref.field) for r in runs if r.fields is not None]  # type: ignore[arg-type]  # a reference names a fact or a field; the fact case returned above
    if not values:
        raise LookupError(f"case {ref.case}: field {ref.field} was not extracted")
    return consensus(values)
