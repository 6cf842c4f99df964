"""What the history says of a report for its HTML page: its suites' last runs of a branch with the
report's own run last (recorded or not), each case's verdict in them, and the flaky cases."""

from __future__ import annotations

import pytest

from evalkit.errors import UsageError
from evalkit.history.access import read_report_past
from evalkit.history.database import open_history
from evalkit.history.recording import record
from evalkit.history.report_past import NOT_RUN, report_past
from tests.history.conftest import case, report


@pytest.fixture
def conn(history_at):
    """Each test on a new SQLite file and on a new PostgreSQL database."""
    db = open_history(history_at, create=True)
    yield db
    db.close()


def _record_runs(conn, statuses, *, branch="main", more=()):
    for n, status in enumerate(statuses):
        record(
            conn,
            report(
                case("a", status),
                case("b", "pass"),
                *more,
                commit=f"c{n}",
                started_at=f"2026-11-{n + 1:02d}T00:00:00+00:00",
            ),
            branch=branch,
        )


def test_the_last_runs_of_the_branch_then_the_report_own_run(conn):
    _record_runs(conn, ["pass", "fail", "pass", "fail", "pass"])
    _record_runs(conn, ["fail"] * 3, branch="feature")  # another branch's runs are not drawn
    head = report(case("a", "fail"), case("b", "pass"), case("c", "pass"), commit="head")
    past = report_past(conn, head, last=4)
    suite = past.suites["qa"]
    assert [r.number for r in suite.runs] == [3, 4, 5, None]
    assert [r.current for r in suite.runs] == [False, False, False, True]
    assert [r.commit for r in suite.runs] == ["c2", "c3", "c4", "head"]
    assert [r.pass_rate for r in suite.runs] == [1.0, 0.5, 1.0, pytest.approx(2 / 3)]
    assert suite.verdicts == {
        "a": ["pass", "fail", "pass", "fail"],
        "b": ["pass"] * 4,
        "c": [NOT_RUN, NOT_RUN, NOT_RUN, "pass"],
    }
    assert (past.branch, past.last) == ("main", 4)


def test_a_recorded_report_is_drawn_against_the_runs_before_it_not_after(conn):
    _record_runs(conn, ["pass", "fail"])
    old = report(case("a", "fail"), case("b", "pass"), run_id="old-run", commit="old")
    record(conn, old, branch="main")
    _record_runs(conn, ["pass", "pass"])
    suite = report_past(conn, old).suites["qa"]
    assert [r.number for r in suite.runs] == [1, 2, 3]  # run 3 is the report itself, runs 4 and 5 came later
    assert suite.runs[-1].current and suite.verdicts["a"] == ["pass", "fail", "fail"]


def test_the_report_own_figures_are_the_ones_recording_keeps(conn):
    head = report(case("a", "pass", "fail"), case("b", "pass"), run_id="same")
    own = report_past(conn, head).suites["qa"].runs[-1]
    record(conn, head, branch="main")
    stored = conn.execute("SELECT cases, passed, cost_usd, latency_median FROM suite_runs").fetchone()
    assert (own.cases, own.passed, own.cost_usd, own.latency_median) == stored


def test_an_empty_history_gives_the_report_own_run_alone(conn):
    past = report_past(conn, report(case("a", "pass")))
    assert len(past.suites["qa"].runs) == 1 and past.suites["qa"].verdicts == {"a": ["pass"]}
    assert past.flaky == {}


def test_flaky_cases_of_the_branch_are_named(conn):
    _record_runs(conn, ["pass", "fail", "pass", "fail"])
    past = report_past(conn, report(case("a", "pass"), case("b", "pass")))
    assert list(past.flaky) == [("qa", "a")] and past.flaky[("qa", "a")].label == "flaky on main (2 of 4)"


def test_the_front_door_refuses_a_missing_history_in_one_line(tmp_path):
    with pytest.raises(UsageError, match="no history at"):
        read_report_past(tmp_path / "none.sqlite", report(case("a", "pass")))
