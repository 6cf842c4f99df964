"""What each model takes (structured outputs, thinking types and default, effort, forced tools,
sampling): the API's `capabilities` over evalkit's table (evalkit/llm/capabilities.py); the request
fields that carry them; `evalkit models`."""

from __future__ import annotations

import asyncio
import json
from datetime import date

from click.testing import CliRunner

from evalkit.cli.commands import main
from evalkit.llm import model_lifecycle
from evalkit.llm.capabilities import UNKNOWN, Capabilities, CapabilityTable, bundled, table_info
from evalkit.llm.model_lifecycle import LifecycleTable, write_api_cache
from evalkit.llm.providers.anthropic import AnthropicProvider
from evalkit.llm.providers.interface import ModelRequest, ModelResponse
from evalkit.testing.script import Script

FORMAT = {
    "type": "json_schema",
    "schema": {
        "type": "object",
        "title": "t",
        "additionalProperties": False,
        "required": ["x"],
        "properties": {"x": {"type": "integer"}},
    },
}
THINKING = {"type": "enabled", "budget_tokens": 1024}


def test_evalkits_table_says_where_its_data_comes_from_and_covers_every_model_of_the_sdk():
    from evalkit.engine.model_listing import sdk_models

    raw = table_info()
    assert raw["as_of"] and len(raw["sources"]) >= 3 and any("MIGRATION" in s for s in raw["sources"])
    table = bundled()
    missing = [m for m in sdk_models() if m not in table]
    assert not missing, f"models of the installed SDK missing from capabilities.json: {missing}"
    haiku = table["claude-haiku-4-5-20251001"]
    assert haiku.structured_outputs and haiku.thinking_types == {"enabled", "disabled"} and haiku.sampling
    assert haiku.legacy == "claude-haiku-5-5" and haiku.source == f"evalkit table {raw['as_of']}"
    assert table["claude-haiku-5-5"].thinks_by_default and table["claude-haiku-5-5"].sampling is False
    sonnet = table["claude-sonnet-5-5"]
    assert sonnet.thinking_types == {"adaptive", "between_tools"} and sonnet.forced_tool is False
    assert CapabilityTable().of("claude-unlisted-1") == UNKNOWN and UNKNOWN.structured_outputs is None


def test_rules_fill_in_what_an_entry_does_not_say():
    never_off = Capabilities(thinking_types=frozenset({"adaptive"})).derived()
    assert never_off.thinks_by_default is True and never_off.forced_tool is False
    no_thinking = Capabilities(thinking_types=frozenset()).derived()
    assert no_thinking.thinking is False and no_thinking.thinks_by_default is False
    can_stop = Capabilities(thinking_types=frozenset({"adaptive", "disabled"})).derived()
    assert can_stop.thinks_by_default is None and can_stop.forced_tool is None


def test_the_apis_answer_wins_and_an_answer_without_capabilities_leaves_the_table(tmp_path):
    write_api_cache(
        tmp_path,
        {
            "claude-haiku-4-5-20251001": {
                "lifecycle": "active",
                "retires_at": None,
                "structured_outputs": False,
                "thinking": {"enabled": True, "disabled": True},
                "effort": [],
            },
            "claude-new-1": {
                "lifecycle": "active",
                "retires_at": None,
                "structured_outputs": True,
                "thinking": {"adaptive": True},
                "effort": ["low", "max"],
            },
            "claude-sonnet-4-6": {"lifecycle": "active", "retires_at": None},  # saved by an older evalkit
        },
    )
    table = CapabilityTable(LifecycleTable(tmp_path))
    haiku = table.of("claude-haiku-4-5-20251001")
    assert haiku.structured_outputs is False and haiku.source.startswith("API ")
    assert haiku.sampling is True and haiku.legacy == "claude-haiku-5-5"  # what the API does not list: the table's
    new = table.of("claude-new-1")
    assert new.thinking_types == {"adaptive"} and new.effort == ("low", "max")
    assert new.thinks_by_default is True and new.forced_tool is False and new.sampling is None  # derived; unknown
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
    thinking = ModelRequest(
        model="m", messages=plain.messages, max_tokens=2048, output_format=FORMAT, thinking=THINKING
    )
    assert formatted.to_api_body()["output_config"] == {"format": FORMAT} and "thinking" not in formatted.to_api_body()
    assert thinking.to_api_body()["thinking"] == THINKING
    assert "output_config" not in plain.to_api_body()
    assert len({plain.cache_key(), formatted.cache_key(), thinking.cache_key()}) == 3


def test_a_reply_with_thinking_keeps_only_its_text():
    reply = {
        "model": "m",
        "stop_reason": "end_turn",
        "usage": {"input_tokens": 3, "output_tokens": 9},
        "content": [
            {"type": "thinking", "thinking": "hmm, x is 4", "signature": "sig"},
            {"type": "redacted_thinking", "data": "opaque"},
            {"type": "text", "text": '{"x": 4}'},
        ],
    }
    response = ModelResponse.from_api_message(reply)
    assert response.text == '{"x": 4}' and response.tool_input is None


def test_the_provider_sends_them_as_the_sdks_own_parameters(fake_anthropic):
    fake = fake_anthropic(Script().tool_reply("t", {"x": 4}))
    provider = AnthropicProvider(api_key="k", base_url=fake.url)
    request = ModelRequest(
        model="claude-haiku-4-5",
        messages=({"role": "user", "content": "x?"},),
        max_tokens=2048,
        output_format=FORMAT,
        thinking=THINKING,
    )

    async def ask():
        try:
            return await provider.generate(request)
        finally:
            await provider.aclose()

    response = asyncio.run(ask())
    [body] = fake.requests
    assert body["output_config"] == {"format": FORMAT} and body["thinking"] == THINKING
    assert json.loads(response.text) == {"x": 4}


def test_models_shows_how_each_model_is_asked(monkeypatch, fake_anthropic, anthropic_env):
    monkeypatch.setattr(model_lifecycle, "today", lambda: date(2026, 11, 25))
    fake = fake_anthropic(Script())
    fake.models = [
        {
            "id": "claude-sonnet-4-6",
            "lifecycle": "active",
            "retires_at": None,
            "structured_outputs": False,
            "thinking": True,
        }
    ]
    env = anthropic_env(fake)
    out = CliRunner().invoke(main, ["models"], env=env).output
    header, *lines = out.splitlines()
    assert "verdict asked by" in header and "thinks by default" in header and "sampling" in header
    rows = {line.split()[0]: line for line in lines if line.startswith("claude-")}
    assert "forced tool, thinking off" in rows["claude-sonnet-4-6"]  # the API's word: no structured outputs
    assert "strict tool, thinking off" in rows["claude-haiku-5-5"]  # evalkit's table
    assert "output format, its own thinking, effort low" in rows["claude-sonnet-5-5"]
    assert "yes: use claude-haiku-5-5" in rows["claude-haiku-4-5-20251001"]
    assert any(line.startswith("capabilities: API ") for line in lines)


def test_models_offline_lists_every_sdk_model_with_a_route_and_the_tables_date(monkeypatch, tmp_path):
    from evalkit.engine.model_listing import sdk_models

    monkeypatch.setattr(model_lifecycle, "today", lambda: date(2026, 11, 29))
    result = CliRunner().invoke(
        main, ["models", "--all"], env={"ANTHROPIC_API_KEY": "", "EVALKIT_CACHE_DIR": str(tmp_path / "c")}
    )
    assert result.exit_code == 0, result.output
    rows = {line.split()[0]: line for line in result.output.splitlines() if line.startswith("claude-")}
    for model in sdk_models():
        assert model in rows and "none:" not in rows[model] and "(not in the table)" not in rows[model], model
    note = [line for line in result.output.splitlines() if line.startswith("capabilities: ")]
    assert note and table_info()["as_of"] in note[0] and "sources: " in note[0]
