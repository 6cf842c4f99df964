"""The fakes answer structured-output and thinking requests as the API does, from the same script
rules as forced tools; and `GET /v1/models` lists capabilities the SDK's `ModelInfo` accepts."""

from __future__ import annotations

import json

import pytest

anthropic = pytest.importorskip("anthropic")

from evalkit.errors import ProviderError  # noqa: E402
from evalkit.llm.providers.interface import ModelRequest, ModelResponse  # noqa: E402
from evalkit.testing.fake_models import DEFAULT_MODELS, model_info  # noqa: E402
from evalkit.testing.offline_server import OFFLINE_REASON, offline_script  # noqa: E402
from evalkit.testing.script import Script, requested_schema, requested_tool  # noqa: E402
from evalkit.testing.scripted import ScriptedProvider  # noqa: E402

MODEL = "claude-haiku-4-5"
SCHEMA = {
    "type": "object",
    "title": "record_city",
    "additionalProperties": False,
    "required": ["city"],
    "properties": {"city": {"type": "string", "enum": ["Oslo", "Lima"]}},
}
FORMAT = {"format": {"type": "json_schema", "schema": SCHEMA}}
THINKING = {"type": "enabled", "budget_tokens": 1024}


@pytest.fixture
def fake(fake_anthropic):
    return fake_anthropic(Script().tool_reply("record_city", {"city": "Oslo"}).reply("plain prose"))


def ask(client, **kwargs):
    return client.messages.create(
        model=MODEL,
        max_tokens=kwargs.pop("max_tokens", 64),
        messages=[{"role": "user", "content": "Which city?"}],
        **kwargs,
    )


def test_a_structured_output_request_is_answered_by_the_rule_for_its_schemas_title_as_json_text(client):
    message = ask(client, output_config=FORMAT)
    [block] = message.content
    assert block.type == "text" and json.loads(block.text) == {"city": "Oslo"}
    assert message.stop_reason == "end_turn"
    plain = ask(client)  # no format, no tool: the prose rule (a tool's rule never answers it)
    assert plain.content[0].text == "plain prose"


def test_a_thinking_request_gets_a_signed_thinking_block_before_the_answer(client):
    message = ask(client, output_config=FORMAT, thinking=THINKING, max_tokens=2048)
    assert [b.type for b in message.content] == ["thinking", "text"]
    assert message.content[0].signature and message.content[0].thinking
    assert json.loads(message.content[1].text) == {"city": "Oslo"}
    # evalkit's own reading keeps only the text
    response = ModelResponse.from_api_message(message.model_dump())
    assert json.loads(response.text) == {"city": "Oslo"} and response.tool_input is None


@pytest.mark.parametrize(
    "extra, why",
    [
        (
            {
                "tools": [{"name": "record_city", "input_schema": SCHEMA}],
                "tool_choice": {"type": "tool", "name": "record_city"},
                "max_tokens": 2048,
            },
            "tool_choice forces tool use",
        ),
        ({"output_config": FORMAT, "max_tokens": 1024}, "max_tokens"),
        ({"output_config": FORMAT, "max_tokens": 2048, "extra_body": {"temperature": 0.0}}, "temperature"),
    ],
)
def test_what_the_api_refuses_with_thinking_is_a_400(fake, client, extra, why):
    with pytest.raises(anthropic.BadRequestError, match=why):
        ask(client, thinking=THINKING, **extra)


def test_the_in_process_provider_answers_the_same(fake):
    provider = ScriptedProvider(fake.script)
    request = ModelRequest(
        model=MODEL,
        messages=({"role": "user", "content": "Which city?"},),
        max_tokens=2048,
        output_format=FORMAT["format"],
        thinking=THINKING,
    )
    import asyncio

    response = asyncio.run(provider.generate(request))
    assert json.loads(response.text) == {"city": "Oslo"} and response.tool_input is None
    forced = ModelRequest(
        model=MODEL,
        messages=request.messages,
        max_tokens=2048,
        thinking=THINKING,
        tools=({"name": "record_city", "input_schema": SCHEMA},),
        tool_choice={"type": "tool", "name": "record_city"},
    )
    with pytest.raises(ProviderError, match="tool_choice forces tool use") as caught:
        asyncio.run(provider.generate(forced))
    assert caught.value.status == 400 and not caught.value.retryable


def test_requested_tool_and_schema_read_either_route():
    body = {"output_config": FORMAT}
    assert requested_tool(body) == "record_city" and requested_schema(body) == SCHEMA
    untitled = {"output_config": {"format": {"type": "json_schema", "schema": {"type": "object"}}}}
    assert requested_tool(untitled) == "structured_output"
    forced = {
        "tools": [{"name": "t", "input_schema": {"type": "object"}}],
        "tool_choice": {"type": "tool", "name": "t"},
    }
    assert requested_tool(forced) == "t" and requested_schema(forced) == {"type": "object"}
    assert requested_tool({"messages": []}) is None


def test_the_offline_command_fills_a_structured_output_schema(client):
    script = offline_script("hello", "fail")
    schema = {
        "type": "object",
        "title": "record_verdicts",
        "properties": {
            "items": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "id": {"type": "string", "enum": ["a"]},
                        "reason": {"type": "string"},
                        "verdict": {"type": "string", "enum": ["pass", "fail"]},
                    },
                },
            }
        },
    }
    body = {
        "model": MODEL,
        "max_tokens": 64,
        "messages": [{"role": "user", "content": "judge"}],
        "output_config": {"format": {"type": "json_schema", "schema": schema}},
    }
    action = script.action_for(body)
    assert action.input == {"items": [{"id": "a", "reason": OFFLINE_REASON, "verdict": "fail"}]}


def test_the_models_endpoint_lists_capabilities_the_sdks_model_info_accepts(fake, client):
    listed = {m.id: m for m in client.models.list()}
    assert set(listed) == {m["id"] for m in DEFAULT_MODELS}
    for info in listed.values():
        assert info.capabilities.structured_outputs.supported and info.capabilities.thinking.supported
    lacking = anthropic.types.ModelInfo.model_validate(model_info({"id": "x", "structured_outputs": False}))
    assert lacking.capabilities.structured_outputs.supported is False
    assert lacking.capabilities.thinking.supported is False
    assert anthropic.types.ModelInfo.model_validate(model_info({"id": "y"})).capabilities is None
