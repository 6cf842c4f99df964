"""Add a run's results to the history: every suite, case and item in one transaction, or nothing."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import datetime, timezone

from evalkit.compare.diff import latency, live_run_seconds
from evalkit.errors import UsageError
from evalkit.history.connection import HistoryConnection
from evalkit.history.fingerprint import input_hash, suite_hash
from evalkit.results.report import CaseResult, ItemResult, Report, SuiteResult


@dataclass(frozen=True)
class Recorded:
    """What `record` did: the run's number in the history, or that it was there already."""

    number: int
    suites: int
    cases: int
    already: bool = False


def run_key(report: Report) -> str:
    """The run's identity: its run id, else a hash of its results (a file recorded twice is one run)."""
    if report.run_id:
        return report.run_id
    return "sha256:" + hashlib.sha256(report.model_dump_json().encode("utf-8", "surrogatepass")).hexdigest()


def refuse_unfinished(report: Report, where: str) -> None:
    """A partial run or one shard would read as a drop in every trend: UsageError saying what to do."""
    if report.partial:
        raise UsageError(
            f"{where} is a run that stopped before every case finished: complete it with "
            f"`evalkit run --resume {where}l` (or the run's JSONL), then record it"
        )
    if report.shard:
        raise UsageError(
            f"{where} holds shard {report.shard} of a run: join the shards with `evalkit merge`, "
            "then record the merged results"
        )


def record(
    conn: HistoryConnection, report: Report, *, branch: str, commit: str | None = None, now: datetime | None = None
) -> Recorded:
    """Add `report` as one run of `branch` (commit: given, else the provenance's); all in or nothing."""
    key = run_key(report)
    commit = commit or (report.provenance.git_commit if report.provenance else None)
    recorded_at = (now or datetime.now(timezone.utc)).isoformat(timespec="seconds")
    with conn.transaction():
        found = conn.execute("SELECT id FROM runs WHERE run_key = ?", (key,)).fetchone()
        if found:
            return Recorded(number=found[0], suites=0, cases=0, already=True)
        # numbered here, under the write lock: both databases number runs alike, and a write rolled
        # back leaves no gap (a PostgreSQL sequence would skip the number it handed out)
        number = int(conn.execute("SELECT COALESCE(MAX(id), 0) + 1 FROM runs").fetchone()[0])
        conn.execute(
            "INSERT INTO runs (id, run_key, recorded_at, started_at, git_commit, branch, verdict, cost_usd, "
            "wall_seconds, calls) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                number,
                key,
                recorded_at,
                report.started_at or recorded_at,
                commit,
                branch,
                report.verdict,
                report.usage.cost_usd,
                report.wall_seconds,
                report.usage.calls,
            ),
        )
        cases = 0
        for suite in report.suites:
            _suite(conn, number, suite, report)
            for case in suite.cases:
                _case(conn, number, suite.name, case)
                cases += 1
    return Recorded(number=number, suites=len(report.suites), cases=cases)


@dataclass(frozen=True)
class SuiteFigures:
    """What the history keeps of a suite's run: cases scored, passed, and its live runs' latency."""

    cases: int
    passed: int
    latency_median: float | None
    latency_p95: float | None


def suite_figures(suite: SuiteResult) -> SuiteFigures:
    """The suite's figures as recorded (skipped and not-run cases left out); a report that has
    only the suite's counts gives no latency."""
    scored = [c for c in suite.cases if c.verdict not in ("skipped", "not_run")]
    total = len(scored) if suite.cases else sum(n for v, n in suite.counts.items() if v not in ("skipped", "not_run"))
    passed = sum(c.verdict == "pass" for c in scored) if suite.cases else suite.counts.get("pass", 0)
    median, p95 = latency(live_run_seconds(scored))
    return SuiteFigures(total, passed, median, p95)


def _suite(conn: HistoryConnection, run: int, suite: SuiteResult, report: Report) -> None:
    figures = suite_figures(suite)
    conn.execute(
        "INSERT INTO suite_runs (run, suite, suite_hash, target, models, verdict, cases, passed, cost_usd, "
        "wall_seconds, latency_median, latency_p95) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            run,
            suite.name,
            suite_hash(suite, report.provenance),
            suite.target,
            json.dumps(suite.models, sort_keys=True),
            suite.verdict,
            figures.cases,
            figures.passed,
            suite.usage.cost_usd,
            suite.wall_seconds,
            figures.latency_median,
            figures.latency_p95,
        ),
    )


def _case(conn: HistoryConnection, run: int, suite: str, case: CaseResult) -> None:
    conn.execute(
        "INSERT INTO case_runs (run, suite, case_id, verdict, input_hash, runs, passed_runs, cost_usd, "
        "wall_seconds) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            run,
            suite,
            case.id,
            case.verdict,
            input_hash(case.input),
            len(case.runs),
            sum(r.passed is True for r in case.runs),
            case.usage.cost_usd,
            case.wall_seconds,
        ),
    )
    items: dict[str, list[ItemResult]] = {}
    for run_result in case.runs:
        for item in run_result.items:
            items.setdefault(item.id, []).append(item)
    for item_id, results in items.items():
        scored = [i for i in results if i.status != "n/a"]
        conn.execute(
            "INSERT INTO item_runs (run, suite, case_id, item_id, decided_by, critical, passed, scored) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (
                run,
                suite,
                case.id,
                item_id,
                results[-1].decided_by,
                int(any(i.critical for i in results)),
                sum(i.status == "pass" for i in scored),
                len(scored),
            ),
        )
