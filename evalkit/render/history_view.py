"""What the HTML report draws from the history: for each suite, its pass rate, cost and latency over its
last runs as charts (with the same figures as a table), and for each case a strip of its verdicts.
Worked out from the history room's ReportPast before the template formats it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from evalkit.render.case_strip import Strip, case_strip
from evalkit.render.trend_chart import LineChart, line_chart

if TYPE_CHECKING:
    from evalkit.history import ReportPast, SuitePast, SuiteRun


@dataclass(frozen=True)
class SuiteTrends:
    runs: list[SuiteRun]  # oldest first, the report's own last: the rows of the table
    labels: list[str]  # each run as its tooltips name it
    charts: list[LineChart] = field(default_factory=list)  # none when there is no earlier run to draw against


@dataclass(frozen=True)
class HistoryView:
    branch: str
    suites: dict[str, SuiteTrends]
    strips: dict[str, Strip]  # "suite/case" -> its strip
    flaky: dict[str, str]  # "suite/case" -> "flaky on main (2 of 10)"


def run_label(run: SuiteRun) -> str:
    """`#12 · 2026-11-20 · abc123def456`, or `this run · …` for the report's own."""
    name = "this run" if run.current else f"#{run.number}"
    return " · ".join(filter(None, [name, run.started_at[:10], (run.commit or "")[:12]]))


def percent(value: float) -> str:
    return f"{value:.0%}"


def dollars(value: float) -> str:
    return f"${value:.4f}" if value < 1 else f"${value:.2f}"


def seconds(value: float) -> str:
    return f"{value:.2f} s"


def suite_trends(past: SuitePast) -> SuiteTrends:
    tips = [run_label(r) for r in past.runs]
    first = past.runs[0]
    ends = ("this run" if first.current else f"#{first.number}", "this run")
    costs = [r.cost_usd for r in past.runs]
    drawn = [
        line_chart("pass rate", [r.pass_rate for r in past.runs], tips, fmt=percent, labels=ends, scale=1.0),
        # every run free (cached or scripted replies): a flat line at $0 says nothing the table does not
        line_chart("cost", costs, tips, fmt=dollars, labels=ends, tick_fmt=lambda v: f"${v:g}") if any(costs) else None,
        line_chart(
            "latency (median, live runs)",
            [r.latency_median for r in past.runs],
            tips,
            fmt=seconds,
            labels=ends,
            tick_fmt=lambda v: f"{v:g} s",
        ),
    ]
    return SuiteTrends(runs=past.runs, labels=tips, charts=[c for c in drawn if c is not None])


def history_view(past: ReportPast | None) -> HistoryView | None:
    """The charts and strips of `past`; None without a history (the page is drawn without them)."""
    if past is None:
        return None
    strips, suites = {}, {}
    flaky = {f"{suite}/{case}": f.label for (suite, case), f in past.flaky.items()}
    for name, suite in past.suites.items():
        trends = suite_trends(suite)
        suites[name] = trends
        for case_id, verdicts in suite.verdicts.items():
            key = f"{name}/{case_id}"
            strip = case_strip(verdicts, trends.labels, flaky.get(key))
            if strip is not None:
                strips[key] = strip
    return HistoryView(branch=past.branch, suites=suites, strips=strips, flaky=flaky)
