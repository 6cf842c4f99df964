"""A report's past, as its HTML page draws it: for each of the report's suites, the last runs of a
branch (pass rate, cost, latency) and each case's verdict in them, and the cases flaky on that branch.

The report's own run is always the last point, its figures worked out from the report itself the
way recording works them out, so a run reads the same whether or not it was recorded yet; when it
was, only the runs before it are shown with it (an old report is drawn against its own past)."""

from __future__ import annotations

from dataclasses import dataclass, field

from evalkit.compare.flaky import FlakyIndex, index
from evalkit.history.connection import HistoryConnection
from evalkit.history.flaky import DEFAULT_BRANCH, flaky_cases
from evalkit.history.queries import SuiteRun
from evalkit.history.recording import run_key, suite_figures
from evalkit.results.report import Report, SuiteResult

DEFAULT_CHART_RUNS = 20  # runs a chart and a strip show, the report's own included
NOT_RUN = "not run"  # a case absent from a run of its suite (added later, or left out by --case)


@dataclass(frozen=True)
class SuitePast:
    """A suite's last runs, oldest first (the report's own last), and each case's verdict in each."""

    suite: str
    runs: list[SuiteRun]
    verdicts: dict[str, list[str]] = field(default_factory=dict)  # case id -> one verdict per run


@dataclass(frozen=True)
class ReportPast:
    """What the history says about a report: its suites' last runs on `branch`, and the flaky cases."""

    branch: str
    last: int
    suites: dict[str, SuitePast]
    flaky: FlakyIndex


def report_past(
    conn: HistoryConnection, report: Report, *, branch: str = DEFAULT_BRANCH, last: int = DEFAULT_CHART_RUNS
) -> ReportPast:
    """Each suite of `report` over its last `last` runs: `last - 1` runs of `branch`, then the report's own."""
    found = conn.execute("SELECT id FROM runs WHERE run_key = ?", (run_key(report),)).fetchone()
    own_number = int(found[0]) if found else None
    suites = {
        suite.name: _suite_past(conn, report, suite, own_number, branch=branch, last=last) for suite in report.suites
    }
    return ReportPast(branch=branch, last=last, suites=suites, flaky=index(flaky_cases(conn, branch=branch)))


def _suite_past(
    conn: HistoryConnection, report: Report, suite: SuiteResult, own_number: int | None, *, branch: str, last: int
) -> SuitePast:
    # Only the runs before the report's own when it is recorded (no `? IS NULL`: PostgreSQL cannot
    # type a parameter that is only compared with NULL).
    before, params = ("AND s.run < ? ", (own_number,)) if own_number is not None else ("", ())
    rows = conn.execute(
        "SELECT s.run, r.started_at, r.git_commit, s.cases, s.passed, s.cost_usd, s.latency_median "
        f"FROM suite_runs s JOIN runs r ON r.id = s.run WHERE s.suite = ? AND r.branch = ? {before}"
        "ORDER BY s.run DESC LIMIT ?",
        (suite.name, branch, *params, max(0, last - 1)),
    ).fetchall()
    past = [
        SuiteRun(number, started, commit, False, cases, passed, cost, median)
        for number, started, commit, cases, passed, cost, median in reversed(rows)
    ]
    figures = suite_figures(suite)
    own = SuiteRun(
        own_number,
        report.started_at or "",
        report.provenance.git_commit if report.provenance else None,
        True,
        figures.cases,
        figures.passed,
        suite.usage.cost_usd,
        figures.latency_median,
    )
    numbers = [r.number for r in past]
    seen: dict[tuple[int, str], str] = {}
    if numbers:
        marks = ", ".join("?" * len(numbers))
        seen = {
            (run, case_id): verdict
            for run, case_id, verdict in conn.execute(
                f"SELECT run, case_id, verdict FROM case_runs WHERE suite = ? AND run IN ({marks})",
                (suite.name, *numbers),
            )
        }
    verdicts = {
        case.id: [seen.get((n, case.id), NOT_RUN) for n in numbers if n is not None] + [case.verdict]
        for case in suite.cases
    }
    return SuitePast(suite=suite.name, runs=[*past, own], verdicts=verdicts)
