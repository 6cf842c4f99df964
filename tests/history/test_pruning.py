"""A history kept to its newest runs: `evalkit history prune --keep N` and the Action's history
after each recording remove older runs whole (suites, cases, items), keep the numbers of the runs
kept, compact a file, and a join of copies never brings a pruned run back."""

from __future__ import annotations

from click.testing import CliRunner

from evalkit.cli.commands import main
from evalkit.history.database import open_history
from evalkit.history.flaky import flaky_cases
from evalkit.history.merge import add_missing_runs
from evalkit.history.pruning import prune
from evalkit.history.queries import case_outcomes, runs, suite_trends
from evalkit.history.recording import record
from tests.history.conftest import case, report


def _record(conn, statuses, *, first=1):
    for n, status in enumerate(statuses, start=first):
        record(
            conn,
            report(case("a", status), case("b", "pass"), run_id=f"r{n}", started_at=f"2026-01-{n:02d}T00:00:00+00:00"),
            branch="main",
        )


def test_the_newest_runs_are_kept_whole_and_keep_their_numbers(history_at):
    conn = open_history(history_at, create=True)
    try:
        _record(conn, ["pass", "fail", "pass", "fail", "pass"])
        assert prune(conn, keep=3) == 2
        assert [r.number for r in runs(conn)] == [5, 4, 3]
        assert [o.run for o in case_outcomes(conn, "a")] == [3, 4, 5]
        assert [p.number for p in suite_trends(conn)[0].points] == [3, 4, 5]
        counts = [
            conn.execute(f"SELECT COUNT(*) FROM {t} WHERE run < 3").fetchone()[0]
            for t in ("suite_runs", "case_runs", "item_runs")
        ]
        assert counts == [0, 0, 0]  # nothing of a removed run is left behind
        [flaky] = flaky_cases(conn)
        assert (flaky.runs, flaky.flips) == (3, 2)
        assert prune(conn, keep=3) == 0 and prune(conn, keep=10) == 0
        _record(conn, ["fail"], first=6)
        assert [r.number for r in runs(conn)][0] == 6  # numbering goes on after the highest
    finally:
        conn.close()


def test_a_pruned_file_is_compacted(tmp_path):
    path = tmp_path / "h.sqlite"
    conn = open_history(path, create=True)
    many = [case(f"c{i}", "pass") for i in range(200)]
    for n in range(1, 11):
        record(conn, report(*many, run_id=f"r{n}", started_at=f"2026-01-{n:02d}T00:00:00+00:00"), branch="main")
    before = path.stat().st_size
    assert prune(conn, keep=1) == 9
    conn.close()
    assert path.stat().st_size < before / 3


def test_joining_an_older_copy_does_not_bring_a_pruned_run_back(tmp_path):
    newest, older = (open_history(tmp_path / n, create=True) for n in ("newest.sqlite", "older.sqlite"))
    _record(older, ["pass", "fail", "pass", "fail"])  # the copy one push older, not pruned
    older.close()
    _record(newest, ["pass", "fail", "pass", "fail", "pass"])
    assert prune(newest, keep=3) == 2  # runs r1 and r2 go
    assert add_missing_runs(newest, tmp_path / "older.sqlite") == 0  # r1 and r2 are older than all it keeps
    assert [r.number for r in runs(newest)] == [5, 4, 3]
    newest.close()


def test_the_command_prunes_and_says_how_many(tmp_path):
    path = tmp_path / "h.sqlite"
    conn = open_history(path, create=True)
    _record(conn, ["pass", "fail", "pass"])
    conn.close()
    done = CliRunner().invoke(main, ["history", "prune", "--keep", "1", "--history", str(path)])
    assert done.exit_code == 0 and done.output == f"removed 2 runs from {path}; the newest 1 kept\n", done.output
    again = CliRunner().invoke(main, ["history", "prune", "--keep", "1", "--history", str(path)])
    assert again.exit_code == 0 and "nothing removed" in again.output
    for args, said in (
        (["--keep", "0"], "0 is not in the range"),
        (["--keep", "2", "--history", str(tmp_path / "none")], "no history at"),
    ):
        wrong = CliRunner().invoke(main, ["history", "prune", *args])
        assert wrong.exit_code == 2 and said in wrong.output, wrong.output
