"""The judge's two routes (evalkit/scoring/structured.py): structured outputs where the judge model
supports them, a forced tool elsewhere; and `judge_thinking`. End to end through the real anthropic
client against the loopback fake, the route read off the request bodies the fake saw."""

from __future__ import annotations

import asyncio
import json

import pytest
from click.testing import CliRunner

from evalkit.cli.commands import main
from evalkit.engine import anthropic_provider, load_suites, make_client, run
from evalkit.errors import SuiteError, UsageError
from evalkit.llm.providers.anthropic import AnthropicProvider
from evalkit.run.runner import RunOptions
from evalkit.scoring.extract import EXTRACT_TOOL, extract_request
from evalkit.scoring.grading import GRADE_TOOL, grade_request
from evalkit.scoring.judge import JUDGE_TOOL, judge, judge_request
from evalkit.scoring.structured import FORCED, Route, choose_route, strict_schema
from evalkit.suite.spec import FieldSpec
from evalkit.testing.fake_anthropic import FakeAnthropicServer
from evalkit.testing.script import Script, requested_tool
from tests.conftest import verdicts

SUPPORTED = "claude-haiku-4-5-20251001"  # structured outputs in evalkit's table and in the fake's /v1/models
UNKNOWN = "claude-unlisted-1"  # in neither: the forced tool
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
    client = make_client(AnthropicProvider(api_key="k", base_url=fake.url), cache_dir=tmp_path / "cache",
                         deprecated=None)
    return run(load_suites([suite]), client, RunOptions())


def test_a_judge_model_with_structured_outputs_is_asked_through_a_strict_tool(write, tmp_path):
    """Strict tool use: valid by construction, and the tool stays where the documented prompt-cache
    order puts it (before the judge's cached system prompt)."""
    with FakeAnthropicServer(_script()) as fake:
        report = _run(write, tmp_path, fake)
        [body] = _judged(fake)
    assert report.verdict == "pass" and report.suites[0].cases[0].runs[0].items[0].status == "pass"
    assert "output_config" not in body and body["temperature"] == 0.0
    assert body["tool_choice"] == {"type": "tool", "name": JUDGE_TOOL}
    [tool] = body["tools"]
    assert tool["strict"] is True and tool["input_schema"]["title"] == JUDGE_TOOL
    objects = list(_objects(tool["input_schema"]))
    assert len(objects) == 2 and all(o["additionalProperties"] is False and o["required"] == list(o["properties"])
                                     for o in objects)
    assert f"Call {JUDGE_TOOL} with exactly these ids: polite." in body["messages"][0]["content"]


def test_a_judge_model_not_known_to_support_them_gets_the_forced_tool(write, tmp_path):
    with FakeAnthropicServer(_script()) as fake:
        report = _run(write, tmp_path, fake, judge_model=UNKNOWN)
        [body] = _judged(fake)
    assert report.verdict == "pass"
    assert body["tool_choice"] == {"type": "tool", "name": JUDGE_TOOL} and "output_config" not in body
    assert "strict" not in body["tools"][0]
    assert f"Call {JUDGE_TOOL} with exactly these ids: polite." in body["messages"][0]["content"]


def test_with_a_key_the_apis_capabilities_decide_the_route(write, tmp_path):
    suite = write("s.yml", SUITE.format(judge="claude-opus-4-8", extra=""))
    for supported in (True, False):
        with FakeAnthropicServer(_script()) as fake:
            fake.models = [{"id": "claude-opus-4-8", "lifecycle": "active", "retires_at": None,
                            "structured_outputs": supported, "thinking": True}]
            env = {"ANTHROPIC_API_KEY": "k", "ANTHROPIC_BASE_URL": fake.url}
            client = make_client(anthropic_provider(env=env), cache_dir=tmp_path / f"cache-{supported}")
            report = run(load_suites([suite]), client, RunOptions())
            [body] = _judged(fake)
        assert report.verdict == "pass" and fake.models_requests == 1
        assert body["tools"][0].get("strict", False) is supported and "output_config" not in body


@pytest.mark.parametrize("judge_model", [SUPPORTED, UNKNOWN])
def test_a_malformed_reply_is_an_error_row_never_a_pass(write, tmp_path, judge_model):
    script = Script().reply("Hello Ada", prompt="Greet").reply("It passes, trust me.", tool=JUDGE_TOOL)
    with FakeAnthropicServer(script) as fake:
        report = _run(write, tmp_path, fake, judge_model=judge_model)
        judged = _judged(fake)
    [item] = report.suites[0].cases[0].runs[0].items
    assert item.status == "error" and "judge reply invalid after a retry" in item.reason
    assert report.verdict != "pass" and len(judged) == 2  # asked once more, by the same route
    assert judged[1]["tools"][0].get("strict", False) is (judge_model == SUPPORTED)
    assert "That reply was invalid" in judged[1]["messages"][2]["content"]


def test_judge_thinking_asks_with_thinking_and_no_tool_choice_or_temperature(write, tmp_path):
    with FakeAnthropicServer(_script()) as fake:
        report = _run(write, tmp_path, fake, extra="judge_thinking: {budget_tokens: 2048}")
        [body] = _judged(fake)
    # The fake answered a thinking block before the JSON: the verdict is read from the text alone.
    assert report.verdict == "pass" and report.suites[0].cases[0].runs[0].items[0].status == "pass"
    assert body["thinking"] == {"type": "enabled", "budget_tokens": 2048}
    assert "tool_choice" not in body and "tools" not in body and "temperature" not in body
    assert body["max_tokens"] == 2048 + 512 + 256 and "output_config" in body


def test_judge_thinking_on_a_model_without_structured_outputs_is_refused_before_any_call(write, tmp_path):
    suite = write("s.yml", SUITE.format(judge=UNKNOWN, extra="judge_thinking: {budget_tokens: 2048}"))
    with FakeAnthropicServer(_script()) as fake:
        env = {"ANTHROPIC_API_KEY": "k", "ANTHROPIC_BASE_URL": fake.url, "EVALKIT_CACHE_DIR": str(tmp_path / "c")}
        result = CliRunner().invoke(main, ["run", str(suite), "-o", str(tmp_path / "r.json")], env=env)
        assert fake.request_count == 0
    assert result.exit_code == 2, result.output
    [line] = [ln for ln in result.output.splitlines() if "judge_thinking" in ln]
    assert f"judge model {UNKNOWN} is not known to support them" in line and "Traceback" not in result.output


def test_a_thinking_budget_below_the_apis_minimum_is_a_suite_error_with_its_line(write):
    suite = write("s.yml", SUITE.format(judge=SUPPORTED, extra="judge_thinking: {budget_tokens: 500}"))
    with pytest.raises(SuiteError) as caught:
        load_suites([suite])
    assert "line 3: budget_tokens 500 is below 1024, the least the API takes" in str(caught.value).splitlines()[1]


def test_the_fake_refuses_thinking_with_a_forced_tool_as_the_api_does():
    """The fallback can never carry thinking: the API (and the fake) refuse that combination."""
    request = judge_request(SUPPORTED, "out", CRITERIA)
    body = {**request.to_api_body(), "thinking": {"type": "enabled", "budget_tokens": 1024}, "max_tokens": 4096}
    body.pop("temperature")
    with FakeAnthropicServer(_script()) as fake:
        import anthropic

        client = anthropic.Anthropic(api_key="k", base_url=fake.url, max_retries=0)
        with pytest.raises(anthropic.BadRequestError, match="tool_choice forces tool use"):
            client.messages.create(**body)


class _Knows:
    def __init__(self, structured):
        self.structured = structured

    def capabilities(self, model):
        from evalkit.llm.capabilities import Capabilities

        return Capabilities(structured_outputs=self.structured, thinking=True)


def test_choose_route_and_a_thinking_judge_needs_structured_outputs():
    assert choose_route(_Knows(True), "m") == Route(structured=True)
    assert choose_route(_Knows(None), "m") == FORCED and choose_route(object(), "m") == FORCED
    assert choose_route(_Knows(True), "m", 1024) == Route(structured=True, thinking=1024)
    for structured in (False, None):
        with pytest.raises(UsageError, match="judge_thinking needs structured outputs"):
            choose_route(_Knows(structured), "m", 1024)


def test_the_routes_requests_differ_and_so_do_their_cache_keys():
    structured, thinking = Route(structured=True), Route(structured=True, thinking=1024)
    for build in (lambda r: judge_request("m", "out", CRITERIA, route=r),
                  lambda r: extract_request("m", "out", FIELDS, route=r),
                  lambda r: grade_request("m", "out", CRITERIA, FIELDS, route=r)):
        keys = {build(r).cache_key() for r in (FORCED, structured, thinking)}
        assert len(keys) == 3
    forced, asked = grade_request("m", "o", CRITERIA, FIELDS), grade_request("m", "o", CRITERIA, FIELDS, route=structured)
    assert strict_schema(forced.tools[0]["input_schema"], GRADE_TOOL) == asked.tools[0]["input_schema"]
    assert asked.tools[0]["strict"] is True and asked.output_format is None
    thought = grade_request("m", "o", CRITERIA, FIELDS, route=thinking)
    assert thought.output_format["schema"] == asked.tools[0]["input_schema"] and not thought.tools
    assert extract_request("m", "o", FIELDS, route=structured).tools[0]["input_schema"]["title"] == EXTRACT_TOOL


def test_strict_schema_closes_every_object_and_drops_bounds_structured_outputs_refuse():
    schema = {"type": "object", "properties": {"n": {"type": "integer", "minimum": 1},
                                               "xs": {"type": ["array", "null"], "items": {
                                                   "type": "object", "properties": {"s": {"maxLength": 3}}}}}}
    strict = strict_schema(schema, "t")
    assert strict["additionalProperties"] is False and strict["required"] == ["n", "xs"] and strict["title"] == "t"
    assert strict["properties"]["n"] == {"type": "integer"}
    assert strict["properties"]["xs"]["items"] == {"type": "object", "properties": {"s": {}},
                                                   "additionalProperties": False, "required": ["s"]}
    assert "minimum" in schema["properties"]["n"]  # the tool's own schema is left as it was


def test_the_in_process_judge_reads_a_structured_reply_with_thinking():
    from evalkit.testing.scripted import ScriptedProvider

    provider = ScriptedProvider(Script().tool_reply(JUDGE_TOOL, verdicts({"a": "pass", "b": "fail"})))
    client = make_client(provider, no_cache=True, deprecated=None).bind(model=SUPPORTED)
    outcome = asyncio.run(judge(client, SUPPORTED, "out", CRITERIA, thinking=1024))
    assert outcome.error is None and {k: v.verdict for k, v in outcome.verdicts.items()} == {"a": "pass", "b": "fail"}
    [body] = provider.requests
    assert body["thinking"]["budget_tokens"] == 1024 and "tool_choice" not in body
    assert json.loads(json.dumps(body["output_config"]))["format"]["schema"]["title"] == JUDGE_TOOL
