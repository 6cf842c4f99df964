"""The history as terminal text: the runs, each suite's trend, the flaky cases, one case over time."""

from __future__ import annotations

from evalkit.compare.flaky import FlakyCase
from evalkit.history.queries import CaseOutcome, RunRow, SuiteTrend

BARS = "▁▂▃▄▅▆▇█"


def spark(values: list[float | None]) -> str:
    """One bar a value between 0 and 1 (a gap for an unknown one)."""
    return "".join(" " if v is None else BARS[min(len(BARS) - 1, int(v * (len(BARS) - 1) + 0.5))] for v in values)


def _pct(value: float | None) -> str:
    return "—" if value is None else f"{value:.0%}"


def _commit(commit: str | None) -> str:
    return (commit or "-")[:12]


def runs_text(rows: list[RunRow]) -> list[str]:
    if not rows:
        return ["no runs recorded"]
    lines = ["run  started                    branch           commit        verdict  passed        cost      time"]
    for r in rows:
        passed = f"{r.passed}/{r.cases} ({_pct(r.passed / r.cases if r.cases else None)})"
        lines.append(
            f"#{r.number:<3} {r.started_at[:25]:<26} {r.branch[:16]:<16} {_commit(r.commit):<13} "
            f"{r.verdict:<8} {passed:<13} ${r.cost_usd:<8.4f} {r.wall_seconds:.1f} s"
        )
    return lines


def trends_text(trends: list[SuiteTrend]) -> list[str]:
    lines = []
    for t in trends:
        first, latest = t.points[0], t.points[-1]
        lat = [p.latency_median for p in t.points if p.latency_median is not None]
        latency = f"latency median {lat[0]:.2f} s → {lat[-1]:.2f} s" if lat else "latency —"
        lines.append(
            f"{t.suite}: pass rate {spark([p.pass_rate for p in t.points])} "
            f"{_pct(first.pass_rate)} → {_pct(latest.pass_rate)} over {len(t.points)} run"
            f"{'s' if len(t.points) != 1 else ''} · cost ${first.cost_usd:.4f} → ${latest.cost_usd:.4f} · "
            f"{latency}"
        )
    return lines or ["no suites recorded"]


def flaky_text(cases: list[FlakyCase], branch: str, last: int) -> list[str]:
    if not cases:
        return [f"no flaky case on {branch} over its last {last} runs"]
    lines = [
        f"flaky on {branch} (outcome changed and changed back with nothing it depends on changed, last {last} runs):"
    ]
    for c in sorted(cases, key=lambda c: (-c.flip_rate, c.suite, c.id)):
        items = f"; items {', '.join(c.items)}" if c.items else ""
        lines.append(f"  {c.suite}/{c.id}: {c.label}, flip rate {c.flip_rate:.0%}{items}")
    return lines


def case_text(case_id: str, outcomes: list[CaseOutcome]) -> list[str]:
    icons = {"pass": "✅", "fail": "❌", "error": "💥"}
    lines = [
        f"{case_id}: {spark([1.0 if o.verdict == 'pass' else 0.0 if o.verdict in ('fail', 'error') else None for o in outcomes])}"
        f" ({len(outcomes)} run{'s' if len(outcomes) != 1 else ''}, oldest first)"
    ]
    for o in outcomes:
        failed = f"  failed: {', '.join(o.failed_items)}" if o.failed_items else ""
        lines.append(
            f"#{o.run:<3} {o.started_at[:25]:<26} {o.branch[:16]:<16} {_commit(o.commit):<13} {o.suite}  "
            f"{icons.get(o.verdict, '·')} {o.verdict}  {o.passed_runs}/{o.runs} runs passed{failed}"
        )
    return lines
