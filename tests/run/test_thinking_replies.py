"""Thinking replies go back as the API requires: a prompt target's tool loop, a conversation's next turn and
agent code's own loop repeat the model's signed thinking blocks, unmodified and first, on a model that
thinks by default (claude-sonnet-5-5), through the real anthropic client against the strict loopback fake;
and the response cache keeps the blocks."""

from __future__ import annotations

import pytest

from evalkit.engine import load_suites, make_client, run
from evalkit.llm.providers.anthropic import AnthropicProvider
from evalkit.llm.providers.interface import ModelResponse
from evalkit.run.runner import RunOptions
from evalkit.testing.script import Script

MODEL = "claude-sonnet-5-5"

LOOP_SUITE = f"""
name: trip-agent
model: {MODEL}
target:
  prompt: "Plan a day in {{{{ city }}}}."
  max_steps: 4
  tools:
    - name: get_weather
      description: The weather in a city now.
      input_schema: {{type: object, properties: {{city: {{type: string}}}}, required: [city]}}
    - name: find_museum
      description: A museum open today.
      input_schema: {{type: object, properties: {{city: {{type: string}}}}, required: [city]}}
cases:
  - id: paris
    input: {{city: Paris}}
    tool_results:
      get_weather: [{{result: {{sky: rain}}}}]
      find_museum: [{{result: Louvre}}]
    checks: [{{type: contains, value: Louvre}}]
"""


def loop_script() -> Script:
    return (
        Script()
        .tool_use([("get_weather", {"city": "Paris"})], text="First the weather.", turn=1)
        .tool_use([("find_museum", {"city": "Paris"})], turn=2)
        .reply("Rain: spend it in the Louvre.", turn=3)
    )


def client_for(fake, cache_dir):
    return make_client(AnthropicProvider(api_key="test-key", base_url=fake.url), cache_dir=cache_dir, deprecated=None)


def _assistant_turns(body):
    return [m["content"] for m in body["messages"] if m["role"] == "assistant"]


def test_a_tool_loop_on_a_model_that_thinks_by_default_sends_the_thinking_back(write, tmp_path, fake_anthropic):
    suite = write("s.yml", LOOP_SUITE)
    fake = fake_anthropic(loop_script())
    report = run(load_suites([suite]), client_for(fake, tmp_path / "cache"), RunOptions())
    bodies = fake.requests
    case = report.suites[0].cases[0]
    assert case.verdict == "pass", case.reasons
    assert case.runs[0].output == "Rain: spend it in the Louvre." and len(bodies) == 3
    first, second = _assistant_turns(bodies[2])
    assert [b["type"] for b in first] == ["thinking", "text", "tool_use"]
    assert [b["type"] for b in second] == ["thinking", "tool_use"]
    assert first[0]["signature"] and first[0]["signature"] != second[0]["signature"]
    assert [s.name for s in case.runs[0].trace if s.type == "tool_call"] == ["get_weather", "find_museum"]

    # A rerun is answered from the cache: each cached reply kept its thinking, so each request is the same.
    empty = fake_anthropic(Script())
    again = run(load_suites([suite]), client_for(empty, tmp_path / "cache"), RunOptions())
    assert empty.request_count == 0
    assert again.suites[0].cases[0].verdict == "pass"


def test_the_same_loop_that_dropped_the_thinking_would_be_refused(write, tmp_path, fake_anthropic):
    """The loop's test above can fail: the fake refuses the third request without the blocks."""
    suite = write("s.yml", LOOP_SUITE)
    fake = fake_anthropic(loop_script())
    run(load_suites([suite]), client_for(fake, tmp_path / "cache"), RunOptions())
    body = fake.requests[2]
    dropped = {
        **body,
        "messages": [
            {**m, "content": [b for b in m["content"] if b["type"] != "thinking"]} if m["role"] == "assistant" else m
            for m in body["messages"]
        ],
    }
    action = fake.script.action_for(dropped)
    assert "Expected `thinking` or `redacted_thinking`, but found `text`." in action.message


CONVERSATION = f"""
name: coach
model: {MODEL}
target:
  prompt: "Plan a week for {{{{ runner }}}}."
cases:
  - id: two-turns
    input: {{runner: ada}}
    conversation:
      - user: "{{{{ prompt }}}}"
        checks: [{{type: contains, value: week}}]
      - user: "My knee hurts. Change the plan."
    checks: [{{type: contains, value: Rest}}]
"""


def test_a_two_turn_conversation_puts_the_models_turn_back_with_its_thinking(write, tmp_path, fake_anthropic):
    suite = write("c.yml", CONVERSATION)
    script = Script().reply("Rest three days.", prompt="knee hurts").reply("A week of easy runs.", prompt="Plan a week")
    fake = fake_anthropic(script)
    report = run(load_suites([suite]), client_for(fake, tmp_path / "cache"), RunOptions())
    bodies = fake.requests
    case = report.suites[0].cases[0]
    assert case.verdict == "pass", case.reasons
    [turn] = _assistant_turns(bodies[1])
    assert [b["type"] for b in turn] == ["thinking", "text"] and turn[1]["text"] == "A week of easy runs."
    assert fake.script.signer.verifies(turn[0], 0)


OWN_LOOP_AGENT = """
from evalkit import ModelRequest

TOOLS = ({"name": "get_weather", "description": "d", "input_schema": {"type": "object", "properties": {}}},)


def answer(case_input, client):
    messages = [{"role": "user", "content": "Weather in " + case_input["city"] + "?"}]
    while True:
        reply = client.generate(ModelRequest(model=client.model, messages=tuple(messages), tools=TOOLS))
        if not reply.tool_uses:
            return reply.text
        messages.append({"role": "assistant", "content": reply.assistant_content()})
        messages.append({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": u["id"], "content": '{"sky": "rain"}'} for u in reply.tool_uses]})
"""

AGENT_SUITE = f"""
name: own-loop
target: my_agent:answer
model: {MODEL}
cases:
  - id: ada
    input: {{city: Paris}}
    checks: [{{type: contains, value: rain}}]
"""


def test_agent_code_in_a_worker_gets_the_thinking_blocks_to_send_back(write, tmp_path, fake_anthropic):
    write("my_agent.py", OWN_LOOP_AGENT)
    suite = write("s.yml", AGENT_SUITE)
    script = (
        Script()
        .tool_use([("get_weather", {"city": "Paris"})], turn=1)
        .tool_use([("get_weather", {"city": "Paris"})], turn=2)
        .reply("It will rain.", turn=3)
    )
    fake = fake_anthropic(script)
    report = run(load_suites([suite]), client_for(fake, tmp_path / "cache"), RunOptions())
    bodies = fake.requests
    case = report.suites[0].cases[0]
    assert case.verdict == "pass", case.reasons
    assert [[b["type"] for b in t] for t in _assistant_turns(bodies[2])] == [["thinking", "tool_use"]] * 2


REPLY = {
    "model": MODEL,
    "stop_reason": "tool_use",
    "usage": {"input_tokens": 5, "output_tokens": 9},
    "content": [
        {"type": "thinking", "thinking": "", "signature": "sig_a"},
        {"type": "redacted_thinking", "data": "red_b"},
        {"type": "text", "text": "Checking."},
        {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Oslo"}},
    ],
}


def test_the_thinking_blocks_survive_the_response_cache_and_come_back_first():
    response = ModelResponse.from_api_message(REPLY)
    assert response.thinking == REPLY["content"][:2] and response.text == "Checking."
    restored = ModelResponse.from_dict(response.to_dict())
    assert restored.thinking == response.thinking
    assert restored.assistant_content() == REPLY["content"]
    older = {k: v for k, v in response.to_dict().items() if k != "thinking"}  # cached before the field
    assert ModelResponse.from_dict(older).thinking == []


@pytest.mark.parametrize(
    "block, what",
    [
        ({"type": "thinking", "thinking": "x"}, "a thinking block's `signature` is not a string"),
        ({"type": "thinking", "thinking": 3, "signature": "s"}, "a thinking block's `thinking` is not a string"),
        ({"type": "redacted_thinking"}, "a redacted_thinking block's `data` is not a string"),
    ],
)
def test_a_malformed_thinking_block_is_named(block, what):
    with pytest.raises(ValueError, match=what):
        ModelResponse.from_api_message({**REPLY, "content": [block]})
