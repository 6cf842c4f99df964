"""The fakes refuse what the Messages API refuses (evalkit.testing.api_rules), seen through the real
anthropic client against the HTTP fake: closed request keys, per-model thinking, sampling, forced tools,
effort and prefill rules, signed thinking blocks a follow-up must send back, and the models listing."""

from __future__ import annotations

import asyncio
import json
import typing

import pytest

anthropic = pytest.importorskip("anthropic")

from evalkit.errors import ProviderError  # noqa: E402
from evalkit.llm.providers.interface import ModelRequest  # noqa: E402
from evalkit.testing.api_rules import MODEL_RULES, ModelRules, refusal  # noqa: E402
from evalkit.testing.fake_anthropic import FakeAnthropicServer  # noqa: E402
from evalkit.testing.script import Script  # noqa: E402
from evalkit.testing.scripted import ScriptedProvider  # noqa: E402
from evalkit.testing.thinking_blocks import THOUGHT  # noqa: E402

SCHEMA = {
    "type": "object",
    "title": "record_city",
    "additionalProperties": False,
    "required": ["city"],
    "properties": {"city": {"type": "string"}},
}
FORMAT = {"format": {"type": "json_schema", "schema": SCHEMA}}
TOOL = {
    "name": "lookup",
    "description": "Look a thing up",
    "input_schema": {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]},
}
FORCED = {"tools": [TOOL], "tool_choice": {"type": "tool", "name": "lookup"}}
LOOP = "Look two things up"
EXPECTED_THINKING = "Expected `thinking` or `redacted_thinking`, but found `tool_use`."


@pytest.fixture
def fake():
    script = (
        Script()
        .tool_use([("lookup", {"q": "first"})], turn=1, prompt=LOOP)
        .tool_use([("lookup", {"q": "second"})], turn=2, prompt=LOOP)
        .reply("done", turn=3, prompt=LOOP)
        .tool_reply("record_city", {"city": "Oslo"})
        .tool_reply("lookup", {"q": "x"})
        .reply("plain")
    )
    with FakeAnthropicServer(script) as server:
        yield server


def ask(client, model, **kwargs):
    return client.messages.create(
        model=model,
        max_tokens=kwargs.pop("max_tokens", 2048),
        messages=kwargs.pop("messages", [{"role": "user", "content": "Which city?"}]),
        **kwargs,
    )


def refused(client, model, **kwargs) -> str:
    with pytest.raises(anthropic.BadRequestError) as caught:
        ask(client, model, **kwargs)
    assert caught.value.status_code == 400 and caught.value.body["error"]["type"] == "invalid_request_error"
    return str(caught.value.body["error"]["message"])


def _ids(annotation) -> set[str]:
    """Every string of the Literals in `anthropic.types.Model`, however the SDK nests them."""
    if isinstance(annotation, str):
        return {annotation}
    return {i for arg in typing.get_args(annotation) for i in _ids(arg)}


def test_every_model_the_sdk_names_has_rules():
    models = _ids(anthropic.types.Model)
    assert "claude-haiku-4-5" in models  # the reading found the Literal at all
    assert models - set(MODEL_RULES) == set()


def test_an_unknown_top_level_key_is_refused_with_the_apis_wording(client):
    assert (
        refused(client, "claude-haiku-4-5", extra_body={"frequency_penalty": 1})
        == "`frequency_penalty`: Extra inputs are not permitted"
    )
    assert ask(client, "claude-haiku-4-5", extra_body={"stream": False}).content[0].text == "plain"


@pytest.mark.parametrize("model", ["claude-haiku-5-5", "claude-opus-4-8"])
def test_temperature_is_refused_where_deprecated(client, model):
    assert (
        refused(client, model, thinking={"type": "disabled"}, extra_body={"temperature": 0.0})
        == "`temperature` is deprecated for this model."
    )
    assert (
        refused(client, model, thinking={"type": "disabled"}, extra_body={"top_p": 0.5})
        == "`top_p` is deprecated for this model."
    )


def test_temperature_is_taken_by_an_older_model(client):
    assert ask(client, "claude-haiku-4-5", extra_body={"temperature": 0.0}).content[0].text == "plain"


def test_forced_tool_with_thinking_is_refused(client):
    forced_thinking = "Thinking may not be enabled when tool_choice forces tool use."
    assert (
        refused(client, "claude-haiku-4-5", thinking={"type": "enabled", "budget_tokens": 1024}, **FORCED)
        == forced_thinking
    )
    assert refused(client, "claude-haiku-5-5", **FORCED) == forced_thinking  # thinking on by default
    message = ask(client, "claude-haiku-5-5", thinking={"type": "disabled"}, **FORCED)
    assert [b.type for b in message.content] == ["tool_use"]


def test_sonnet_5_5_refuses_a_forced_tool_even_without_a_thinking_key(client):
    assert "is not supported for this model" in refused(client, "claude-sonnet-5-5", **FORCED)
    assert "is not supported for this model" in refused(
        client, "claude-sonnet-5-5", tools=[TOOL], tool_choice={"type": "any"}
    )


def test_a_structured_reply_with_adaptive_thinking_starts_with_a_signed_block(fake, client):
    message = ask(client, "claude-sonnet-5-5", output_config=FORMAT, thinking={"type": "adaptive"})
    assert [b.type for b in message.content] == ["thinking", "text"]
    assert json.loads(message.content[1].text) == {"city": "Oslo"}
    thinking = message.content[0]
    assert thinking.thinking == "" and thinking.signature  # display omitted by default on generation 5
    assert message.usage.output_tokens_details.thinking_tokens > 0
    assert message.usage.output_tokens > message.usage.output_tokens_details.thinking_tokens
    summarized = ask(
        client, "claude-sonnet-5-5", output_config=FORMAT, thinking={"type": "adaptive", "display": "summarized"}
    )
    assert summarized.content[0].thinking == THOUGHT
    assert fake.script.signer.verifies(summarized.content[0].model_dump(), 0)
    assert not fake.script.signer.verifies({**summarized.content[0].model_dump(), "thinking": "forged"}, 0)
    assert ask(client, "claude-haiku-4-5").content[0].type == "text"  # an older model thinks only when asked


def _tool_loop(client, model, resend, **kwargs):
    """Three turns of a tool loop; `resend` makes the assistant turn sent back from the reply's blocks."""
    messages = [{"role": "user", "content": LOOP}]
    for _ in range(3):
        message = ask(client, model, messages=messages, tools=[TOOL], **kwargs)
        if message.stop_reason != "tool_use":
            return message
        blocks = [b.model_dump(exclude_none=True) for b in message.content]
        messages = messages + [
            {"role": "assistant", "content": resend(blocks)},
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": b["id"], "content": "found"}
                    for b in blocks
                    if b["type"] == "tool_use"
                ],
            },
        ]
    raise AssertionError("the loop did not end")


def _without_thinking(blocks):
    return [b for b in blocks if b["type"] not in ("thinking", "redacted_thinking")]


def _altered(blocks):
    return [{**b, "thinking": b["thinking"] + " (edited)"} if b["type"] == "thinking" else b for b in blocks]


def _reordered(blocks):
    return blocks[1:] + blocks[:1]


@pytest.mark.parametrize(
    "model, kwargs",
    [
        ("claude-sonnet-5-5", {}),
        ("claude-haiku-4-5", {"thinking": {"type": "enabled", "budget_tokens": 1024}}),
        ("claude-opus-4-8", {"thinking": {"type": "adaptive", "display": "summarized"}}),
    ],
)
def test_a_tool_loop_that_sends_the_thinking_back_runs_three_steps(fake, client, model, kwargs):
    final = _tool_loop(client, model, lambda blocks: blocks, **kwargs)
    assert [b.type for b in final.content] == ["thinking", "text"] and final.content[1].text == "done"
    second = fake.requests[-1]["messages"][3]["content"]
    assert [b["type"] for b in second] == ["thinking", "tool_use"]


def test_a_tool_loop_that_drops_the_thinking_is_refused(client):
    with pytest.raises(anthropic.BadRequestError) as caught:
        _tool_loop(client, "claude-sonnet-5-5", _without_thinking)
    message = caught.value.body["error"]["message"]
    assert message.startswith("messages.1.content.0.type: " + EXPECTED_THINKING)
    assert "When `thinking` is enabled, a final `assistant` message must start with a thinking block" in message


def test_a_tool_loop_without_thinking_need_not_send_any(client):
    final = _tool_loop(client, "claude-haiku-4-5", _without_thinking)
    assert final.content[0].text == "done"


@pytest.mark.parametrize("resend", [_altered, _reordered])
def test_a_tool_loop_that_alters_the_thinking_is_refused(client, resend):
    with pytest.raises(anthropic.BadRequestError) as caught:
        _tool_loop(client, "claude-sonnet-5-5", resend, thinking={"type": "adaptive", "display": "summarized"})
    assert "Invalid `signature` in `thinking` block" in caught.value.body["error"]["message"]


def test_redacted_thinking_goes_back_opaque_and_is_checked_too():
    script = (
        Script()
        .tool_use([("lookup", {"q": "a"})], turn=1, redacted_thinking=True)
        .tool_use([("lookup", {"q": "b"})], turn=2, redacted_thinking=True)
        .reply("done", turn=3)
    )
    with FakeAnthropicServer(script) as fake:
        with anthropic.Anthropic(api_key="k", base_url=fake.url, max_retries=0) as client:
            final = _tool_loop(client, "claude-opus-5-5", lambda blocks: blocks)
            assert final.content[0].type == "thinking" and final.content[1].text == "done"
            assert fake.requests[1]["messages"][1]["content"][0]["type"] == "redacted_thinking"

            def tampered(blocks):
                return [{**b, "data": b["data"] + "x"} if b["type"] == "redacted_thinking" else b for b in blocks]

            with pytest.raises(anthropic.BadRequestError, match="Invalid `signature`"):
                _tool_loop(client, "claude-opus-5-5", tampered)


@pytest.mark.parametrize(
    "model, effort", [("claude-haiku-4-5", "low"), ("claude-opus-4-5", "xhigh"), ("claude-sonnet-4-6", "xhigh")]
)
def test_an_effort_level_the_model_does_not_list_is_refused(client, model, effort):
    assert (
        refused(client, model, output_config={"effort": effort})
        == f"`output_config.effort: {effort}` is not supported for this model."
    )


def test_listed_effort_levels_are_taken(client):
    assert ask(client, "claude-opus-4-8", thinking={"type": "disabled"}, output_config={"effort": "xhigh"})
    assert ask(client, "claude-opus-4-5", output_config={"effort": "max"})
    assert "Input should be" in refused(client, "claude-opus-4-8", output_config={"effort": "extreme"})


@pytest.mark.parametrize(
    "model, kind",
    [
        ("claude-opus-4-7", "enabled"),
        ("claude-haiku-4-5", "adaptive"),
        ("claude-opus-5-5", "disabled"),
        ("claude-haiku-5-5", "between_tools"),
    ],
)
def test_a_thinking_type_the_model_does_not_take_is_refused(client, model, kind):
    thinking = {"type": kind, "budget_tokens": 1024} if kind == "enabled" else {"type": kind}
    assert refused(client, model, thinking=thinking) == f"`thinking.type: {kind}` is not supported for this model."


@pytest.mark.parametrize(
    "thinking, why",
    [
        (
            {"type": "enabled", "budget_tokens": 512},
            "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024",
        ),
        ({"type": "enabled", "budget_tokens": 4096}, "`max_tokens` must be greater than `thinking.budget_tokens`"),
        (
            {"type": "disabled", "budget_tokens": 2048},
            "`thinking.disabled.budget_tokens`: Extra inputs are not permitted",
        ),
        (
            {"type": "adaptive", "display": "full"},
            "`thinking.adaptive.display`: Input should be 'omitted' or 'summarized'",
        ),
    ],
)
def test_the_shape_of_thinking_follows_the_sdks_types(client, thinking, why):
    model = "claude-sonnet-4-6"  # takes all three thinking types
    assert refused(client, model, thinking=thinking) == why


def test_temperature_other_than_1_with_thinking_is_refused(client):
    thinking = {"type": "enabled", "budget_tokens": 1024}
    assert (
        refused(client, "claude-sonnet-4-6", thinking=thinking, extra_body={"temperature": 0.2})
        == "`temperature` may only be set to 1 when thinking is enabled"
    )
    assert ask(client, "claude-sonnet-4-6", thinking=thinking, extra_body={"temperature": 1})


def test_prefill_is_refused_from_the_4_6_models_on(client):
    prefilled = [{"role": "user", "content": "Which city?"}, {"role": "assistant", "content": "The city is"}]
    assert refused(client, "claude-sonnet-4-6", messages=prefilled).startswith(
        "This model does not support assistant message prefill."
    )
    assert ask(client, "claude-haiku-4-5", messages=prefilled).content[0].text == "plain"


def test_structured_outputs_are_refused_where_the_table_says_the_model_lacks_them():
    table = {"old": ModelRules(frozenset({"disabled"}), structured_outputs=False)}
    body = {"model": "old", "max_tokens": 64, "messages": [{"role": "user", "content": "x"}]}
    assert refusal(body, table=table) is None
    assert "structured outputs are not supported" in refusal({**body, "output_config": FORMAT}, table=table).message
    strict = {**body, "tools": [{**TOOL, "strict": True}]}
    assert "structured outputs are not supported" in refusal(strict, table=table).message


def test_unknown_models_are_permissive_by_default_and_404_when_asked(client):
    assert ask(client, "claude-x", extra_body={"temperature": 0}).content[0].text == "plain"
    with FakeAnthropicServer(Script().reply("hi"), unknown_models="404") as strict:
        with anthropic.Anthropic(api_key="k", base_url=strict.url, max_retries=0) as own:
            with pytest.raises(anthropic.NotFoundError) as caught:
                ask(own, "claude-x")
            assert caught.value.body["error"] == {"type": "not_found_error", "message": "model: claude-x"}
            assert ask(own, "claude-haiku-4-5").content[0].text == "hi"
    with pytest.raises(ValueError, match="unknown_models"):
        FakeAnthropicServer(unknown_models="strict")


def test_the_models_listing_states_the_rules_as_model_info(client):
    listed = {m.id: m for m in client.models.list()}
    assert set(listed) == set(MODEL_RULES)
    for info in listed.values():
        anthropic.types.ModelInfo.model_validate(info.model_dump())
    sonnet = listed["claude-sonnet-5-5"].capabilities
    assert {k for k, v in sonnet.thinking.types.model_dump().items() if v["supported"]} == {"adaptive", "between_tools"}
    assert sonnet.effort.xhigh.supported and sonnet.structured_outputs.supported
    haiku = listed["claude-haiku-4-5"].capabilities
    assert not haiku.effort.supported and not haiku.effort.low.supported
    assert listed["claude-sonnet-4-5-20250929"].lifecycle == "deprecated"
    assert listed["claude-opus-4-5"].retires_at.isoformat().startswith("2027-01-22")
    assert listed["claude-opus-4-8"].lifecycle == "active" and listed["claude-opus-4-8"].retires_at is None


def test_a_batch_request_that_breaks_a_rule_ends_errored(client):
    good = {"model": "claude-haiku-4-5", "max_tokens": 64, "messages": [{"role": "user", "content": "hi"}]}
    batch = client.messages.batches.create(
        requests=[
            {"custom_id": "ok", "params": good},
            {"custom_id": "bad", "params": {**good, "model": "claude-opus-4-8", "temperature": 0.0}},
            {"custom_id": "extra", "params": {**good, "seed": 3}},
        ]
    )
    results = {r.custom_id: r.result for r in client.messages.batches.results(batch.id)}
    assert results["ok"].type == "succeeded"
    assert results["bad"].type == "errored" and results["bad"].error.error.type == "invalid_request_error"
    assert results["bad"].error.error.message == "`temperature` is deprecated for this model."
    assert results["extra"].error.error.message == "`seed`: Extra inputs are not permitted"


def test_count_tokens_holds_its_own_request_type(fake, client):
    counted = client.messages.count_tokens(model="claude-haiku-4-5", messages=[{"role": "user", "content": "hi"}])
    assert counted.input_tokens >= 1
    with pytest.raises(anthropic.BadRequestError) as caught:
        client.messages.count_tokens(
            model="claude-haiku-4-5", messages=[{"role": "user", "content": "hi"}], extra_body={"max_tokens": 64}
        )
    assert caught.value.body["error"]["message"] == "`max_tokens`: Extra inputs are not permitted"
    assert len(fake.counted) == 1


def test_the_in_process_provider_refuses_alike(fake):
    provider = ScriptedProvider(fake.script)
    request = ModelRequest(
        model="claude-opus-4-8", messages=({"role": "user", "content": "Which city?"},), temperature=0.0
    )
    with pytest.raises(ProviderError, match="`temperature` is deprecated for this model.") as caught:
        asyncio.run(provider.generate(request))
    assert caught.value.status == 400 and not caught.value.retryable
