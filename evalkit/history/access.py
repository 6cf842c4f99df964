"""What the front doors call: record a results file into a history, and read a history's flaky cases
for a comparison. Each opens the file, does its one thing and closes it."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from evalkit.compare.flaky import FlakyIndex, index
from evalkit.compare.load import load_results
from evalkit.errors import UsageError
from evalkit.history.connection import HistoryConflict, HistoryError
from evalkit.history.database import busy_or_broken, open_history
from evalkit.history.flaky import DEFAULT_BRANCH, DEFAULT_WINDOW, flaky_cases
from evalkit.history.pruning import prune
from evalkit.history.recording import Recorded, record, refuse_unfinished
from evalkit.history.report_past import DEFAULT_CHART_RUNS, ReportPast, report_past
from evalkit.results.report import Report


def current_branch(where: Path | None = None) -> str | None:
    """The branch a run belongs to: GitHub's (the PR's head branch, else the pushed ref's name), else
    the git work tree's; None when neither says (a detached head outside Actions)."""
    for name in ("GITHUB_HEAD_REF", "GITHUB_REF_NAME"):
        if os.environ.get(name):
            return os.environ[name]
    try:
        done = subprocess.run(
            ["git", "rev-parse", "--abbrev-ref", "HEAD"],
            cwd=where or Path.cwd(),
            capture_output=True,
            text=True,
            timeout=10,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    branch = done.stdout.strip()
    return branch if done.returncode == 0 and branch and branch != "HEAD" else None


def record_file(
    results: str | Path, history: str | Path, *, branch: str | None = None, commit: str | None = None
) -> Recorded:
    """Add the run in `results` (JSON report or JSONL) to the history at `history`, created if absent."""
    report = load_results(results)
    refuse_unfinished(report, str(results))
    branch = branch or current_branch()
    if not branch:
        raise UsageError("cannot tell which branch this run belongs to (a detached head): pass --branch NAME")
    conn = open_history(history, create=True)
    try:
        return record(conn, report, branch=branch, commit=commit)
    except HistoryConflict as exc:  # the whole run was rolled back
        raise UsageError(
            f"{results} cannot be recorded, nothing was written ({exc}: a suite name or a case id twice in one run?)"
        ) from None
    except HistoryError as exc:
        raise busy_or_broken(history, exc) from None
    finally:
        conn.close()


def read_flaky(history: str | Path, *, branch: str = DEFAULT_BRANCH, last: int = DEFAULT_WINDOW) -> FlakyIndex:
    """The cases flaky on `branch` in the history at `history` (which must exist), for a comparison."""
    conn = open_history(history)
    try:
        return index(flaky_cases(conn, branch=branch, last=last))
    except HistoryError as exc:
        raise busy_or_broken(history, exc) from None
    finally:
        conn.close()


def read_report_past(
    history: str | Path, report: Report, *, branch: str = DEFAULT_BRANCH, last: int = DEFAULT_CHART_RUNS
) -> ReportPast:
    """The past of `report`'s suites and cases on `branch` in the history at `history` (which must
    exist), for the HTML report's charts and strips."""
    conn = open_history(history)
    try:
        return report_past(conn, report, branch=branch, last=last)
    except HistoryError as exc:
        raise busy_or_broken(history, exc) from None
    finally:
        conn.close()


def prune_file(history: str | Path, *, keep: int) -> int:
    """Remove every run but the newest `keep` from the history at `history` (which must exist)."""
    conn = open_history(history)
    try:
        return prune(conn, keep=keep)
    except HistoryError as exc:
        raise busy_or_broken(history, exc) from None
    finally:
        conn.close()
