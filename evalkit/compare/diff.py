"""Base against head, case by case: which cases regressed, which were fixed, which were failing
already, and which item flips are only noise — or cannot be told from it with so few runs.

The noise rule, per item whose pass rate differs between the sides:
- A collapse counts whatever the test says: a critical or code-decided item that passed on every
  base run and fails on every head run (or the reverse, a fix). Code decides the same way given
  the same output, and a critical item is never waved through; with 3 runs a side Fisher's test
  could at best give p = 0.1, so without this rule 3/3 → 0/3 would pass as noise.
- Otherwise Fisher's exact test (two-sided) at level `alpha` (0.05 by default) decides; the
  p-value is kept. When even the most extreme outcome of these run counts could not reach
  `alpha` (1 run a side, 3 runs a side), a flip that does not count is "too few runs to tell",
  never "within noise", and says how many runs a side the observed change would need.
A case is `not comparable` when what produced or scored it changed between the sides, so a flip
would be a verdict on that change, not on the code: a model of a role (target, judge, extraction)
differs (for the judge and extraction, only cases scored by the judge), the suite's thresholds
differ, or the case's input or its rubric items (ids, texts) differ. Its note says what changed.
A case is `regressed` when its verdict got worse and a counting flip (or a new error, or a gate
with no item behind it) explains it, or when it still passes but an item got significantly worse;
a verdict change explained only by flips that do not count is `too few runs to tell` when one of
them could not be tested at these run counts, else `within noise`.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Iterable
from typing import Any

from evalkit.compare.comparison import CaseDiff, Change, Comparison, FieldChange, ItemFlip, SideStats, SuiteDiff
from evalkit.compare.fisher import fisher_exact, repeats_needed, smallest_p
from evalkit.compare.flaky import FLAKY_CHANGE, FlakyCase, FlakyIndex
from evalkit.compare.trajectory_diff import trajectory_diff
from evalkit.results.report import CaseResult, ItemResult, Report, SuiteResult

DEFAULT_ALPHA = 0.05
_FAILING = ("fail", "error")


def compare_reports(
    base: Report,
    head: Report,
    *,
    alpha: float = DEFAULT_ALPHA,
    base_label: str = "base",
    head_label: str = "head",
    flaky: FlakyIndex | None = None,
) -> Comparison:
    """The whole comparison: suites matched by name, cases by id; `flaky` (from the history) turns a
    regression a case's known flakiness explains into "flaky on main"."""
    if not 0 < alpha < 1:
        raise ValueError("alpha must lie between 0 and 1")
    result = Comparison(
        base_label=base_label,
        head_label=head_label,
        alpha=alpha,
        base=side_stats(base.suites, base),
        head=side_stats(head.suites, head),
        demo=base.demo or head.demo,
    )
    base_suites = {s.name: s for s in base.suites}
    head_suites = {s.name: s for s in head.suites}
    for name in list(base_suites) + [n for n in head_suites if n not in base_suites]:
        b, h = base_suites.get(name), head_suites.get(name)
        diff = SuiteDiff(name=name, base=side_stats([b]) if b else None, head=side_stats([h]) if h else None)
        diff.cases = [mark_flaky(c, (flaky or {}).get((name, c.id))) for c in _suite_cases(name, b, h, alpha)]
        result.suites.append(diff)
    _provenance(result, base, head)
    return result


def _suite_cases(name: str, base: SuiteResult | None, head: SuiteResult | None, alpha: float) -> list[CaseDiff]:
    b = {c.id: c for c in (base.cases if base else []) if c.verdict not in ("skipped", "not_run")}
    h = {c.id: c for c in (head.cases if head else []) if c.verdict not in ("skipped", "not_run")}
    diffs = []
    for i in (i for i in b if i in h):
        changed = not_comparable(base, head, b[i], h[i]) if base is not None and head is not None else []
        if changed:
            diffs.append(
                CaseDiff(
                    suite=name,
                    id=i,
                    change="not comparable",
                    base_verdict=b[i].verdict,
                    head_verdict=h[i].verdict,
                    base_reasons=b[i].reasons,
                    head_reasons=h[i].reasons,
                    note="not comparable: " + "; ".join(changed),
                )
            )
        else:
            diffs.append(compare_case(name, b[i], h[i], alpha))
    gone, added = [i for i in b if i not in h], [i for i in h if i not in b]
    # Cases are matched by id: a renamed case shows as one removed and one new, and says so.
    hint = " (a renamed case shows as removed + new)" if gone and added else ""
    diffs += [
        CaseDiff(
            suite=name,
            id=i,
            change="removed",
            base_verdict=b[i].verdict,
            note="not run on head (absent or skipped)" + hint,
        )
        for i in gone
    ]
    diffs += [
        CaseDiff(
            suite=name,
            id=i,
            change="new",
            head_verdict=h[i].verdict,
            head_reasons=h[i].reasons,
            note="not run on base (absent or skipped)" + hint,
        )
        for i in added
    ]
    return diffs


_JUDGING_ROLES = ("judge", "extraction")


def not_comparable(base_suite: SuiteResult, head_suite: SuiteResult, base: CaseResult, head: CaseResult) -> list[str]:
    """What changed between the sides in what produces or scores this case (empty: comparable)."""
    judged = any(i.decided_by == "judge" for case in (base, head) for run in case.runs for i in run.items)
    changed = []
    for role in sorted(set(base_suite.models) | set(head_suite.models)):
        before, after = base_suite.models.get(role), head_suite.models.get(role)
        if before != after and (role not in _JUDGING_ROLES or judged):
            changed.append(f"{role} model {before or '-'} → {after or '-'}")
    if base_suite.thresholds != head_suite.thresholds:
        changed.append("the suite's thresholds changed")
    if base.input != head.input:
        changed.append("the case's input changed")

    def rubric(case: CaseResult) -> dict[str, str]:
        return {i.id: i.text for run in case.runs for i in run.items}

    b_items, h_items = rubric(base), rubric(head)
    # An item missing on a side whose run errored was not scored there: that is no change of rubric.
    whole = not any(run.error for case in (base, head) for run in case.runs)
    ids = sorted(
        k
        for k in set(b_items) | set(h_items)
        if b_items.get(k) != h_items.get(k) and (whole or (k in b_items and k in h_items))
    )
    if ids:
        changed.append(
            "rubric item"
            + ("s " if len(ids) > 1 else " ")
            + ", ".join(ids[:5])
            + (f" and {len(ids) - 5} more" if len(ids) > 5 else "")
            + " changed"
        )
    return changed


def compare_case(suite: str, base: CaseResult, head: CaseResult, alpha: float = DEFAULT_ALPHA) -> CaseDiff:
    flips = item_flips(base, head, alpha)
    diff = CaseDiff(
        suite=suite,
        id=base.id,
        change="still passing",
        base_verdict=base.verdict,
        head_verdict=head.verdict,
        base_reasons=base.reasons,
        head_reasons=head.reasons,
        flips=flips,
        fields=field_changes(base, head),
    )
    trajectory = trajectory_diff(base, head)
    diff.trajectory = trajectory if trajectory is not None and not trajectory.empty else None
    diff.change = _classify(base, head, flips)
    return diff


def _classify(base: CaseResult, head: CaseResult, flips: list[ItemFlip]) -> Change:
    was_failing, is_failing = base.verdict in _FAILING, head.verdict in _FAILING
    worse = [f for f in flips if f.worse and f.significant]
    better = [f for f in flips if not f.worse and f.significant]
    if was_failing and is_failing:
        return "still failing"
    if not was_failing and not is_failing:
        return "regressed" if worse else "still passing"
    if is_failing:
        # A new error, or a gate no item flip explains (agreement, rubric rate), is not noise.
        unexplained = head.verdict == "error" or not any(f.worse for f in flips)
        return "regressed" if worse or unexplained else _undecided([f for f in flips if f.worse])
    if better or base.verdict == "error" or not any(not f.worse for f in flips):
        return "fixed"
    return _undecided([f for f in flips if not f.worse])


def mark_flaky(diff: CaseDiff, flaky: FlakyCase | None) -> CaseDiff:
    """A regression of a case flaky on the default branch, explained by items that flipped there too,
    none critical, becomes "flaky on main"; a new error, a critical item, an item steady on main, or
    a failure no item explains stays a regression."""
    if flaky is None or diff.change != "regressed":
        return diff
    diff.flaky = flaky
    worse = [f for f in diff.flips if f.worse]
    steady = [f.id for f in worse if flaky.items and f.id not in flaky.items]
    if diff.head_verdict == "error" or not worse or any(f.critical for f in worse) or steady:
        why = (
            "a critical item"
            if any(f.critical for f in worse)
            else f"item {', '.join(steady)} never flipped there"
            if steady
            else "this failure is not an item's flip"
        )
        diff.note = f"{flaky.label}, but {why}: still a regression"
        return diff
    diff.change = FLAKY_CHANGE
    diff.note = f"{flaky.label}: {flaky.flips} flips with nothing it depends on changed; not counted as worse"
    return diff


def _undecided(flips: list[ItemFlip]) -> Change:
    """A verdict change no counting flip explains: noise, unless the runs were too few to tell."""
    return "too few runs to tell" if any(f.too_few_runs for f in flips) else "within noise"


def _counts(items: list[ItemResult]) -> tuple[int, int]:
    scored = [i for i in items if i.status != "n/a"]
    return sum(i.status == "pass" for i in scored), len(scored)


def item_flips(base: CaseResult, head: CaseResult, alpha: float = DEFAULT_ALPHA) -> list[ItemFlip]:
    """Items whose pass rate differs, each judged by the noise rule."""

    def by_id(case: CaseResult) -> dict[str, list[ItemResult]]:
        found: dict[str, list[ItemResult]] = defaultdict(list)
        for run in case.runs:
            for item in run.items:
                found[item.id].append(item)
        return found

    b_items, h_items = by_id(base), by_id(head)
    flips = []
    for item_id, b in b_items.items():
        h = h_items.get(item_id)
        if not h:
            continue
        (bp, bn), (hp, hn) = _counts(b), _counts(h)
        if not bn or not hn or bp * hn == hp * bn:
            continue
        flips.append(_judge_flip(item_id, b, h, bp, bn, hp=hp, hn=hn, alpha=alpha))
    return flips


def _judge_flip(
    item_id: str, b: list[ItemResult], h: list[ItemResult], bp: int, bn: int, *, hp: int, hn: int, alpha: float
) -> ItemFlip:
    sample = h[-1]
    critical = any(i.critical for i in b + h)
    decided_by = "judge" if any(i.decided_by == "judge" for i in b + h) else "code"
    worse = hp * bn < bp * hn
    # Every base run one way, every head run the other: what a broken change looks like.
    collapse = (bp == bn and hp == 0) or (bp == 0 and hp == hn)
    p_value: float | None = None if bn == 1 and hn == 1 else fisher_exact(bp, bn, hp, hn)
    too_few, needed = False, None
    if collapse and (critical or decided_by == "code"):
        significant = True
        kind = "critical item" if critical else "code-decided item"
        before, after = ("passed", "fails") if worse else ("failed", "passes")
        if bn == 1 and hn == 1:
            why = f"{kind}: {before} on base, {after} on head; a single-run flip of it counts"
        else:
            why = (
                f"{kind}: {before} on every base run and {after} on every head run; that counts whatever "
                "the test says about so few runs"
            )
    elif p_value is not None and p_value < alpha:
        significant = True
        why = f"Fisher's exact test p = {p_value:.3g} < {alpha:g}"
    else:
        significant = False
        needed = repeats_needed(bp, bn, hp, hn, alpha)
        change = f"{bp / bn:.0%} → {hp / hn:.0%}"
        need = (
            f"telling {change} from noise takes {needed} runs a side"
            if needed
            else f"{change} cannot be told from noise with up to 100 runs a side"
        )
        test = f"p = {p_value:.3g} ≥ {alpha:g}; " if p_value is not None else ""
        too_few = smallest_p(bn, hn) >= alpha
        runs = f"{bn} run{'s' if bn != 1 else ''}" + (" a side" if bn == hn else f" on base, {hn} on head")
        why = (
            f"too few runs to tell: {test}with {runs} Fisher's exact test cannot reach p < {alpha:g}; {need}"
            if too_few
            else f"within noise: {test}{need}"
        )
    return ItemFlip(
        id=item_id,
        text=sample.text,
        critical=critical,
        decided_by=decided_by,  # type: ignore[arg-type]  # decided_by comes from a stored ItemResult: one of the Literal's values
        base_passed=bp,
        base_runs=bn,
        head_passed=hp,
        head_runs=hn,
        base_reason=_reason(b, bp < bn),
        head_reason=_reason(h, hp < hn),
        worse=worse,
        significant=significant,
        p_value=p_value,
        too_few_runs=too_few,
        repeats_needed=needed,
        why=why,
    )


def _reason(items: list[ItemResult], prefer_failure: bool) -> str:
    """A reason from this side: a failing item's when some failed, else a passing one's."""
    chosen = [i for i in items if (i.status != "pass") == prefer_failure] or items
    return chosen[0].reason


def field_changes(base: CaseResult, head: CaseResult) -> list[FieldChange]:
    def values(case: CaseResult) -> dict[str, list[Any]]:
        found: dict[str, list[Any]] = defaultdict(list)
        for run in case.runs:
            for name, value in (run.fields or {}).items():
                found[name].append(value)
        return found

    b, h = values(base), values(head)
    return [
        FieldChange(field=n, base=b.get(n, []), head=h.get(n, []))
        for n in sorted(set(b) | set(h))
        if sorted(map(repr, b.get(n, []))) != sorted(map(repr, h.get(n, [])))
    ]


def side_stats(suites: list[SuiteResult], report: Report | None = None) -> SideStats:
    """Totals of `suites`; the run's own usage and wall time when given the report."""
    cases = [c for s in suites for c in s.cases if c.verdict not in ("skipped", "not_run")]
    stats = SideStats(
        cases=len(cases),
        passed=sum(c.verdict == "pass" for c in cases),
        failed=sum(c.verdict == "fail" for c in cases),
        errors=sum(c.verdict == "error" for c in cases),
        critical_failures=sum(len(c.critical_failures) for c in cases),
    )
    stats.pass_rate = stats.passed / stats.cases if stats.cases else None
    agreements = [c.agreement for c in cases if c.agreement is not None]
    stats.agreement = sum(agreements) / len(agreements) if agreements else None
    usages = [report.usage] if report else [s.usage for s in suites]
    for u in usages:
        stats.calls += u.calls
        stats.cache_hits += u.cache_hits
        stats.input_tokens += u.input_tokens
        stats.output_tokens += u.output_tokens
        stats.cost_usd += u.cost_usd
        stats.cached_cost_usd += u.cached_cost_usd
    stats.wall_seconds = report.wall_seconds if report else max((s.wall_seconds for s in suites), default=0.0)
    stats.latency_median, stats.latency_p95 = latency(live_run_seconds(cases))
    return stats


def live_run_seconds(cases: Iterable[CaseResult]) -> list[float]:
    """Wall times of the runs of cases that made every model call live: a reply from the response
    cache takes no time, and would pull a latency figure toward zero."""
    return [r.wall_seconds for c in cases if not c.usage.cache_hits for r in c.runs]


def latency(seconds: list[float]) -> tuple[float | None, float | None]:
    """Median and 95th percentile (nearest rank) of run times."""
    if not seconds:
        return None, None
    ordered = sorted(seconds)
    rank = max(0, -(-95 * len(ordered) // 100) - 1)
    return statistics.median(ordered), ordered[rank]


def _provenance(result: Comparison, base: Report, head: Report) -> None:
    bp, hp = base.provenance, head.provenance
    if bp is None or hp is None:
        result.notes.append(
            "one side has no provenance (an older results file): what differed between the runs is not recorded"
        )
        return
    result.base_commit, result.head_commit = bp.git_commit, hp.git_commit
    result.changed_files = sorted(p for p in set(bp.files) | set(hp.files) if bp.files.get(p) != hp.files.get(p))
    for key in sorted(set(bp.options) | set(hp.options)):
        if key != "concurrency" and bp.options.get(key) != hp.options.get(key):
            result.notes.append(
                f"option {key} differs: {bp.options.get(key)!r} on base, {hp.options.get(key)!r} on head"
            )
    if bp.models_called != hp.models_called:
        result.notes.append(
            f"models called differ: {', '.join(bp.models_called) or '-'} on base, "
            f"{', '.join(hp.models_called) or '-'} on head"
        )
