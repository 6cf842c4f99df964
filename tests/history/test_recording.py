"""Recording a run: all of it or nothing, once per run, two writers at once serialised, and a writer
killed halfway leaves the history as it was; in an SQLite file and in a PostgreSQL database
(`history_at`, tests/history/conftest.py)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest

from evalkit.errors import UsageError
from evalkit.history.access import record_file
from evalkit.history.connection import HistoryConflict
from evalkit.history.database import open_history
from evalkit.history.queries import case_outcomes, runs
from evalkit.history.recording import record
from tests.history.conftest import case, report

REPO = Path(__file__).resolve().parents[2]


def test_a_run_is_recorded_with_its_suites_cases_and_items(history_at):
    conn = open_history(history_at, create=True)
    done = record(conn, report(case("a", "pass", "fail"), case("b", "pass"), commit="abc"), branch="main")
    assert (done.number, done.suites, done.cases, done.already) == (1, 1, 2, False)
    [row] = runs(conn)
    assert (row.branch, row.commit, row.cases, row.passed, row.verdict) == ("main", "abc", 2, 1, "fail")
    [outcome] = case_outcomes(conn, "a")
    assert (outcome.verdict, outcome.runs, outcome.passed_runs, outcome.failed_items) == ("fail", 2, 1, ["tone"])


def test_the_same_run_recorded_twice_is_one_run(history_at):
    conn = open_history(history_at, create=True)
    run = report(case("a", "pass"), run_id="r-1")
    record(conn, run, branch="main")
    assert record(conn, run, branch="main").already
    assert len(runs(conn)) == 1


def test_a_run_that_fails_halfway_leaves_nothing(history_at):
    conn = open_history(history_at, create=True)
    record(conn, report(case("a", "pass")), branch="main")
    broken = report(case("a", "pass"), case("b", "pass"), case("a", "fail"))  # case a twice: the 3rd insert fails
    with pytest.raises(HistoryConflict, match="(?i)unique"):
        record(conn, broken, branch="main")
    assert len(runs(conn)) == 1
    assert conn.execute("SELECT COUNT(*) FROM case_runs").fetchone() == (1,)
    assert conn.execute("SELECT COUNT(*) FROM item_runs").fetchone() == (1,)
    assert record(conn, report(case("b", "pass")), branch="main").number == 2  # no number was used up


def test_the_front_door_says_so_in_one_line_and_writes_nothing(tmp_path, history_at):
    results = tmp_path / "results.json"
    report(case("a", "pass"), case("a", "fail")).save(results)
    with pytest.raises(UsageError, match="nothing was written"):
        record_file(results, history_at, branch="main")
    assert runs(open_history(history_at)) == []


@pytest.mark.parametrize(
    "change, message",
    [({"partial": True}, "stopped before every case finished"), ({"shard": "1/2"}, "shard 1/2 of a run")],
)
def test_a_stopped_run_or_a_shard_is_refused(tmp_path, change, message):
    results = tmp_path / "results.json"
    report(case("a", "pass")).model_copy(update=change).save(results)
    with pytest.raises(UsageError, match=message):
        record_file(results, tmp_path / "h.sqlite", branch="main")
    assert not (tmp_path / "h.sqlite").exists()


def test_two_writers_at_once_are_serialised(tmp_path):
    path = tmp_path / "h.sqlite"
    open_history(path, create=True).close()
    errors: list[BaseException] = []
    start = threading.Barrier(4)

    def writer(n: int) -> None:
        conn = open_history(path)  # a connection of its own, as another process would have
        try:
            start.wait()
            for i in range(10):
                record(conn, report(*(case(f"c{k}", "pass") for k in range(20)), run_id=f"w{n}-{i}"), branch="main")
        except BaseException as exc:  # noqa: BLE001 - handed to the test
            errors.append(exc)
        finally:
            conn.close()

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert errors == []
    conn = open_history(path)
    assert conn.execute("SELECT COUNT(*) FROM runs").fetchone() == (40,)
    assert conn.execute("SELECT COUNT(*) FROM case_runs").fetchone() == (800,)


WRITER = """
import sys
from evalkit.history.database import open_history
from evalkit.history.recording import record
from tests.history.conftest import case, report

sys.stdin.readline()  # every writer starts at once, on a history none has made yet
conn = open_history(sys.argv[1], create=True)
for i in range(10):
    record(conn, report(*(case(f"c{k}", "pass") for k in range(20)), run_id=f"{sys.argv[2]}-{i}"), branch="main")
print("done", flush=True)
"""


def test_two_writer_processes_at_once_are_serialised(tmp_path, history_at):
    script = tmp_path / "writer.py"
    script.write_text(textwrap.dedent(WRITER))
    writers = [
        subprocess.Popen(
            [sys.executable, str(script), history_at, f"w{n}"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            cwd=REPO,
            env={**os.environ, "PYTHONPATH": str(REPO)},
        )
        for n in range(2)
    ]
    try:
        for w in writers:
            assert w.stdin is not None
            w.stdin.write("go\n")
            w.stdin.flush()
        for w in writers:
            assert w.stdout is not None and w.stdout.readline().strip() == "done"
            assert w.wait(120) == 0
    finally:
        for w in writers:
            w.kill()
            w.wait(30)
    conn = open_history(history_at)
    assert conn.execute("SELECT COUNT(*) FROM runs").fetchone() == (20,)
    assert conn.execute("SELECT COUNT(*) FROM case_runs").fetchone() == (400,)
    assert sorted(r.number for r in runs(conn, last=100)) == list(range(1, 21))  # one number each, no gap


KILLED_WRITER = """
import sys, time
from evalkit.history import recording
from evalkit.history.database import open_history
from evalkit.results.report import Report

real_case = recording._case
written = 0

def slow_case(*args):
    global written
    real_case(*args)
    written += 1
    if written == 3:  # halfway through the run: say so, then wait to be killed
        print("halfway", flush=True)
        time.sleep(60)

recording._case = slow_case
conn = open_history(sys.argv[1])
recording.record(conn, Report.model_validate_json(open(sys.argv[2]).read()), branch="main")
print("finished", flush=True)
"""


def _write_under_way(history_at: str) -> bool:
    """The killed writer's transaction is open: SQLite's journal is there; PostgreSQL's write lock is held."""
    if history_at.endswith(".sqlite"):
        return Path(history_at + "-journal").exists()
    conn = open_history(history_at)
    try:
        return conn.execute("SELECT COUNT(*) FROM pg_locks WHERE locktype = 'advisory' AND granted").fetchone() == (1,)
    finally:
        conn.close()


def test_a_writer_killed_halfway_leaves_the_history_consistent(tmp_path, history_at):
    path = history_at
    conn = open_history(path, create=True)
    record(conn, report(case("a", "pass")), branch="main")
    conn.close()
    results = tmp_path / "run.json"
    report(*(case(f"c{k}", "fail") for k in range(6))).save(results)
    script = tmp_path / "writer.py"
    script.write_text(textwrap.dedent(KILLED_WRITER))
    child = subprocess.Popen(
        [sys.executable, str(script), path, str(results)],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    try:
        assert child.stdout is not None
        assert child.stdout.readline().strip() == "halfway"
        assert _write_under_way(history_at)
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait(30)
    conn = open_history(path)  # SQLite rolls the killed write back now; PostgreSQL did when the connection dropped
    if conn.dialect.name == "sqlite":
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    assert [r.number for r in runs(conn)] == [1]
    assert conn.execute("SELECT COUNT(*) FROM case_runs").fetchone() == (1,)
    assert record(conn, report(case("a", "fail")), branch="main").number == 2  # and it takes the next run
