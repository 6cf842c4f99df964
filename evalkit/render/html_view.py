"""What the HTML report shows, worked out from a Report (and an optional comparison) before the
template formats it: one row per case with its filter flags, the base side's case beside it,
and the figures of the charts."""

from __future__ import annotations

import statistics
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from evalkit.compare.diff import live_run_seconds
from evalkit.results.consistency import Consistency, consistency
from evalkit.results.report import CaseResult, Report, SuiteResult

# Changed cases lead a suite's table, in the order a reviewer reads them.
CHANGE_ORDER = (
    "regressed",
    "flaky on main",
    "fixed",
    "still failing",
    "new",
    "not comparable",
    "too few runs to tell",
    "within noise",
    "removed",
    "still passing",
)
FILTERS = ("failed", "regressed", "critical", "errors", "inconclusive")


@dataclass
class CaseView:
    key: str  # "suite/case": what the URL fragment names
    dom_id: str
    suite: SuiteResult
    case: CaseResult
    flags: list[str]
    diff: Any = None  # the comparison's CaseDiff, when there is one
    base: CaseResult | None = None  # the same case on the base side, when the base report is given
    runs: Consistency | None = None  # how many of a case's repeats passed (pass@k, pass^k)


@dataclass
class SuiteView:
    suite: SuiteResult
    rows: list[CaseView]
    calibration: Any = None  # a suite's judge calibration, once Reports carry one
    base_rate: float | None = None
    head_rate: float | None = None
    repeated: bool = False  # some case has repeats with per-run verdicts: the table shows runs passed


@dataclass
class Chart:
    bars: list["Bar"]
    scale: float  # the value a full-width bar stands for


@dataclass
class Bar:
    label: str
    values: list[tuple[float, str, str]] = field(default_factory=list)  # (value, shown text, css class)


def flags(case: CaseResult, change: str | None) -> list[str]:
    found = []
    if case.verdict == "fail":
        found.append("failed")
    if change == "regressed":
        found.append("regressed")
    if case.critical_failures:
        found.append("critical")
    if case.verdict == "error" or case.errors:
        found.append("errors")
    if case.verdict == "inconclusive":
        found.append("inconclusive")
    return found


def pass_rate(suite: SuiteResult) -> float | None:
    scored = [c for c in suite.cases if c.verdict not in ("skipped", "not_run")]
    return sum(c.verdict == "pass" for c in scored) / len(scored) if scored else None


def build(report: Report, comparison: Any = None, base: Report | None = None) -> list[SuiteView]:
    diffs = {(d.suite, d.id): d for d in comparison.cases()} if comparison is not None else {}
    base_cases = {(s.name, c.id): c for s in base.suites for c in s.cases} if base is not None else {}
    base_suites = {s.name: s for s in base.suites} if base is not None else {}
    views, n = [], 0
    for suite in report.suites:
        rows = []
        for case in suite.cases:
            n += 1
            diff = diffs.get((suite.name, case.id))
            change = diff.change if diff is not None else None
            rows.append(
                CaseView(
                    key=f"{suite.name}/{case.id}",
                    dom_id=f"c{n}",
                    suite=suite,
                    case=case,
                    flags=flags(case, change),
                    diff=diff,
                    base=base_cases.get((suite.name, case.id)),
                    runs=consistency(case),
                )
            )
        if diffs:
            rows.sort(key=lambda r: CHANGE_ORDER.index(r.diff.change) if r.diff is not None else len(CHANGE_ORDER))
        view = SuiteView(
            suite=suite,
            rows=rows,
            calibration=getattr(suite, "calibration", None),
            head_rate=pass_rate(suite),
            repeated=any(r.runs is not None for r in rows),
        )
        if comparison is not None:
            sd = next((s for s in comparison.suites if s.name == suite.name), None)
            view.base_rate = sd.base.pass_rate if sd is not None and sd.base is not None else None
        elif suite.name in base_suites:
            view.base_rate = pass_rate(base_suites[suite.name])
        views.append(view)
    return views


def filter_counts(views: list[SuiteView]) -> dict[str, int]:
    counts = {f: 0 for f in FILTERS}
    for view in views:
        for row in view.rows:
            for flag in row.flags:
                counts[flag] += 1
    return counts


def latency(seconds: list[float]) -> tuple[float, float] | None:
    """Median and 95th percentile (nearest rank) of run times."""
    if not seconds:
        return None
    ordered = sorted(seconds)
    return statistics.median(ordered), ordered[max(0, -(-95 * len(ordered) // 100) - 1)]


def model_latency(report: Report) -> dict[str, tuple[float, float]]:
    """Run wall times per target model (the model a suite's target called), live runs only."""
    runs: dict[str, list[float]] = defaultdict(list)
    for suite in report.suites:
        model = suite.models.get("target")
        if model:
            runs[model] += live_run_seconds(suite.cases)
    return {m: lat for m, secs in runs.items() if (lat := latency(secs)) is not None}


def _cost(dollars: float, cache_hits: int) -> str:
    return f"${dollars:.4f}" + (f" + {cache_hits} cached" if cache_hits else "")


def verdict_counts(views: list[SuiteView]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for view in views:
        for row in view.rows:
            counts[row.case.verdict] = counts.get(row.case.verdict, 0) + 1
    return counts


def charts(report: Report, views: list[SuiteView], comparison: Any = None) -> dict[str, Chart]:
    """Every chart, keyed by its title; a chart with nothing to show is left out."""
    return {
        title: Chart(
            bars,
            1.0 if "pass rate" in title else max((v for bar in bars for v, _, _ in bar.values), default=0.0) or 1.0,
        )
        for title, bars in _bars(report, views, comparison).items()
    }


def _bars(report: Report, views: list[SuiteView], comparison: Any) -> dict[str, list[Bar]]:
    out: dict[str, list[Bar]] = {}
    rates = []
    for view in views:
        bar = Bar(view.suite.name)
        if comparison is not None:
            rate = view.base_rate
            bar.values.append((rate or 0.0, "—" if rate is None else f"{rate:.0%}", "base"))
        rate = view.head_rate
        bar.values.append((rate or 0.0, "—" if rate is None else f"{rate:.0%}", "head"))
        rates.append(bar)
    if rates:
        out["pass rate per suite"] = rates
    costs = [
        Bar(m.model, [(m.usage.cost_usd, _cost(m.usage.cost_usd, m.usage.cache_hits), "head")]) for m in report.models
    ]
    if any(v for bar in costs for v, _, _ in bar.values) or any(m.usage.cache_hits for m in report.models):
        out["cost per model (live calls; cached replies are free)"] = costs
    lat = model_latency(report)
    if lat:
        out["run latency per target model (median, p95; live runs only)"] = [
            Bar(m, [(med, f"{med:.2f} s", "head"), (p95, f"{p95:.2f} s", "p95")]) for m, (med, p95) in lat.items()
        ]
    if comparison is not None:
        sides = [(comparison.base_label, comparison.base, "base"), (comparison.head_label, comparison.head, "head")]
        out["cost: base vs head (live calls)"] = [
            Bar(label, [(s.cost_usd, _cost(s.cost_usd, s.cache_hits), cls)]) for label, s, cls in sides
        ]
        if any(s.latency_median is not None for _, s, _ in sides):
            out["latency: base vs head (median, p95; live runs only)"] = [
                Bar(
                    label,
                    [
                        (s.latency_median or 0.0, f"{s.latency_median or 0:.2f} s", cls),
                        (s.latency_p95 or 0.0, f"{s.latency_p95 or 0:.2f} s", "p95"),
                    ],
                )
                for label, s, cls in sides
            ]
    return out
