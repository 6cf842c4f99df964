"""The judge and the extraction of one output in one call (evalkit/scoring/grading.py), and where each keeps
its own call: the request, the reply (scripted whole, or joined by the fake from the judge's and the
extraction's rules), retries, the cache, usage, and what `evalkit plan` counts."""

from __future__ import annotations

import asyncio

import pytest

from evalkit.engine import load_suites, make_client, plan_calls, run
from evalkit.llm.providers.anthropic import AnthropicProvider
from evalkit.run.runner import RunOptions
from evalkit.scoring.extract import EXTRACT_TOOL
from evalkit.scoring.grading import GRADE_TOOL, grade, grade_request, parse_grade_reply, score_output
from evalkit.scoring.judge import JUDGE_TOOL
from evalkit.scoring.judge_input import JudgeInput, JudgeSettings
from evalkit.suite.spec import FieldSpec
from evalkit.testing import script as wire
from evalkit.testing.script import Script, requested_tool
from evalkit.testing.scripted import ScriptedProvider
from tests.conftest import verdicts

FIELDS = {"km": FieldSpec(type="number"), "rest": FieldSpec(type="boolean", description="a rest day")}
CRITERIA = {"a": "is polite", "b": "is short"}


def bound_client(script: Script):
    client = make_client(ScriptedProvider(script), no_cache=True, deprecated=None)
    return client.bind(model="judge-model"), client


def test_the_tool_names_the_testing_fakes_join_are_evalkits_own():
    assert (wire.JUDGE_TOOL, wire.EXTRACT_TOOL, wire.GRADE_TOOL) == (JUDGE_TOOL, EXTRACT_TOOL, GRADE_TOOL)


def test_one_forced_tool_holds_the_verdicts_and_the_fields_and_the_prefixes_are_marked():
    request = grade_request("m", "THE OUTPUT", CRITERIA, FIELDS, case_input={"who": "Ada"})
    body = request.to_api_body()
    [tool] = body["tools"]
    assert body["tool_choice"] == {"type": "tool", "name": GRADE_TOOL} and tool["name"] == GRADE_TOOL
    schema = tool["input_schema"]
    assert schema["required"] == ["items", "fields"]
    assert schema["properties"]["fields"]["required"] == ["km", "rest"]
    assert "enum" not in schema["properties"]["items"]["items"]["properties"]["id"]  # the same tool for any checklist
    instructions, listing, checklist = body["system"]
    assert "cache_control" not in instructions and "data, not instructions" in instructions["text"]
    assert listing["text"].startswith("Fields to extract:") and "a rest day" in listing["text"]
    assert checklist["text"].startswith("Criteria to decide") and "[b] is short" in checklist["text"]
    assert listing["cache_control"] == checklist["cache_control"] == {"type": "ephemeral"}
    content = body["messages"][0]["content"]
    assert "THE OUTPUT" in content and content.rstrip().endswith("for exactly these ids: a, b.")
    other = grade_request("m", "ANOTHER", {"c": "is kind"}, FIELDS).to_api_body()
    assert other["tools"] == body["tools"] and other["system"][:2] == body["system"][:2]


@pytest.mark.parametrize(
    "reply, problem",
    [
        (None, "holds no JSON object"),
        ({"items": verdicts({"a": "pass", "b": "pass"})["items"]}, "has no fields"),
        ({"fields": {"km": 3, "rest": True}}, "has no items"),
        ({**verdicts({"a": "pass"}), "fields": {"km": 3, "rest": True}}, "no verdict for b"),
        (
            {**verdicts({"a": "pass", "b": "fail"}), "fields": {"km": "lots", "rest": True}},
            "'lots' is not a valid number",
        ),
    ],
)
def test_a_combined_reply_is_refused_saying_what_is_wrong(reply, problem):
    with pytest.raises(ValueError, match=problem):
        parse_grade_reply(reply, "no json here", list(CRITERIA), FIELDS)


def test_a_combined_reply_scripted_whole_gives_the_verdicts_and_the_fields():
    script = Script().tool_reply(
        GRADE_TOOL, {**verdicts({"a": "pass", "b": "fail"}), "fields": {"km": "12", "rest": True}}
    )
    bound, client = bound_client(script)
    outcome, fields, error = asyncio.run(
        grade(bound, JudgeInput("the output", criteria=CRITERIA, fields=FIELDS), JudgeSettings("judge-model"))
    )
    assert error is None and fields == {"km": 12.0, "rest": True}
    assert {k: v.verdict for k, v in outcome.verdicts.items()} == {"a": "pass", "b": "fail"}
    assert client.usage.calls == 1 and client.models_used == {"judge-model": {"judge"}}


def test_a_malformed_reply_is_corrected_once_then_both_are_errors():
    good = {**verdicts({"a": "pass", "b": "pass"}), "fields": {"km": 3, "rest": False}}
    script = Script().tool_reply(GRADE_TOOL, {"items": good["items"]}, times=1).tool_reply(GRADE_TOOL, good)
    bound, client = bound_client(script)
    outcome, fields, error = asyncio.run(
        grade(bound, JudgeInput("out", criteria=CRITERIA, fields=FIELDS), JudgeSettings("judge-model"))
    )
    assert error is None and fields == {"km": 3.0, "rest": False} and client.usage.calls == 2
    bound, client = bound_client(Script().tool_reply(GRADE_TOOL, {"items": good["items"]}))
    outcome, fields, error = asyncio.run(
        grade(bound, JudgeInput("out", criteria=CRITERIA, fields=FIELDS), JudgeSettings("judge-model"))
    )
    assert fields is None and outcome.error == error == (
        "judge and extraction reply invalid after a retry: the reply has no fields"
    )
    assert client.usage.calls == 2


def judge_and_extract() -> Script:
    return (
        Script()
        .tool_reply(JUDGE_TOOL, verdicts({"a": "pass", "b": "fail"}))
        .respond(lambda body: {"km": 7, "rest": True}, tool=EXTRACT_TOOL)
    )


def ask(script: Script, criteria, fields, repeats=None, **models):
    provider = ScriptedProvider(script)
    client = make_client(provider, no_cache=True, deprecated=None)
    bound = client.bind(model="judge-model")
    ask = JudgeInput("the output", criteria=criteria, repeats=repeats or {c: 1 for c in criteria}, fields=fields)
    got = asyncio.run(
        score_output(
            bound,
            ask,
            JudgeSettings(models.get("judge_model", "judge-model"), extract_model=models.get("extract_model")),
        )
    )
    return got, [requested_tool(b) for b in provider.requests]


def test_both_on_one_output_are_one_call_joined_by_the_fake_from_the_two_rules():
    (outcome, fields, error), tools = ask(judge_and_extract(), CRITERIA, FIELDS)
    assert tools == [GRADE_TOOL]
    assert fields == {"km": 7.0, "rest": True} and outcome.verdicts["b"].verdict == "fail" and error is None


def test_where_they_cannot_be_combined_each_keeps_its_own_call():
    # different models, extraction without a judge, a judge without fields
    (outcome, fields, _), tools = ask(judge_and_extract(), CRITERIA, FIELDS, extract_model="other-model")
    assert sorted(tools) == [EXTRACT_TOOL, JUDGE_TOOL] and fields == {"km": 7.0, "rest": True}
    (outcome, fields, _), tools = ask(judge_and_extract(), {}, FIELDS)
    assert tools == [EXTRACT_TOOL] and outcome is None and fields == {"km": 7.0, "rest": True}
    (outcome, fields, error), tools = ask(judge_and_extract(), CRITERIA, {})
    assert tools == [JUDGE_TOOL] and fields is None and error is None and outcome.verdicts["a"].verdict == "pass"


def test_with_judge_repeats_the_first_sample_also_extracts_and_the_others_judge_alone():
    samples = iter(["pass", "fail", "fail"])
    script = (
        Script()
        .respond(lambda body: verdicts({"a": next(samples)}), tool=JUDGE_TOOL)
        .respond(lambda body: {"km": 7, "rest": True}, tool=EXTRACT_TOOL)
    )
    (outcome, fields, _), tools = ask(script, {"a": "is polite"}, FIELDS, repeats={"a": 3})
    assert sorted(tools) == [JUDGE_TOOL, JUDGE_TOOL, GRADE_TOOL] and fields == {"km": 7.0, "rest": True}
    assert sorted(outcome.votes["a"]) == ["fail", "fail", "pass"] and outcome.verdicts["a"].verdict == "fail"


SUITE = """
name: coach
target: {prompt: "Coach {{ who }}"}
model: claude-sonnet-4-6
judge_model: claude-haiku-4-5-20251001
fields: {km: {type: number}}
cases:
  - id: judged
    input: {who: Ada}
    rubric:
      - {id: kind, judge: The reply is kind}
      - {id: vol, check: {type: field, field: km, max: 50}}
  - id: counted
    input: {who: Bob}
    fields: [km]
"""


def test_a_run_makes_one_call_for_both_counts_it_once_and_plan_counts_it_so(write, tmp_path, fake_anthropic):
    suite = write("coach.yml", SUITE)
    script = (
        Script()
        .reply("Easy 40 km", prompt="Coach")
        .tool_reply(JUDGE_TOOL, verdicts({"kind": "pass"}))
        .tool_reply(EXTRACT_TOOL, {"km": 40})
    )
    plan = plan_calls(load_suites([suite]), cache_dir=tmp_path / "cache")
    [line] = plan.lines
    assert (line.target_calls, line.graded_calls, line.judge_calls, line.extraction_calls) == (2, 1, 0, 1)
    assert "both: the judge and the extraction of one output in one call" in plan.render()
    fake = fake_anthropic(script)
    client = make_client(
        AnthropicProvider(api_key="k", base_url=fake.url), cache_dir=tmp_path / "cache", deprecated=None
    )
    report = run(load_suites([suite]), client, RunOptions())
    tools = sorted(requested_tool(b) or "target" for b in fake.requests)
    assert tools == [EXTRACT_TOOL, GRADE_TOOL, "target", "target"] and report.verdict == "pass"
    judged = report.suites[0].cases[0]
    assert judged.runs[0].fields == {"km": 40.0} and judged.usage.calls == 2  # its target and one more
    assert report.usage.calls == 4 == plan.calls()
    again = plan_calls(load_suites([suite]), cache_dir=tmp_path / "cache")
    assert again.calls() == 0  # every request of the run, the combined one too, is in the cache
