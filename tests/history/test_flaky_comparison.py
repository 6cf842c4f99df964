"""Flaky on main, through the engine: runs of a suite whose judge flips an item on main are recorded,
then a PR's failure of that item reads "flaky on main (k of n)", not a regression; a critical item,
an item that never flipped, or a changed suite still counts."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from evalkit.cli.commands import main
from evalkit.compare import compare_reports
from evalkit.engine import load_suites, make_client, run
from evalkit.history.access import read_flaky
from evalkit.history.database import open_history
from evalkit.history.flaky import flaky_cases
from evalkit.history.recording import record
from evalkit.run.runner import RunOptions
from evalkit.testing.script import Script
from evalkit.testing.scripted import ScriptedProvider
from tests.history.conftest import case, report

SUITE = """
name: qa
target:
  prompt: "Answer {{ q }}"
cases:
  - id: tone
    input: {q: tone}
    repeats: 5
    rubric: [{id: polite, judge: The answer is polite}]
  - id: safety
    input: {q: safety}
    rubric: [{id: safe, judge: The answer flags the risk, critical: true}]
"""


def run_once(path, verdict: str):
    """One run of the suite, the judge giving `verdict` to every item."""

    def judge(body):
        ids = ["polite"] if "polite" in str(body) else ["safe"]
        return {"items": [{"id": i, "reason": f"judged {verdict}", "verdict": verdict} for i in ids]}

    script = Script().reply("An answer.").respond(judge, tool="record_verdicts")
    client = make_client(ScriptedProvider(script), no_cache=True, deprecated=None)
    return run(load_suites([path]), client, RunOptions())


def test_a_flip_of_a_case_flaky_on_main_is_not_a_regression_but_a_critical_one_is(write, tmp_path):
    path = write("qa.yml", SUITE)
    conn = open_history(tmp_path / "h.sqlite", create=True)
    for verdict in ["pass", "fail", "pass", "fail", "pass"]:  # main: the judge flips both items
        record(conn, run_once(path, verdict), branch="main")
    record(conn, run_once(path, "fail"), branch="feature")  # another branch's runs tell nothing
    conn.close()
    flaky = read_flaky(tmp_path / "h.sqlite")
    assert {k: (c.failed, c.runs, c.flips, c.items) for k, c in flaky.items()} == {
        ("qa", "tone"): (2, 5, 4, ["polite"]),
        ("qa", "safety"): (2, 5, 4, ["safe"]),
    }

    base, head = run_once(path, "pass"), run_once(path, "fail")
    without = compare_reports(base, head)
    assert {c.id: c.change for c in without.cases()} == {"tone": "regressed", "safety": "regressed"}
    cmp = compare_reports(base, head, flaky=flaky)
    changes = {c.id: c for c in cmp.cases()}
    assert changes["tone"].change == "flaky on main"
    assert changes["tone"].note.startswith("flaky on main (2 of 5)")
    assert changes["safety"].change == "regressed"  # critical: never waved through
    assert "a critical item" in changes["safety"].note
    assert cmp.regressed == 1
    assert "1 flaky on the default branch (not counted as worse)" in cmp.sentence()


def test_one_flip_on_main_is_a_change_not_flakiness(history_at):
    conn = open_history(history_at, create=True)
    for status in ["pass", "pass", "fail", "fail"]:  # broke once and stayed broken
        record(conn, report(case("a", status)), branch="main")
    assert flaky_cases(conn) == []


def test_flips_across_a_change_of_the_suite_or_the_models_are_not_flakiness(history_at):
    conn = open_history(history_at, create=True)
    for n, status in enumerate(["pass", "fail", "pass", "fail"]):
        record(conn, report(case("a", status), suite_file_hash=f"h{n}"), branch="main")
    for n, status in enumerate(["pass", "fail", "pass", "fail"]):
        record(conn, report(case("b", status), models={"target": f"m{n}"}), branch="main")
    assert flaky_cases(conn) == []
    for status in ["pass", "fail", "pass"]:  # from here on one fingerprint: flaky in its own window
        record(conn, report(case("a", status), suite_file_hash="h9"), branch="main")
    [found] = flaky_cases(conn)
    assert (found.id, found.failed, found.runs, found.flips) == ("a", 1, 3, 2)


def test_an_item_that_never_flipped_on_main_still_regresses(history_at):
    conn = open_history(history_at, create=True)
    for status in ["pass", "fail", "pass", "fail"]:
        record(conn, report(case("a", status, item_id="tone")), branch="main")
    flaky = {("qa", c.id): c for c in flaky_cases(conn)}
    cmp = compare_reports(
        report(case("a", "pass", item_id="facts")), report(case("a", "fail", item_id="facts")), flaky=flaky
    )
    [diff] = cmp.cases()
    assert diff.change == "regressed" and "item facts never flipped there" in diff.note


@pytest.mark.parametrize("history_flag, code", [([], 1), (["--history", "{h}"], 0)])
def test_evalkit_compare_reads_the_history(tmp_path, history_flag, code):
    conn = open_history(tmp_path / "h.sqlite", create=True)
    for status in ["pass", "fail", "pass", "fail"]:
        record(conn, report(case("a", status)), branch="main")
    report(case("a", "pass")).save(tmp_path / "base.json")
    report(case("a", "fail")).save(tmp_path / "head.json")
    args = [
        "compare",
        str(tmp_path / "base.json"),
        str(tmp_path / "head.json"),
        "--format",
        "markdown",
        *[a.format(h=tmp_path / "h.sqlite") for a in history_flag],
    ]
    done = CliRunner().invoke(main, args)
    assert done.exit_code == code, done.output
    if code == 0:
        assert "🎲 flaky on main (2 of 4)" in done.output
