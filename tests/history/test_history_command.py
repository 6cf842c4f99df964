"""`evalkit history`: record, list with trends and flaky cases, one case over time; every mistake a
one-line error (exit 2), never a traceback."""

from __future__ import annotations

import sqlite3

import pytest
from click.testing import CliRunner

from evalkit.cli.commands import main
from tests.history.conftest import case, report


def evalkit(*args: object, cwd=None):
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


def test_record_list_and_one_case(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for n, status in enumerate(["pass", "fail", "pass", "fail"]):
        report(case("a", status), case("b", "pass"), run_id=f"r{n}").save(f"run{n}.json")
        done = evalkit("history", "record", f"run{n}.json", "--branch", "main")
        assert done.exit_code == 0, done.output
        assert f"as run #{n + 1} of .evalkit/history.sqlite (1 suites, 2 cases)" in done.output
    listed = evalkit("history")
    assert listed.exit_code == 0, listed.output
    assert "#4 " in listed.output and "#1 " in listed.output
    assert "qa: pass rate" in listed.output and "█▅█▅ 100% → 50% over 4 runs" in listed.output
    assert "qa/a: flaky on main (2 of 4), flip rate 100%; items tone" in listed.output
    one = evalkit("history", "case", "a")
    assert one.exit_code == 0, one.output
    assert one.output.splitlines()[0] == "a: █▁█▁ (4 runs, oldest first)"
    assert "❌ fail  0/1 runs passed  failed: tone" in one.output


@pytest.mark.parametrize(
    "args, message",
    [
        (["history", "--history", "{tmp}/none.sqlite"], "no history at"),
        (["history", "--history", "{tmp}/text.sqlite"], "it is not an SQLite database"),
        (["history", "--history", "{tmp}/other.db"], "an SQLite database of something else"),
        (["history", "--history", "{tmp}"], "is a folder, not a history file"),
        (["history", "record", "{tmp}/text.sqlite", "--history", "{tmp}/h.sqlite"], "is not an evalkit results file"),
        (["history", "case", "zz", "--history", "{tmp}/h.sqlite"], "no case 'zz' in the history"),
    ],
)
def test_mistakes_are_one_line(tmp_path, args, message):
    (tmp_path / "text.sqlite").write_text("not a database\n")
    other = sqlite3.connect(tmp_path / "other.db")
    other.execute("CREATE TABLE t (x)")
    other.commit()
    report(case("a", "pass")).save(tmp_path / "run.json")
    assert (
        evalkit(
            "history", "record", tmp_path / "run.json", "--history", tmp_path / "h.sqlite", "--branch", "main"
        ).exit_code
        == 0
    )
    done = evalkit(*[a.format(tmp=tmp_path) for a in args])
    assert done.exit_code == 2, done.output
    assert message in done.output
    assert len(done.output.strip().splitlines()) == 1 and "Traceback" not in done.output
