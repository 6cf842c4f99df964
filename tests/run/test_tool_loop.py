"""A prompt target with tools: evalkit runs the loop (tool_use -> tool_result -> ... -> final text)
with the real anthropic client against the loopback fake, answers each call from the case's
scripted `tool_results:` or the tool's Python function (in a worker process), and keeps the
trajectory in the run's result."""

from __future__ import annotations

import json

import pytest

from evalkit.engine import load_suites, make_client, run
from evalkit.errors import SuiteError
from evalkit.llm.providers.anthropic import AnthropicProvider
from evalkit.run.runner import RunOptions
from evalkit.testing.script import Script

TOOLS_SUITE = """
name: weather-agent
model: claude-haiku-4-5-20251001
target:
  system: "You answer with the weather."
  prompt: "What should {{ name }} wear in {{ city }}?"
  max_steps: 4
  tools:
    - name: get_weather
      description: The weather in a city now.
      input_schema: {type: object, properties: {city: {type: string}}, required: [city]}
      function: weather_tools:get_weather
    - name: lookup_wardrobe
      description: What the person owns.
      input_schema: {type: object, properties: {person: {type: string}}, required: [person]}
cases:
  - id: ada-paris
    input: {name: Ada, city: Paris}
    tool_results:
      lookup_wardrobe:
        - {arguments: {person: Ada}, result: [raincoat, sandals]}
        - {error: "unknown person"}
    checks: [{type: contains, value: raincoat}]
"""

WEATHER_TOOLS = """
def get_weather(city):
    if city == "Atlantis":
        raise LookupError("no such city")
    return {"city": city, "sky": "rain", "temp_c": 11}
"""


def client_for(fake, tmp_path):
    return make_client(
        AnthropicProvider(api_key="test-key", base_url=fake.url), cache_dir=tmp_path / "cache", deprecated=None
    )


def agent_script(final: str = "Wear the raincoat, Ada.") -> Script:
    return (
        Script()
        .tool_use(
            [("get_weather", {"city": "Paris"}), ("lookup_wardrobe", {"person": "Ada"})], text="Let me check.", turn=1
        )
        .reply(final, turn=2)
    )


def test_two_tools_run_to_the_final_answer_and_the_trace_is_kept(write, tmp_path, fake_anthropic):
    write("weather_tools.py", WEATHER_TOOLS)
    suite = write("s.yml", TOOLS_SUITE)
    fake = fake_anthropic(agent_script())
    report = run(load_suites([suite]), client_for(fake, tmp_path), RunOptions())
    bodies = fake.requests
    case = report.suites[0].cases[0]
    assert case.verdict == "pass", case.reasons
    run_ = case.runs[0]
    assert run_.output == "Wear the raincoat, Ada."
    # The first request offers both tools; the second answers both calls, by tool_use id, in order.
    assert [t["name"] for t in bodies[0]["tools"]] == ["get_weather", "lookup_wardrobe"]
    assert len(bodies) == 2
    asked = bodies[1]["messages"][1]["content"]
    assert [b["type"] for b in asked] == ["text", "tool_use", "tool_use"]
    answered = bodies[1]["messages"][2]["content"]
    assert [b["tool_use_id"] for b in answered] == [asked[1]["id"], asked[2]["id"]]
    assert json.loads(answered[0]["content"]) == {"city": "Paris", "sky": "rain", "temp_c": 11}  # the function
    assert json.loads(answered[1]["content"]) == ["raincoat", "sandals"]  # the case's scripted result
    steps = [(s.type, s.role or s.name) for s in run_.trace]
    assert steps == [
        ("message", "user"),
        ("message", "assistant"),
        ("tool_call", "get_weather"),
        ("tool_call", "lookup_wardrobe"),
        ("message", "assistant"),
    ]
    weather = run_.trace[2]
    assert weather.arguments == {"city": "Paris"} and weather.result["sky"] == "rain" and weather.seconds >= 0
    assert run_.trace[0].text == "What should Ada wear in Paris?"


def test_a_failing_tool_is_told_to_the_model_as_an_error_and_recorded(write, tmp_path, fake_anthropic):
    write("weather_tools.py", WEATHER_TOOLS)
    suite = write("s.yml", TOOLS_SUITE)
    script = (
        Script()
        .tool_use([("get_weather", {"city": "Atlantis"}), ("lookup_wardrobe", {"person": "Bo"})], turn=1)
        .reply("I could not check; take a raincoat.", turn=2)
    )
    fake = fake_anthropic(script)
    report = run(load_suites([suite]), client_for(fake, tmp_path), RunOptions())
    answered = fake.requests[1]["messages"][2]["content"]
    assert [b.get("is_error") for b in answered] == [True, True]
    assert "LookupError: no such city" in answered[0]["content"]
    assert answered[1]["content"] == "unknown person"  # the entry without `arguments` answers any other call
    calls = [s for s in report.suites[0].cases[0].runs[0].trace if s.type == "tool_call"]
    assert [c.error for c in calls] == ["LookupError: no such city", "unknown person"]
    assert report.suites[0].cases[0].verdict == "pass"  # the agent handled it; checks decide the rest


def test_a_model_still_calling_tools_after_max_steps_is_an_error_row_with_its_trace(write, tmp_path, fake_anthropic):
    write("weather_tools.py", WEATHER_TOOLS)
    suite = write("s.yml", TOOLS_SUITE)
    script = Script().tool_use([("get_weather", {"city": "Paris"})])  # every turn asks again
    fake = fake_anthropic(script)
    report = run(load_suites([suite]), client_for(fake, tmp_path), RunOptions())
    assert len(fake.requests) == 4  # max_steps: 4 model turns
    case = report.suites[0].cases[0]
    assert case.verdict == "error"
    run_ = case.runs[0]
    assert "still calling tools after 4 turns" in run_.error
    calls = [s for s in run_.trace if s.type == "tool_call"]
    assert len(calls) == 4 and calls[-1].error.startswith("not run: the loop stopped at max_steps")


def test_an_unscripted_tool_without_a_function_gives_the_model_an_error(write, tmp_path, fake_anthropic):
    suite = write("s.yml", TOOLS_SUITE.replace("      function: weather_tools:get_weather\n", ""))
    fake = fake_anthropic(agent_script())
    run(load_suites([suite]), client_for(fake, tmp_path), RunOptions())
    answered = fake.requests[1]["messages"][2]["content"]
    assert answered[0]["is_error"] and "has no function, and this case scripts no result" in answered[0]["content"]


def test_a_cached_rerun_replays_the_loop_without_calls(write, tmp_path, fake_anthropic):
    write("weather_tools.py", WEATHER_TOOLS)
    suite = write("s.yml", TOOLS_SUITE)
    fake = fake_anthropic(agent_script())
    first = run(load_suites([suite]), client_for(fake, tmp_path), RunOptions())
    second = run(load_suites([suite]), client_for(fake, tmp_path), RunOptions())
    assert len(fake.requests) == 2

    def steps(report):
        return [
            (s.type, s.role, s.text, s.name, s.arguments, s.result, s.error)
            for s in report.suites[0].cases[0].runs[0].trace
        ]

    assert steps(second) == steps(first) and len(steps(first)) == 5


@pytest.mark.parametrize(
    "edit, message",
    [
        (lambda s: s.replace("name: lookup_wardrobe", "name: look up"), "name"),
        (
            lambda s: s.replace(
                "input_schema: {type: object, properties: {person", "input_schema: {type: array, properties: {person"
            ),
            "describes an object",
        ),
        (
            lambda s: s.replace("{type: string}}, required: [person]", "{type: 7}}, required: [person]"),
            "input_schema is not a JSON Schema",
        ),
        (
            lambda s: s.replace("function: weather_tools:get_weather", "function: weather_tools.get_weather"),
            "not of the form module:function",
        ),
        (
            lambda s: s.replace("    tool_results:\n      lookup_wardrobe:", "    tool_results:\n      lookup_shoes:"),
            "the target declares no tool 'lookup_shoes'",
        ),
        (
            lambda s: s.replace('- {error: "unknown person"}', '- {error: "unknown", result: 1}'),
            "has both `result` and `error`",
        ),
        (lambda s: s.replace("max_steps: 4", "max_steps: 0"), "max_steps"),
        (lambda s: s.replace("    - name: lookup_wardrobe", "    - name: get_weather"), "declared twice"),
    ],
)
def test_a_bad_tool_declaration_is_a_load_error_with_its_line(write, edit, message):
    suite = write("s.yml", edit(TOOLS_SUITE))
    with pytest.raises(SuiteError) as raised:
        load_suites([suite])
    text = str(raised.value)
    assert message in text and "s.yml:" in text


AGENT_SUITE = """
name: own-loop
target: my_agent:answer
model: claude-haiku-4-5-20251001
cases:
  - id: ada
    input: {city: Paris}
    checks: [{type: contains, value: rain}]
"""

OWN_LOOP_AGENT = """
from evalkit import ModelRequest

TOOLS = ({"name": "get_weather", "description": "d", "input_schema": {"type": "object", "properties": {}}},)


def answer(case_input, client):
    messages = [{"role": "user", "content": "Weather in " + case_input["city"] + "?"}]
    while True:
        reply = client.generate(ModelRequest(model=client.model, messages=tuple(messages), tools=TOOLS))
        if not reply.tool_uses:
            return reply.text
        messages.append({"role": "assistant", "content": [
            {"type": "tool_use", "id": u["id"], "name": u["name"], "input": u["input"]} for u in reply.tool_uses]})
        messages.append({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": u["id"], "content": '{"sky": "rain"}'} for u in reply.tool_uses]})
"""


def test_agent_code_running_its_own_loop_through_the_client_gets_a_trace_without_instrumentation(
    write, tmp_path, fake_anthropic
):
    write("my_agent.py", OWN_LOOP_AGENT)
    suite = write("s.yml", AGENT_SUITE)
    script = Script().tool_use([("get_weather", {"city": "Paris"})], turn=1).reply("It will rain.", turn=2)
    fake = fake_anthropic(script)
    report = run(load_suites([suite]), client_for(fake, tmp_path), RunOptions())
    run_ = report.suites[0].cases[0].runs[0]
    assert run_.output == "It will rain."
    assert [(s.type, s.role or s.name) for s in run_.trace] == [
        ("message", "user"),
        ("message", "assistant"),
        ("tool_call", "get_weather"),
        ("message", "assistant"),
    ]
    assert run_.trace[2].arguments == {"city": "Paris"} and run_.trace[2].result == {"sky": "rain"}


RETURNS_TRACE = """
from evalkit import Step, TargetResult


def answer(case_input):
    if case_input.get("bad"):
        return TargetResult("rain", trace=[{"type": "tool_call"}])
    return TargetResult("rain", trace=[Step.message("user", "weather?"),
                                       {"type": "tool_call", "name": "get_weather", "arguments": {"city": "Paris"},
                                        "result": {"sky": "rain"}},
                                       Step.message("assistant", "rain")])
"""


def test_a_trace_a_callable_returns_crosses_its_worker_process_and_a_bad_one_is_an_error_row(write, tmp_path):
    write("my_agent.py", RETURNS_TRACE)
    suite = write(
        "s.yml",
        AGENT_SUITE.replace("input: {city: Paris}", "input: {city: Paris}\n  - id: bad\n    input: {bad: true}"),
    )
    report = run(load_suites([suite]), make_client(_no_model(), no_cache=True, deprecated=None), RunOptions())
    good, bad = report.suites[0].cases
    assert [s.name for s in good.runs[0].trace if s.type == "tool_call"] == ["get_weather"]
    assert bad.verdict == "error"
    assert bad.runs[0].error == (
        "target returned a trace evalkit cannot read: step 1 of the trace: a tool_call step needs the tool's `name`"
    )


def _no_model():
    from evalkit.testing.scripted import ScriptedProvider

    return ScriptedProvider(Script())
