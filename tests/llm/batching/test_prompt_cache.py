"""Prompt caching: judge and extraction requests mark their stable prefix, a prompt target marks
its shared system prompt when the suite opts in, and the cache tokens the API reports are
counted and priced (the loopback fake writes a prefix on its first request, reads it after)."""

from __future__ import annotations

import pytest

from evalkit.engine import load_suites, make_client, run
from evalkit.errors import SuiteError
from evalkit.llm.providers.anthropic import AnthropicProvider
from evalkit.run.runner import RunOptions
from evalkit.testing.fake_anthropic import FakeAnthropicServer
from evalkit.testing.script import requested_tool
from tests.llm.batching.test_batch_runs import MODEL, SUITE, coach_script

# claude-sonnet-4-6 per million tokens (genai-prices): input $3, output $15, cache read $0.30, write $3.75.
PRICES = {"input": 3.0, "output": 15.0, "read": 0.30, "write": 3.75}


def run_on_fake(suite, fake):
    client = make_client(AnthropicProvider(api_key="k", base_url=fake.url), no_cache=True, deprecated=None)
    return run(load_suites([suite]), client, RunOptions())


def test_judge_and_extraction_prefixes_are_written_once_then_read_and_priced_as_such(write, fake_anthropic):
    suite = write("coach.yml", SUITE)
    fake = fake_anthropic(coach_script())
    report = run_on_fake(suite, fake)
    judged = [b for b in fake.requests if requested_tool(b)]
    assert judged and all(b["system"][-1]["cache_control"] == {"type": "ephemeral"} for b in judged)
    usage = report.usage
    # Three cases share one checklist and one field list: each prefix is written once and read twice.
    assert usage.cache_write_tokens > 0 and usage.cache_read_tokens == 2 * usage.cache_write_tokens
    expected = (
        usage.input_tokens * PRICES["input"]
        + usage.output_tokens * PRICES["output"]
        + usage.cache_read_tokens * PRICES["read"]
        + usage.cache_write_tokens * PRICES["write"]
    ) / 1e6
    assert usage.cost_usd == pytest.approx(expected)
    as_plain_input = (usage.input_tokens + usage.cache_read_tokens + usage.cache_write_tokens) * PRICES["input"]
    assert usage.cost_usd != pytest.approx((as_plain_input + usage.output_tokens * PRICES["output"]) / 1e6)
    (model_use,) = report.models
    assert model_use.model == MODEL and model_use.usage.cache_read_tokens == usage.cache_read_tokens


def test_a_prompt_target_caches_its_system_prompt_only_when_the_suite_opts_in(write):
    opted = SUITE.replace(
        'target: {prompt: "Coach {{ who }} for a race."}',
        'target: {prompt: "Coach {{ who }} for a race.", system: "You are a running coach.", prompt_cache: true}',
    )
    plain = opted.replace(", prompt_cache: true", "")
    for text, cached in ((opted, True), (plain, False)):
        suite = write("coach.yml", text)
        with FakeAnthropicServer(coach_script()) as fake:
            run_on_fake(suite, fake)
            targets = [b for b in fake.requests if requested_tool(b) is None]
        assert len(targets) == 3
        if cached:
            assert all(
                b["system"]
                == [{"type": "text", "text": "You are a running coach.", "cache_control": {"type": "ephemeral"}}]
                for b in targets
            )
        else:
            assert all(b["system"] == "You are a running coach." for b in targets)


def test_prompt_cache_needs_a_system_prompt(write):
    suite = write(
        "coach.yml",
        SUITE.replace(
            'target: {prompt: "Coach {{ who }} for a race."}', 'target: {prompt: "Coach {{ who }}", prompt_cache: true}'
        ),
    )
    with pytest.raises(SuiteError, match="prompt_cache: true. caches the .system. prompt"):
        load_suites([suite])
