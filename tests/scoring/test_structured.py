"""The judge's routes (evalkit/scoring/structured.py): a strict tool with thinking off where the judge
model takes both, `output_config.format` where it cannot turn thinking off or is not known, and
`judge_thinking`. End to end through the real anthropic client against the loopback fake, the route
read off the request bodies the fake saw; no route ever sends a sampling parameter."""

from __future__ import annotations

import asyncio
import json

import pytest
from click.testing import CliRunner

from evalkit.cli.commands import main
from evalkit.engine import anthropic_provider, load_suites, make_client, run
from evalkit.errors import SuiteError, UsageError
from evalkit.llm.capabilities import Capabilities
from evalkit.llm.providers.anthropic import AnthropicProvider
from evalkit.run.runner import RunOptions
from evalkit.scoring.extract import EXTRACT_TOOL, extract_request
from evalkit.scoring.grading import GRADE_TOOL, grade_request
from evalkit.scoring.judge import JUDGE_TOOL, judge, judge_request
from evalkit.scoring.judge_input import JudgeInput, JudgeSettings
from evalkit.scoring.structured import (
    DEFAULT_ROOM,
    FORCED,
    THINKING_ROOM,
    Route,
    choose_route,
    route_for,
    strict_schema,
)
from evalkit.suite.model import JudgeThinking
from evalkit.suite.spec import FieldSpec
from evalkit.testing.fake_anthropic import FakeAnthropicServer
from evalkit.testing.script import Script, requested_tool
from tests.conftest import verdicts

SUPPORTED = "claude-haiku-4-5-20251001"  # structured outputs in evalkit's table and in the fake's /v1/models
UNKNOWN = "claude-unlisted-1"  # in neither: the output format, thinking left to the model
CRITERIA = {"a": "is polite", "b": "is short"}
FIELDS = {"km": FieldSpec(type="number"), "days": FieldSpec(type="list", items={"day": FieldSpec(type="string")})}

SUITE = """
target: {{prompt: "Greet {{{{ who }}}}"}}
judge_model: {judge}
{extra}
cases:
  - id: ada
    input: {{who: Ada}}
    rubric:
      - {{id: polite, judge: The greeting is polite}}
"""


def _script() -> Script:
    return Script().reply("Hello Ada", prompt="Greet").tool_reply(JUDGE_TOOL, verdicts({"polite": "pass"}))


def _judged(fake: FakeAnthropicServer) -> list[dict]:
    return [b for b in fake.requests if requested_tool(b) == JUDGE_TOOL]


def _objects(schema):
    """Every object schema in `schema`."""
    if isinstance(schema, dict):
        if "properties" in schema:
            yield schema
        for value in schema.values():
            yield from _objects(value)
    elif isinstance(schema, list):
        for value in schema:
            yield from _objects(value)


def _run(write, tmp_path, fake, judge_model=SUPPORTED, extra=""):
    suite = write("s.yml", SUITE.format(judge=judge_model, extra=extra))
    client = make_client(
        AnthropicProvider(api_key="k", base_url=fake.url), cache_dir=tmp_path / "cache", deprecated=None
    )
    return run(load_suites([suite]), client, RunOptions())


def test_a_judge_model_with_structured_outputs_is_asked_through_a_strict_tool(write, tmp_path, fake_anthropic):
    """Strict tool use: valid by construction, and the tool stays where the documented prompt-cache
    order puts it (before the judge's cached system prompt)."""
    fake = fake_anthropic(_script())
    report = _run(write, tmp_path, fake)
    [body] = _judged(fake)
    assert report.verdict == "pass" and report.suites[0].cases[0].runs[0].items[0].status == "pass"
    assert "output_config" not in body and "temperature" not in body
    assert body["tool_choice"] == {"type": "tool", "name": JUDGE_TOOL} and body["thinking"] == {"type": "disabled"}
    [tool] = body["tools"]
    assert tool["strict"] is True and tool["input_schema"]["title"] == JUDGE_TOOL
    objects = list(_objects(tool["input_schema"]))
    assert len(objects) == 2 and all(
        o["additionalProperties"] is False and o["required"] == list(o["properties"]) for o in objects
    )
    assert f"Call {JUDGE_TOOL} with exactly these ids: polite." in body["messages"][0]["content"]


def test_a_judge_model_evalkit_does_not_know_is_asked_the_way_current_models_take(write, tmp_path, fake_anthropic):
    """No forced tool (a model that thinks by default refuses it), no thinking setting, and room in
    max_tokens for whatever thinking the model does."""
    fake = fake_anthropic(_script())
    report = _run(write, tmp_path, fake, judge_model=UNKNOWN)
    [body] = _judged(fake)
    assert report.verdict == "pass"
    assert "tool_choice" not in body and "tools" not in body and "thinking" not in body and "temperature" not in body
    assert body["output_config"]["format"]["schema"]["title"] == JUDGE_TOOL
    assert body["max_tokens"] == 512 + 256 + DEFAULT_ROOM
    assert "Answer with the JSON object with exactly these ids: polite." in body["messages"][0]["content"]


def test_with_a_key_the_apis_capabilities_decide_the_route(write, tmp_path, anthropic_env):
    suite = write("s.yml", SUITE.format(judge="claude-opus-4-8", extra=""))
    for supported in (True, False):
        with FakeAnthropicServer(_script()) as fake:
            fake.models = [
                {
                    "id": "claude-opus-4-8",
                    "lifecycle": "active",
                    "retires_at": None,
                    "structured_outputs": supported,
                    "thinking": True,
                }
            ]  # `disabled` taken: a forced tool
            env = anthropic_env(fake)
            client = make_client(anthropic_provider(env=env), cache_dir=tmp_path / f"cache-{supported}")
            report = run(load_suites([suite]), client, RunOptions())
            [body] = _judged(fake)
        assert report.verdict == "pass" and fake.models_requests == 1
        assert body["tools"][0].get("strict", False) is supported and "output_config" not in body


@pytest.mark.parametrize("judge_model", [SUPPORTED, UNKNOWN])
def test_a_malformed_reply_is_an_error_row_never_a_pass(write, tmp_path, judge_model, fake_anthropic):
    script = Script().reply("Hello Ada", prompt="Greet").reply("It passes, trust me.", tool=JUDGE_TOOL)
    fake = fake_anthropic(script)
    report = _run(write, tmp_path, fake, judge_model=judge_model)
    judged = _judged(fake)
    [item] = report.suites[0].cases[0].runs[0].items
    assert item.status == "error" and "judge reply invalid after a retry" in item.reason
    assert report.verdict != "pass" and len(judged) == 2  # asked once more, by the same route
    if judge_model == SUPPORTED:
        assert judged[1]["tools"][0]["strict"] is True
    else:
        assert judged[1]["output_config"]["format"]["schema"]["title"] == JUDGE_TOOL
    assert "That reply was invalid" in judged[1]["messages"][2]["content"]


def test_judge_thinking_asks_with_thinking_and_no_tool_choice_or_temperature(write, tmp_path, fake_anthropic):
    fake = fake_anthropic(_script())
    report = _run(write, tmp_path, fake, extra="judge_thinking: {budget_tokens: 2048}")
    [body] = _judged(fake)
    # The fake answered a thinking block before the JSON: the verdict is read from the text alone.
    assert report.verdict == "pass" and report.suites[0].cases[0].runs[0].items[0].status == "pass"
    assert body["thinking"] == {"type": "enabled", "budget_tokens": 2048}
    assert "tool_choice" not in body and "tools" not in body and "temperature" not in body
    assert body["max_tokens"] == 2048 + 512 + 256 and "output_config" in body


def test_judge_thinking_on_a_model_whose_thinking_is_not_known_is_refused_before_any_call(
    write, tmp_path, fake_anthropic, anthropic_env
):
    suite = write("s.yml", SUITE.format(judge=UNKNOWN, extra="judge_thinking: {budget_tokens: 2048}"))
    fake = fake_anthropic(_script())
    env = anthropic_env(fake)
    result = CliRunner().invoke(main, ["run", str(suite), "-o", str(tmp_path / "r.json")], env=env)
    assert fake.request_count == 0
    assert result.exit_code == 2, result.output
    [line] = [ln for ln in result.output.splitlines() if "judge_thinking" in ln]
    assert f"judge model {UNKNOWN} with judge_thinking (budget_tokens 2048) cannot be asked" in line
    assert "its thinking types are not known" in line and "Traceback" not in result.output


def test_a_thinking_budget_below_the_apis_minimum_is_a_suite_error_with_its_line(write):
    suite = write("s.yml", SUITE.format(judge=SUPPORTED, extra="judge_thinking: {budget_tokens: 500}"))
    with pytest.raises(SuiteError) as caught:
        load_suites([suite])
    assert "line 3: budget_tokens 500 is below 1024, the least the API takes" in str(caught.value).splitlines()[1]


def test_the_fake_refuses_thinking_with_a_forced_tool_as_the_api_does(fake_anthropic):
    """The fallback can never carry thinking: the API (and the fake) refuse that combination."""
    request = judge_request(SUPPORTED, "out", CRITERIA)
    body = {**request.to_api_body(), "thinking": {"type": "enabled", "budget_tokens": 1024}, "max_tokens": 4096}
    fake = fake_anthropic(_script())
    import anthropic

    client = anthropic.Anthropic(api_key="k", base_url=fake.url, max_retries=0)
    with pytest.raises(anthropic.BadRequestError, match="tool_choice forces tool use"):
        client.messages.create(**body)


def _caps(model):
    from evalkit.llm.capabilities import CapabilityTable

    return CapabilityTable().of(model)


class _Knows:
    def __init__(self, model):
        self.model = model

    def capabilities(self, model):
        return _caps(self.model)


FORMAT_LOW = Route(format=True, effort="low", room=THINKING_ROOM["low"])


@pytest.mark.parametrize(
    "model, route",
    [
        ("claude-haiku-4-5", Route(strict=True, thinking={"type": "disabled"})),
        ("claude-sonnet-4-5-20250929", Route(strict=True, thinking={"type": "disabled"})),
        ("claude-sonnet-4-6", Route(strict=True, thinking={"type": "disabled"})),
        ("claude-opus-4-8", Route(strict=True, thinking={"type": "disabled"})),
        ("claude-haiku-5-5", Route(strict=True, thinking={"type": "disabled"})),
        ("claude-sonnet-5-5", FORMAT_LOW),  # cannot turn thinking off: no forced tool
        ("claude-opus-5-5", FORMAT_LOW),
        ("claude-fable-5-1", FORMAT_LOW),
        (UNKNOWN, Route(format=True, room=DEFAULT_ROOM)),
    ],
)
def test_each_model_family_has_its_route(model, route):
    assert choose_route(_Knows(model), model) == route
    body = judge_request(model, "out", CRITERIA, route=route).to_api_body()
    assert not {"temperature", "top_p", "top_k"} & set(body)
    assert ("tool_choice" in body) is (not route.format) and ("output_config" in body) is (route.format or False)


@pytest.mark.parametrize(
    "model, thinking, effort",
    [
        ("claude-haiku-4-5", {"type": "enabled", "budget_tokens": 1024}, None),  # no adaptive: a budget for `low`
        ("claude-opus-4-8", {"type": "adaptive"}, "low"),
        ("claude-haiku-5-5", {"type": "adaptive"}, "low"),
        ("claude-sonnet-5-5", {"type": "adaptive"}, "low"),
    ],
)
def test_judge_thinking_is_adaptive_where_the_model_takes_it_else_a_budget(model, thinking, effort):
    route = choose_route(_Knows(model), model, JudgeThinking(effort="low"))
    assert route.format and route.thinking == thinking and route.effort == effort
    body = judge_request(model, "out", CRITERIA, route=route).to_api_body()
    assert "tool_choice" not in body and body["thinking"] == thinking
    assert body["max_tokens"] == 512 + 256 * len(CRITERIA) + route.room and route.room >= 1024


def test_a_thinking_judge_without_a_route_is_refused_naming_why():
    with pytest.raises(UsageError, match="judge_thinking needs structured outputs"):
        route_for(Capabilities(structured_outputs=False, thinking_types=frozenset({"enabled"})), JudgeThinking("low"))
    with pytest.raises(UsageError, match="takes no effort level xhigh"):
        choose_route(_Knows("claude-sonnet-4-6"), "claude-sonnet-4-6", JudgeThinking("xhigh"))
    with pytest.raises(UsageError, match="its thinking types are not known"):
        choose_route(_Knows(UNKNOWN), UNKNOWN, JudgeThinking(budget_tokens=2048))


def test_a_model_without_structured_outputs_or_a_forced_tool_with_thinking_off_has_no_route():
    with pytest.raises(UsageError, match="no structured outputs"):
        route_for(Capabilities(structured_outputs=False, thinking_types=frozenset({"adaptive"})))
    # Without structured outputs but with thinking off, the plain forced tool remains.
    plain = route_for(
        Capabilities(structured_outputs=False, thinking_types=frozenset({"enabled", "disabled"}), forced_tool=True)
    )
    assert plain == Route(thinking={"type": "disabled"})


def test_the_routes_requests_differ_and_so_do_their_cache_keys():
    structured = Route(strict=True, thinking={"type": "disabled"})
    thinking = Route(format=True, thinking={"type": "enabled", "budget_tokens": 1024}, room=1024)
    for build in (
        lambda r: judge_request("m", "out", CRITERIA, route=r),
        lambda r: extract_request("m", "out", FIELDS, route=r),
        lambda r: grade_request("m", "out", CRITERIA, FIELDS, route=r),
    ):
        keys = {build(r).cache_key() for r in (FORCED, structured, thinking, FORMAT_LOW)}
        assert len(keys) == 4
    forced, asked = (
        grade_request("m", "o", CRITERIA, FIELDS),
        grade_request("m", "o", CRITERIA, FIELDS, route=structured),
    )
    assert strict_schema(forced.tools[0]["input_schema"], GRADE_TOOL) == asked.tools[0]["input_schema"]
    assert asked.tools[0]["strict"] is True and asked.output_format is None
    thought = grade_request("m", "o", CRITERIA, FIELDS, route=thinking)
    assert thought.output_format["schema"] == asked.tools[0]["input_schema"] and not thought.tools
    assert extract_request("m", "o", FIELDS, route=structured).tools[0]["input_schema"]["title"] == EXTRACT_TOOL


def test_strict_schema_closes_every_object_and_drops_bounds_structured_outputs_refuse():
    schema = {
        "type": "object",
        "properties": {
            "n": {"type": "integer", "minimum": 1},
            "xs": {"type": ["array", "null"], "items": {"type": "object", "properties": {"s": {"maxLength": 3}}}},
        },
    }
    strict = strict_schema(schema, "t")
    assert strict["additionalProperties"] is False and strict["required"] == ["n", "xs"] and strict["title"] == "t"
    assert strict["properties"]["n"] == {"type": "integer"}
    assert strict["properties"]["xs"]["items"] == {
        "type": "object",
        "properties": {"s": {}},
        "additionalProperties": False,
        "required": ["s"],
    }
    assert "minimum" in schema["properties"]["n"]  # the tool's own schema is left as it was


def test_the_in_process_judge_reads_a_structured_reply_with_thinking():
    from evalkit.testing.scripted import ScriptedProvider

    provider = ScriptedProvider(Script().tool_reply(JUDGE_TOOL, verdicts({"a": "pass", "b": "fail"})))
    client = make_client(provider, no_cache=True, deprecated=None).bind(model=SUPPORTED)
    outcome = asyncio.run(
        judge(
            client,
            JudgeInput("out", criteria=CRITERIA),
            JudgeSettings(SUPPORTED, thinking=JudgeThinking(budget_tokens=1024)),
        )
    )
    assert outcome.error is None and {k: v.verdict for k, v in outcome.verdicts.items()} == {"a": "pass", "b": "fail"}
    [body] = provider.requests
    assert body["thinking"]["budget_tokens"] == 1024 and "tool_choice" not in body
    assert json.loads(json.dumps(body["output_config"]))["format"]["schema"]["title"] == JUDGE_TOOL


@pytest.mark.parametrize("model", ["claude-haiku-4-5", "claude-opus-4-8", "claude-haiku-5-5"])
def test_a_judge_thinking_suite_runs_on_a_model_of_each_thinking_kind(write, tmp_path, model, fake_anthropic):
    """A budget on Haiku 4.5 (no adaptive thinking), adaptive at an effort on Opus 4.8 and Haiku 5.5,
    through the fake that refuses what the API refuses."""
    fake = fake_anthropic(_script(), unknown_models="404")
    report = _run(write, tmp_path, fake, judge_model=model, extra="judge_thinking: {effort: medium}")
    [body] = _judged(fake)
    assert report.verdict == "pass" and report.suites[0].cases[0].runs[0].items[0].status == "pass"
    expected = {"type": "enabled", "budget_tokens": 4096} if model == "claude-haiku-4-5" else {"type": "adaptive"}
    assert body["thinking"] == expected and "tool_choice" not in body and "temperature" not in body
