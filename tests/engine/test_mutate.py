"""`evalkit mutate`: a check with a gap lets its mutants survive at the right line, a tight one kills
them all, a mutant that hangs is killed by the timeout, `--min-score` gates the exit code, a gold
output rewritten to break a judged item is killed by the item's code witness or, with `--judge`, by
the judge, and the bundled suites are measured on a small sample."""

from __future__ import annotations

import json
import sys

import pytest
from click.testing import CliRunner

from evalkit.cli.commands import main
from evalkit.engine.gold_rewrites import break_output, key_terms
from evalkit.testing.script import Script

SUITE = """
name: {name}
plugins: [{package}.checks]
cases:
  - id: greet
    input: say hello
    checks: [{{type: {check}}}]
gold:
  - {{case: greet, output: "Hello there, friend.", labels: {{check1:{check}: pass}}}}
  - {{case: greet, output: "Goodbye.", labels: {{check1:{check}: fail}}}}
"""

HEAD = """from typing import ClassVar

from evalkit import Check, CheckContext, Outcome, register_check


@register_check
class Greets(Check):
    type: ClassVar[str] = "{check}"

    def evaluate(self, ctx: CheckContext) -> Outcome:
        text = str(ctx.output)
"""

# No gold output is long: the length rule is never exercised, so its mutants survive (lines 12-13).
GAP = (
    HEAD
    + """        if len(text) > 80:
            return Outcome(False, "too long")
        return Outcome("hello" in text.lower(), "greets")
"""
)
TIGHT = (
    HEAD
    + """        return Outcome("hello" in text.lower(), "greets")
"""
)
# `i += 1` made `i -= 1` never ends (line 14).
LOOP = (
    HEAD
    + """        i = 0
        while i < 3:
            i += 1
        return Outcome("hello" in text.lower(), "greets")
"""
)


def _suite(write, package: str, code: str) -> str:
    write(f"{package}/{package}/__init__.py", "")
    write(f"{package}/{package}/checks.py", code.format(check=package))
    return str(write(f"{package}/suite.yml", SUITE.format(name=package, package=package, check=package)))


@pytest.fixture(autouse=True)
def _forget(monkeypatch):
    monkeypatch.setattr(sys, "path", list(sys.path))  # each suite's folder goes on it while it loads


def mutate(*args: str, env: dict[str, str] | None = None):
    return CliRunner().invoke(main, ["mutate", *args], env=env, catch_exceptions=False)


def test_a_check_that_never_looks_at_long_outputs_lets_its_length_mutants_survive_at_that_line(write):
    result = mutate(_suite(write, "gapcheck", GAP))
    assert result.exit_code == 0, result.output  # report only
    survived = [line for line in result.output.splitlines() if line.startswith("SURVIVED")]
    assert "SURVIVED gapcheck/checks.py:12 compare len(text) > 80 → len(text) >= 80 (in Greets.evaluate)" in survived
    assert {line.split()[1] for line in survived} == {"gapcheck/checks.py:12", "gapcheck/checks.py:13"}
    killed, measured = map(int, result.output.split()[0].split("/"))
    assert killed < measured and result.output.startswith(f"{killed}/{measured} mutants killed (")


def test_no_mutant_reaches_the_files_or_the_parent_process(write):
    from evalkit.engine import load_suites
    from evalkit.engine.mutate import mutate as measure
    from evalkit.engine.selftest import selftest

    path = _suite(write, "leakcheck", GAP)
    before = open(path.replace("suite.yml", "leakcheck/checks.py")).read()
    report = measure(load_suites([path]))
    assert report.killed and any(r.status == "survived" for r in report.results)
    assert open(path.replace("suite.yml", "leakcheck/checks.py")).read() == before
    checks = sys.modules["leakcheck.checks"]
    assert "if len(text) > 80:" in open(checks.__file__).read()
    assert all(selftest(s).ok for s in load_suites([path]))  # the parent's check still tells pass from fail


def test_a_tight_check_kills_every_mutant_and_passes_the_gate(write):
    result = mutate(_suite(write, "tightcheck", TIGHT), "--min-score", "1", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["score"] == 1.0 and data["decided"] >= 1
    assert all(m["status"] == "killed" for m in data["mutants"])
    assert {m["by"].split(":")[0] for m in data["mutants"]} == {"selftest", "killed by a crash"}  # swapped arguments


def test_min_score_fails_the_gate_when_survivors_bring_the_score_under_it(write):
    result = mutate(_suite(write, "gatecheck", GAP), "--min-score", "0.99")
    assert result.exit_code == 1 and "SURVIVED" in result.output


def test_a_mutant_that_hangs_is_killed_by_the_timeout(write):
    result = mutate(_suite(write, "loopcheck", LOOP), "--timeout", "3", "--json")
    data = json.loads(result.output)
    [hang] = [m for m in data["mutants"] if m["change"].startswith("arith i += 1 → i -= 1")]
    assert hang["where"].endswith("loopcheck/checks.py:14")
    assert hang["status"] == "killed" and hang["by"] == "killed by the timeout: no verdict within 3 s"


def test_a_suite_whose_selftest_fails_unmutated_measures_nothing(write):
    path = _suite(write, "brokencheck", TIGHT)
    write("brokencheck/suite.yml", open(path).read().replace("check1:brokencheck: fail", "check1:brokencheck: pass"))
    result = CliRunner().invoke(main, ["mutate", path])
    assert result.exit_code == 2 and "selftest fails with no mutant in place" in result.output


JUDGED = """
name: judged
cases:
  - id: c
    input: plan my week
    rubric:
      - {id: greets, check: {type: contains, value: hello}, judge: The reply greets the runner with hello}
      - {id: rest, judge: The reply gives Monday as a rest day}
gold:
  - case: c
    output: "Hello runner. Monday is a rest day. Tuesday: 5 km easy."
    labels: {greets: pass, rest: pass}
"""


def test_rewrites_remove_the_sentences_that_name_the_items_key_terms():
    assert key_terms("The reply gives a rest day") == []  # no word of five letters but common ones
    assert key_terms("MUST flag the injury risk of the load spike") == ["injur", "spike"]
    assert break_output("Easy week. Your injuries need rest.\nNo spikes!", "flag the injury spike") == (
        "Easy week.",
        ["injur", "spike"],
    )
    assert break_output("Easy week.", "flag the injury spike") is None


def test_a_gold_rewrite_is_killed_by_the_code_witness_and_a_judge_only_item_waits_for_the_judge(write):
    path = write("judged.yml", JUDGED)
    data = json.loads(mutate(str(path), "--json").output)
    by_item = {m["change"].split("item ")[1].split(":")[0]: m for m in data["mutants"]}
    assert by_item["greets"]["status"] == "killed" and by_item["greets"]["by"].startswith("code witness: fail")
    assert by_item["rest"]["status"] == "needs a judge"
    text = mutate(str(path)).output
    assert "1 gold rewrite needs a judge (the judge alone decides the item): run with --judge" in text


def test_with_judge_the_model_decides_the_rewrites_only_it_can(write, fake_anthropic, anthropic_env):
    path = write("judged.yml", JUDGED)

    def judge(body):
        said = json.dumps(body["messages"])
        return {
            "items": [
                {"id": "rest", "reason": "scripted", "verdict": "pass" if "Monday is a rest day" in said else "fail"}
            ]
        }

    fake = fake_anthropic(Script().respond(judge, tool="record_verdicts"))
    env = anthropic_env(fake)
    data = json.loads(mutate(str(path), "--json", "--judge", "--judge-model", "claude-haiku-5-5", env=env).output)
    [rest] = [m for m in data["mutants"] if "item rest" in m["change"]]
    assert rest["status"] == "killed" and rest["by"].startswith("judge: fail")


@pytest.mark.parametrize(("suite", "sample"), [("suites/help_agents", 2), ("suites/pace_ai", 4)])
def test_the_bundled_suites_print_a_score_on_a_small_sample(suite, sample):
    result = mutate(suite, "--sample", str(sample))
    assert result.exit_code == 0, result.output
    assert " mutants killed (" in result.output.splitlines()[0]
