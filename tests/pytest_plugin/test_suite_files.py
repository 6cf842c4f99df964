"""Suite files collected as pytest items: one per case (per run when a case repeats), run by the engine."""

import textwrap

import pytest

from evalkit.engine import agent_client as runtime
from evalkit.testing.script import Script
from evalkit.testing.scripted import ScriptedProvider

pytest_plugins = ["pytester"]

TARGET = """
def shout(input):
    return input["text"].upper()

def messages(input):
    return ["one two three"] * input["n"]
"""

SUITE = """
target: shouting:shout
cases:
  - id: loud
    input: {text: "hello"}
    checks:
      - type: equals
        value: HELLO
  - id: wrong
    input: {text: "quiet"}
    checks:
      - type: equals
        value: nope
      - type: contains
        value: zzz
      - type: regex
        pattern: "^[a-z]+$"
  - id: judged
    input: {text: "judge me"}
    checks:
      - type: llm_judge
        criteria: The output is shouted
  - id: twice
    repeats: 2
    input: {text: "again"}
    checks:
      - type: equals
        value: AGAIN
"""


def _verdicts(body):
    import re

    ids = re.findall(r"exactly these ids: (.+?)\.\s*$", body["messages"][-1]["content"], re.M)[-1]
    return {"items": [{"id": i, "reason": "it is all capitals", "verdict": "pass"} for i in ids.split(", ")]}


@pytest.fixture
def suite_project(pytester):
    pytester.makepyfile(shouting=TARGET)
    pytester.path.joinpath("shouting.suite.yml").write_text(textwrap.dedent(SUITE))
    script = Script().respond(_verdicts, tool="record_verdicts")
    runtime.configure(provider=lambda: ScriptedProvider(script), no_cache=True)
    return pytester


def test_each_case_is_an_item_named_with_its_id(suite_project):
    result = suite_project.runpytest("shouting.suite.yml", "-v")
    result.stdout.fnmatch_lines(
        [
            "*shouting.suite.yml::loud PASSED*",
            "*shouting.suite.yml::wrong FAILED*",
            "*shouting.suite.yml::judged PASSED*",
            "*shouting.suite.yml::twice[[]run1[]] PASSED*",
            "*shouting.suite.yml::twice[[]run2[]] PASSED*",
            "*shouting.suite.yml::twice PASSED*",
        ]
    )
    result.assert_outcomes(passed=5, failed=1)


def test_every_failing_check_is_in_one_message(suite_project):
    result = suite_project.runpytest("shouting.suite.yml", "-k", "wrong")
    result.assert_outcomes(failed=1, deselected=5)
    result.stdout.fnmatch_lines(
        [
            "FAIL: case wrong: checks: 3 of 3 failed",
            "  FAIL  check1:equals*got 'QUIET', expected 'nope'",
            "  FAIL  check2:contains*missing 'zzz'",
            "  FAIL  check3:regex*no match*",
            "output:",
            "  | QUIET",
        ]
    )


def test_dash_k_selects_one_case(suite_project):
    result = suite_project.runpytest("-m", "eval", "-k", "loud", "-v")
    result.assert_outcomes(passed=1, deselected=5)


def test_suite_items_skip_without_a_key(pytester):
    pytester.makepyfile(shouting=TARGET)
    pytester.path.joinpath("shouting.suite.yml").write_text(textwrap.dedent(SUITE))
    pytester.runpytest().assert_outcomes(deselected=6)  # evals: not run by `pytest` alone
    result = pytester.runpytest("shouting.suite.yml", "-rs")
    result.assert_outcomes(skipped=6)
    result.stdout.fnmatch_lines(["*evalkit: no model key*"])


def test_a_fixture_list_on_the_command_line_takes_a_target(suite_project):
    suite_project.path.joinpath("list.yml").write_text(
        textwrap.dedent("""
        - id: from_list
          input: {text: "abc"}
          checks:
            - type: equals
              value: ABC
    """)
    )
    result = suite_project.runpytest("list.yml")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*names no target*--evalkit-target*"])
    result = suite_project.runpytest("list.yml", "--evalkit-target", "shouting:shout", "-v")
    result.assert_outcomes(passed=1)


def test_other_yaml_files_are_not_collected(suite_project):
    suite_project.path.joinpath("config.yml").write_text("not: a suite\n")
    result = suite_project.runpytest("--collect-only", "-q")
    assert "config.yml" not in result.stdout.str()


def test_a_broken_suite_file_is_a_collection_error_naming_the_line(suite_project):
    suite_project.path.joinpath("broken.suite.yml").write_text(
        "target: shouting:shout\ncases:\n  - id: x\n    checks:\n      - type: sintax\n"
    )
    result = suite_project.runpytest("broken.suite.yml")
    result.stdout.fnmatch_lines(["*line 5: case x: unknown check type 'sintax'*"])
    assert result.ret != 0


RUBRIC_SUITE = """
target: shouting:shout
thresholds: {rubric: 0.8}
inconclusive: fail                 # 2 of 4 items over two runs: an interval that straddles 80 % fails too
cases:
  - id: rated
    repeats: 2
    input: {text: "again"}
    rubric:
      - {id: loud, check: {type: equals, value: AGAIN}}
      - {id: polite, judge: "The output says please"}
"""


def test_a_run_below_the_rubric_threshold_fails_its_own_item(pytester):
    """No check or critical item fails, but the run's rubric rate (50 %) is under 80 %: the runner's
    own verdict of that run (RunResult.passed) fails it, as it fails the case."""
    pytester.makepyfile(shouting=TARGET)
    pytester.path.joinpath("rated.suite.yml").write_text(textwrap.dedent(RUBRIC_SUITE))

    def judge(body):
        import re

        ids = re.findall(r"exactly these ids: (.+?)\.\s*$", body["messages"][-1]["content"], re.M)[-1]
        return {"items": [{"id": i, "reason": "no please", "verdict": "fail"} for i in ids.split(", ")]}

    runtime.configure(provider=lambda: ScriptedProvider(Script().respond(judge, tool="record_verdicts")), no_cache=True)
    result = pytester.runpytest("rated.suite.yml", "-v")
    result.stdout.fnmatch_lines(["*rated[[]run1[]] FAILED*", "*rated[[]run2[]] FAILED*", "*::rated FAILED*"])
    result.stdout.fnmatch_lines(["*run 1 of case rated failed*", "*polite*no please*"])
    result.assert_outcomes(failed=3)
