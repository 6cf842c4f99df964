"""`evalkit selftest`, two-witness items and item weights."""

from __future__ import annotations

import textwrap

import pytest
from click.testing import CliRunner

from evalkit.cli.commands import main
from evalkit.engine import load_suites, make_client, run
from evalkit.engine.selftest import selftest
from evalkit.run.runner import RunOptions
from evalkit.suite import load_suite
from evalkit.testing.script import Script
from evalkit.testing.scripted import ScriptedProvider
from tests.conftest import verdicts

pytest_plugins = ["pytester"]

SUITE = """
name: coach
target: st_coach:reply
fields:
  risk: {type: boolean}
cases:
  - id: hot
    input: {acwr: 1.6}
    checks: [{type: contains, value: run}]
    rubric: &rubric
      - id: flags
        critical: true
        check: {type: field, field: risk, equals: true}
        judge: The reply flags injury risk
        when: "facts.acwr > 1.5"
      - id: short
        check: {type: length, max: 40}
        weight: 3
      - {id: kind, judge: The reply is kind}
  - {id: cool, input: {acwr: 1.1}, checks: [{type: contains, value: run}], rubric: *rubric}
gold:
  - case: hot
    output: Easy run today; your load is high.
    fields: {risk: true}
    facts: {acwr: 1.6}
    labels: {contains: pass, flags: pass, short: pass, kind: pass}
  - case: hot
    output: Race hard this weekend and run fast, no rest needed at all.
    fields: {risk: false}
    facts: {acwr: 1.6}
    labels: {contains: fail, flags: fail, short: fail, kind: fail}
    note: mentions a run, but a race is the wrong advice (contains cannot tell)
  - case: cool
    output: Easy run.
    fields: {risk: false}
    facts: {acwr: 1.1}
    labels: {flags: n/a}
"""

# The suite's target: facts computed by its "tools" (here: read from the input).
COACH = """
from evalkit.run.targets import TargetResult

def reply(input, llm):
    return TargetResult(output=llm.complete("coach me"), facts={"acwr": input["acwr"]})
"""


@pytest.fixture
def suite_file(write):
    """The suite above and its target module beside it."""
    write("st_coach.py", COACH)
    return lambda text=SUITE: write("s.yml", text)


def test_labels_the_code_contradicts_are_named_with_label_verdict_and_reason(suite_file):
    result = selftest(load_suite(suite_file()))
    assert [(d.item_id, d.label, d.verdict) for d in result.disagreements] == [("check1:contains", "fail", "pass")]
    d = result.disagreements[0]
    assert d.describe() == "s.yml:26 case hot: check1:contains labelled fail, code says pass: contains 'run'"
    assert result.compared == 7 and result.judge_labels == 2 and result.problems == []
    assert result.summary() == (
        "coach: code-decided items agree with 6/7 gold labels (3 gold outputs; facts "
        "recomputed by the target for 3, extraction replayed for 3 (0 recorded replies, "
        "3 read from `fields:`)); judge items: not measured (run `evalkit calibrate`)"
    )


def test_selftest_command_exits_1_on_a_disagreement_and_0_when_all_agree(suite_file):
    path = suite_file()
    result = CliRunner().invoke(main, ["selftest", str(path)])
    assert result.exit_code == 1
    assert "DISAGREE s.yml:26 case hot: check1:contains labelled fail" in result.output
    path.write_text(path.read_text().replace("labels: {contains: fail,", "labels: {contains: pass,"))
    result = CliRunner().invoke(main, ["selftest", str(path)])
    assert result.exit_code == 0, result.output
    assert "agree with 7/7 gold labels" in result.output


def test_two_gold_entries_recording_different_fields_for_one_output_are_a_conflict(suite_file):
    # Extraction reads only the output: the same text cannot state a risk in one entry and none in another.
    same = SUITE.replace(
        "output: Easy run.\n    fields: {risk: false}",
        "output: Easy run today; your load is high.\n    fields: {risk: false}",
    )
    path = suite_file(same.replace("labels: {contains: fail,", "labels: {contains: pass,"))
    result = selftest(load_suite(path))
    assert not result.disagreements and not result.ok
    assert [c.describe() for c in result.conflicts] == [
        "s.yml:21 case hot and s.yml:32 case cool: the same output, but risk is True in one and False in the other"
    ]
    out = CliRunner().invoke(main, ["selftest", str(path)])
    assert out.exit_code == 1 and "CONFLICT s.yml:21 case hot and s.yml:32 case cool" in out.output
    path.write_text(
        path.read_text().replace(
            "fields: {risk: false}\n    facts: {acwr: 1.1}", "fields: {risk: true}\n    facts: {acwr: 1.1}"
        )
    )
    assert CliRunner().invoke(main, ["selftest", str(path)]).exit_code == 0


def test_a_field_marked_misread_is_no_conflict_and_misread_names_a_recorded_field(suite_file):
    same = SUITE.replace(
        "output: Easy run.\n    fields: {risk: false}",
        "output: Easy run today; your load is high.\n    fields: {risk: false}\n    misread: [risk]",
    )
    assert selftest(load_suite(suite_file(same))).conflicts == []
    bad = suite_file(same.replace("misread: [risk]", "misread: [km]"))
    out = CliRunner().invoke(main, ["selftest", str(bad)])
    assert out.exit_code == 2 and "gold: misread names 'km', not a field this entry records" in out.output


def test_selftest_command_reports_file_problems_with_exit_2(suite_file):
    path = suite_file(SUITE.replace("case: cool\n    output: Easy run.", "case: cold\n    output: Easy run."))
    result = CliRunner().invoke(main, ["selftest", str(path)])
    assert result.exit_code == 2 and "gold: no case 'cold'" in result.output


def test_the_bundled_help_agents_gold_outputs_agree_with_their_checks():
    from pathlib import Path

    suites = load_suites([Path(__file__).parents[2] / "suites" / "help_agents"])
    for suite in suites:
        result = selftest(suite)
        assert result.ok, [d.describe() for d in result.disagreements]
        # at least one good and one bad output for every check type the suite uses
        types = {it.id.split(":", 1)[1] for c in suite.cases for it in c.items if it.required}
        for t in types:
            labels = {label for g in suite.gold for item_id, label in g.labels.items() if item_id.endswith(":" + t)}
            assert {"pass", "fail"} <= labels, (suite.name, t, labels)


@pytest.mark.parametrize(
    "risk, judged, status",
    [(True, "pass", "pass"), (False, "pass", "fail"), (True, "fail", "fail"), (False, "fail", "fail")],
)
def test_a_critical_item_with_two_witnesses_fails_when_either_fails(suite_file, risk, judged, status):
    suite = suite_file(SUITE.split("gold:")[0])
    script = (
        Script()
        .reply("An easy run; rest if sore.")
        .tool_reply("record_verdicts", verdicts({"flags": judged, "kind": "pass"}))
        .tool_reply("record_fields", {"risk": risk})
    )
    client = make_client(ScriptedProvider(script), no_cache=True, deprecated=None)
    report = run(load_suites([suite]), client, RunOptions(cases=["hot"]))
    case = report.suites[0].cases[0]
    flags = next(i for i in case.runs[0].items if i.id == "flags")
    assert flags.status == status and flags.decided_by == "code+judge"
    assert flags.reason.startswith("code: risk = ") and " · judge: because flags" in flags.reason
    assert (case.critical_failures == ["flags"]) == (status == "fail")
    assert case.verdict == status
    # weights: short (3) passes, kind (1) passes, flags (1) as decided
    assert case.rubric_pass_rate == pytest.approx((4 + (status == "pass")) / 5)


def test_gold_outputs_are_ordinary_pytest_items_that_fail_on_a_disagreement(pytester):
    pytester.path.joinpath("coach.suite.yml").write_text(textwrap.dedent(SUITE).lstrip())
    pytester.path.joinpath("st_coach.py").write_text(COACH)
    result = pytester.runpytest("-v", "-p", "no:xdist")
    result.stdout.fnmatch_lines(
        [
            "*coach.suite.yml::gold[[]coach.suite.yml:21[]] PASSED*",
            "*coach.suite.yml::gold[[]coach.suite.yml:26[]] FAILED*",
            "*coach.suite.yml::gold[[]coach.suite.yml:32[]] PASSED*",
            "*check1:contains labelled fail, code says pass*",
        ]
    )
    result.assert_outcomes(passed=2, failed=1, deselected=2)  # the eval cases are not asked for
    # naming the file asks for its evals (skipped without a key) and keeps its gold checks
    pytester.runpytest("coach.suite.yml", "-p", "no:xdist").assert_outcomes(passed=2, failed=1, skipped=2)


def test_a_gold_entry_s_trace_reaches_the_trajectory_checks(write):
    path = write(
        "agent.yml",
        """
        name: agent
        cases:
          - id: c
            input: {q: weather}
            checks: [{type: tool_called, name: get_weather}]
        gold:
          - case: c
            output: Sunny.
            trace:
              - {type: tool_call, name: get_weather, arguments: {city: Oslo}, result: {sky: sunny}}
            labels: {tool_called: pass}
          - case: c
            output: Sunny, I guess.
            labels: {tool_called: fail}
          - case: c
            output: Sunny.
            trace: [{type: tool_call, arguments: {}}]
            labels: {tool_called: pass}
        """,
    )
    out = CliRunner().invoke(main, ["selftest", str(path)])
    assert out.exit_code == 2 and "gold: step 1 of the trace" in out.output
    path.write_text(path.read_text().replace("trace: [{type: tool_call, arguments: {}}]", "trace: []"))
    result = selftest(load_suite(path))
    # an empty trace records no call: the third entry's label (pass) is contradicted
    assert [(d.gold.line, d.verdict) for d in result.disagreements] == [(15, "fail")] and result.compared == 3
