"""Two copies of a history that each recorded a run of their own join by run key: the runs one lacks
are copied in with their suites, cases and items, oldest first; a run both hold stays one run."""

from __future__ import annotations

import pytest

from evalkit.errors import UsageError
from evalkit.history.database import open_history
from evalkit.history.flaky import flaky_cases
from evalkit.history.merge import add_missing_runs
from evalkit.history.queries import case_outcomes, runs
from evalkit.history.recording import record
from tests.history.conftest import case, report


def test_runs_one_copy_lacks_are_joined_oldest_first_with_their_items(tmp_path):
    shared = [
        report(case("a", s), run_id=f"r{n}", started_at=f"2026-01-0{n}T00:00:00+00:00")
        for n, s in enumerate(["pass", "fail"], start=1)
    ]
    mine, theirs = (
        open_history(tmp_path / "mine.sqlite", create=True),
        open_history(tmp_path / "theirs.sqlite", create=True),
    )
    for conn in (mine, theirs):
        for each in shared:
            record(conn, each, branch="main")
    # two runs at once: each copy recorded its own; the other copy's later upload replaced this one
    record(mine, report(case("a", "pass"), run_id="mine", started_at="2026-01-04T00:00:00+00:00"), branch="main")
    record(theirs, report(case("a", "pass"), run_id="theirs", started_at="2026-01-03T00:00:00+00:00"), branch="main")
    theirs.close()
    assert add_missing_runs(mine, tmp_path / "theirs.sqlite") == 1
    assert add_missing_runs(mine, tmp_path / "theirs.sqlite") == 0  # joined once
    assert [r.number for r in runs(mine)] == [4, 3, 2, 1]
    assert [o.verdict for o in case_outcomes(mine, "a")] == ["pass", "fail", "pass", "pass"]
    assert case_outcomes(mine, "a")[1].failed_items == ["tone"]  # its items came along
    [flaky] = flaky_cases(mine)
    assert (flaky.failed, flaky.runs, flaky.flips) == (1, 4, 2)
    mine.close()


def test_a_copy_that_is_not_a_history_is_refused_in_one_line(tmp_path):
    (tmp_path / "bad.sqlite").write_bytes(b"not a database")
    conn = open_history(tmp_path / "h.sqlite", create=True)
    with pytest.raises(UsageError, match="not an evalkit history"):
        add_missing_runs(conn, tmp_path / "bad.sqlite")
    assert runs(conn) == []
    conn.close()
