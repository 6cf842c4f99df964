"""Read the history: the runs, each suite's trend over its last runs, one case's outcomes over time."""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field

from evalkit.errors import UsageError
from evalkit.history.connection import HistoryConnection


@dataclass(frozen=True)
class RunRow:
    number: int
    started_at: str
    branch: str
    commit: str | None
    verdict: str
    cases: int
    passed: int
    cost_usd: float
    wall_seconds: float


@dataclass(frozen=True)
class SuiteRun:
    """One run of a suite: when, which commit, and its figures then (pass rate, cost, latency)."""

    number: int | None  # the run's number in the history; None: a report's own run, not recorded
    started_at: str
    commit: str | None
    current: bool  # a report's own run (evalkit.history.report_past), drawn apart from its past
    cases: int
    passed: int
    cost_usd: float
    latency_median: float | None

    @property
    def pass_rate(self) -> float | None:
        return self.passed / self.cases if self.cases else None


@dataclass(frozen=True)
class SuiteTrend:
    suite: str
    points: list[SuiteRun]  # oldest first


@dataclass(frozen=True)
class CaseOutcome:
    """One run of one case: its verdict, its runs that passed, and the items that failed."""

    run: int
    started_at: str
    branch: str
    commit: str | None
    suite: str
    verdict: str
    runs: int
    passed_runs: int
    failed_items: list[str] = field(default_factory=list)


def runs(conn: HistoryConnection, *, last: int = 20, branch: str | None = None) -> list[RunRow]:
    """The last `last` runs recorded (of `branch`, when given), newest first."""
    rows = conn.execute(
        "SELECT r.id, r.started_at, r.branch, r.git_commit, r.verdict, COALESCE(SUM(s.cases), 0), "
        "COALESCE(SUM(s.passed), 0), r.cost_usd, r.wall_seconds FROM runs r LEFT JOIN suite_runs s ON s.run = r.id "
        "WHERE (CAST(? AS TEXT) IS NULL OR r.branch = ?) GROUP BY r.id ORDER BY r.id DESC LIMIT ?",
        (branch, branch, last),
    )
    return [RunRow(*row) for row in rows]


def suite_trends(conn: HistoryConnection, *, last: int = 10, branch: str | None = None) -> list[SuiteTrend]:
    """Each suite's last `last` runs (of `branch`, when given), oldest first; suites by name."""
    trends = []
    names = [r[0] for r in conn.execute("SELECT DISTINCT suite FROM suite_runs ORDER BY suite")]
    for name in names:
        rows = conn.execute(
            "SELECT s.run, r.started_at, r.git_commit, s.cases, s.passed, s.cost_usd, s.latency_median FROM suite_runs s "
            "JOIN runs r ON r.id = s.run WHERE s.suite = ? AND (CAST(? AS TEXT) IS NULL OR r.branch = ?) "
            "ORDER BY s.run DESC LIMIT ?",
            (name, branch, branch, last),
        ).fetchall()
        if rows:
            points = [
                SuiteRun(number, started, commit, False, cases, passed, cost, median)
                for number, started, commit, cases, passed, cost, median in reversed(rows)
            ]
            trends.append(SuiteTrend(suite=name, points=points))
    return trends


def case_outcomes(
    conn: HistoryConnection, case_id: str, *, suite: str | None = None, last: int = 50
) -> list[CaseOutcome]:
    """The case's last `last` outcomes, oldest first; UsageError naming close ids when none is recorded."""
    rows = conn.execute(
        "SELECT c.run, r.started_at, r.branch, r.git_commit, c.suite, c.verdict, c.runs, c.passed_runs "
        "FROM case_runs c JOIN runs r ON r.id = c.run WHERE c.case_id = ? AND (CAST(? AS TEXT) IS NULL OR c.suite = ?) "
        "ORDER BY c.run DESC, c.suite LIMIT ?",
        (case_id, suite, suite, last),
    ).fetchall()
    if not rows:
        known = [r[0] for r in conn.execute("SELECT DISTINCT case_id FROM case_runs")]
        close = difflib.get_close_matches(case_id, known, n=3)
        where = f" in suite {suite}" if suite else ""
        hint = f" (close: {', '.join(close)})" if close else ""
        raise UsageError(f"no case {case_id!r}{where} in the history{hint}")
    outcomes = []
    for run, started, branch, commit, suite_name, verdict, n, passed in reversed(rows):
        failed = [
            r[0]
            for r in conn.execute(
                "SELECT item_id FROM item_runs WHERE run = ? AND suite = ? AND case_id = ? AND passed < scored "
                "ORDER BY item_id",
                (run, suite_name, case_id),
            )
        ]
        outcomes.append(CaseOutcome(run, started, branch, commit, suite_name, verdict, n, passed, failed))
    return outcomes
