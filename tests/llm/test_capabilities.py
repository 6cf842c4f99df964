"""What each model supports (structured outputs, extended thinking): the API's `capabilities` over
evalkit's table (evalkit/llm/capabilities.py); the request fields that carry them; `evalkit models`."""

from __future__ import annotations

import asyncio
import json
from datetime import date

from click.testing import CliRunner

from evalkit.cli.commands import main
from evalkit.llm import model_lifecycle as lifecycle
from evalkit.llm.capabilities import UNKNOWN, Capabilities, CapabilityTable, bundled
from evalkit.llm.model_lifecycle import LifecycleTable, write_api_cache
from evalkit.llm.providers.anthropic import AnthropicProvider
from evalkit.llm.providers.interface import ModelRequest, ModelResponse
from evalkit.testing.fake_anthropic import FakeAnthropicServer
from evalkit.testing.script import Script

FORMAT = {"type": "json_schema", "schema": {"type": "object", "title": "t", "additionalProperties": False,
                                            "required": ["x"], "properties": {"x": {"type": "integer"}}}}
THINKING = {"type": "enabled", "budget_tokens": 1024}


def test_evalkits_table_says_where_its_data_comes_from_and_knows_the_default_judge():
    raw = json.loads((lifecycle.Path(lifecycle.__file__).with_name("capabilities.json")).read_text())
    assert "documentation" in raw["source"] and raw["as_of"]
    assert bundled()["claude-haiku-4-5-20251001"] == Capabilities(True, True, f"evalkit table {raw['as_of']}")
    assert CapabilityTable().of("claude-unlisted-1") == UNKNOWN and UNKNOWN.structured_outputs is None


def test_the_apis_answer_wins_and_an_answer_without_capabilities_leaves_the_table(tmp_path):
    write_api_cache(tmp_path, {
        "claude-haiku-4-5-20251001": {"lifecycle": "active", "retires_at": None, "structured_outputs": False,
                                      "thinking": True},
        "claude-new-1": {"lifecycle": "active", "retires_at": None, "structured_outputs": True, "thinking": False},
        "claude-sonnet-4-6": {"lifecycle": "active", "retires_at": None},  # saved by an older evalkit
    })
    table = CapabilityTable(LifecycleTable(tmp_path))
    assert table.of("claude-haiku-4-5-20251001").structured_outputs is False
    assert table.of("claude-haiku-4-5-20251001").source.startswith("API ")
    assert table.of("claude-new-1") == Capabilities(True, False, table.of("claude-new-1").source)
    assert table.of("claude-sonnet-4-6").source.startswith("evalkit table")  # the table still decides


def test_without_the_api_the_table_decides(tmp_path):
    def offline():
        raise OSError("no network")

    lifecycles = LifecycleTable(tmp_path, fetch=offline)
    assert CapabilityTable(lifecycles).of("claude-sonnet-4-6").structured_outputs is True
    assert lifecycles.note and lifecycles.api_answer() is None


def test_output_format_and_thinking_are_in_the_body_and_the_cache_key():
    plain = ModelRequest(model="m", messages=({"role": "user", "content": "hi"},), max_tokens=2048)
    formatted = ModelRequest(model="m", messages=plain.messages, max_tokens=2048, output_format=FORMAT)
    thinking = ModelRequest(model="m", messages=plain.messages, max_tokens=2048, output_format=FORMAT,
                            thinking=THINKING)
    assert formatted.to_api_body()["output_config"] == {"format": FORMAT} and "thinking" not in formatted.to_api_body()
    assert thinking.to_api_body()["thinking"] == THINKING
    assert "output_config" not in plain.to_api_body()
    assert len({plain.cache_key(), formatted.cache_key(), thinking.cache_key()}) == 3


def test_a_reply_with_thinking_keeps_only_its_text():
    reply = {"model": "m", "stop_reason": "end_turn", "usage": {"input_tokens": 3, "output_tokens": 9},
             "content": [{"type": "thinking", "thinking": "hmm, x is 4", "signature": "sig"},
                         {"type": "redacted_thinking", "data": "opaque"},
                         {"type": "text", "text": '{"x": 4}'}]}
    response = ModelResponse.from_api_message(reply)
    assert response.text == '{"x": 4}' and response.tool_input is None


def test_the_provider_sends_them_as_the_sdks_own_parameters():
    with FakeAnthropicServer(Script().tool_reply("t", {"x": 4})) as fake:
        provider = AnthropicProvider(api_key="k", base_url=fake.url)
        request = ModelRequest(model="claude-haiku-4-5", messages=({"role": "user", "content": "x?"},),
                               max_tokens=2048, output_format=FORMAT, thinking=THINKING)

        async def ask():
            try:
                return await provider.generate(request)
            finally:
                await provider.aclose()

        response = asyncio.run(ask())
        [body] = fake.requests
    assert body["output_config"] == {"format": FORMAT} and body["thinking"] == THINKING
    assert json.loads(response.text) == {"x": 4}


def test_models_shows_which_models_take_structured_outputs(monkeypatch, tmp_path):
    monkeypatch.setattr(lifecycle, "today", lambda: date(2026, 11, 25))
    with FakeAnthropicServer(Script()) as fake:
        fake.models = [{"id": "claude-sonnet-4-6", "lifecycle": "active", "retires_at": None,
                        "structured_outputs": False, "thinking": True}]
        env = {"ANTHROPIC_API_KEY": "k", "ANTHROPIC_BASE_URL": fake.url, "EVALKIT_CACHE_DIR": str(tmp_path / "c")}
        out = CliRunner().invoke(main, ["models"], env=env).output
    header, *lines = out.splitlines()
    assert "structured outputs" in header
    rows = {line.split()[0]: line.split() for line in lines}
    assert "no" in rows["claude-sonnet-4-6"]  # the API's word over evalkit's table
    assert "yes" in rows["claude-haiku-4-5-20251001"]  # evalkit's table
    assert "unknown" in rows["claude-opus-4-7"]  # neither says: the judge forces a tool
