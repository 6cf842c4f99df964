"""A suite's `max_tokens`, and the judge's request (its verdicts plus `judge_thinking`'s room), are held to
the model's own maximum output before any call: the API's `max_tokens` (`GET /v1/models`) when it was
asked, else evalkit's dated table. `validate`, `plan` and `run` refuse the same suite, exit 2, one line
naming the key, the value, the model and its maximum; the fake refuses what the API refuses."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from evalkit.cli.commands import main
from evalkit.engine import load_suites
from evalkit.errors import UsageError
from evalkit.llm.capabilities import CapabilityTable, bundled, from_api
from evalkit.llm.model_lifecycle import LifecycleTable
from evalkit.run.model_fit import refuse_unfit
from evalkit.testing.api_rules import refusal
from evalkit.testing.script import Script

SUITE = """target: {{prompt: "Greet {{{{ who }}}}"}}
model: claude-haiku-4-5
judge_model: claude-haiku-4-5
{extra}
cases:
  - {{id: c, input: {{who: ada}}, rubric: [{{id: polite, judge: It is polite}}]}}
"""


def _table(cache_dir=None):
    return CapabilityTable(LifecycleTable(cache_dir)).of


def test_every_current_model_of_the_table_has_its_maximum_or_says_it_has_none():
    known = bundled()
    assert known["claude-haiku-4-5"].max_tokens == 64_000 and known["claude-sonnet-5-5"].max_tokens == 128_000
    assert known["claude-mythos-5"].max_tokens is None  # no page read: no limit claimed


@pytest.mark.parametrize(
    "extra, message",
    [
        (
            "max_tokens: 100000",
            "`max_tokens: 100000`: model claude-haiku-4-5 writes at most 64,000 output tokens (its "
            "maximum, from the evalkit table 2026-11-29); lower max_tokens",
        ),
        (
            "judge_thinking: {budget_tokens: 64000}",
            "`judge_thinking: {budget_tokens: 64000}`: the judge's request would ask model claude-haiku-4-5 for 64,768 "
            "output tokens (64,000 for thinking, 768 for its verdicts), over its maximum of 64,000 (from the evalkit "
            "table 2026-11-29); lower judge_thinking, or choose another judge_model",
        ),
    ],
)
def test_a_request_over_the_model_s_maximum_is_refused_in_one_line(write, extra, message):
    suites = load_suites([write("s.yml", SUITE.format(extra=extra))])
    with pytest.raises(UsageError) as info:
        refuse_unfit(suites, None, None, _table())
    assert str(info.value) == f"{suites[0].path}: {message}"


def test_at_the_maximum_is_fine_and_the_api_s_answer_comes_before_the_table(write):
    suites = load_suites(
        [write("s.yml", SUITE.format(extra="max_tokens: 64000\njudge_thinking: {budget_tokens: 63000}"))]
    )
    refuse_unfit(suites, None, None, _table())
    live = from_api({"claude-haiku-4-5": {"max_tokens": 32_000}}, "API 2026-11-29", bundled())
    with pytest.raises(
        UsageError, match=r"writes at most 32,000 output tokens \(its maximum, from the API 2026-11-29\)"
    ):
        refuse_unfit(suites, None, None, lambda m: live.get(m) or bundled()[m])


def test_the_fake_refuses_a_max_tokens_over_the_model_s_as_the_api_does():
    body = {"model": "claude-haiku-4-5", "max_tokens": 64_001, "messages": [{"role": "user", "content": "hi"}]}
    refused = refusal(body)
    assert refused is not None and refused.message == (
        "max_tokens: 64001 > 64000, which is the maximum allowed number of output tokens for claude-haiku-4-5"
    )
    assert refusal({**body, "max_tokens": 64_000}) is None


@pytest.mark.parametrize("command", ["validate", "plan", "run"])
def test_validate_plan_and_run_refuse_it_before_any_call(write, tmp_path, command, fake_anthropic, anthropic_env):
    suite = write("s.yml", SUITE.format(extra="max_tokens: 9000"))
    fake = fake_anthropic(Script().reply("Hello"))
    fake.models = [{"id": "claude-haiku-4-5", "max_tokens": 8192}]  # the API's word over the table's
    env = anthropic_env(fake)
    args = [command, str(suite)] + (["-o", str(tmp_path / "r.json")] if command == "run" else [])
    result = CliRunner().invoke(main, args, env=env)
    calls = len(fake.requests)
    assert result.exit_code == 2, result.output
    assert calls == 0
    assert (
        "`max_tokens: 9000`: model claude-haiku-4-5 writes at most 8,192 output tokens (its maximum, from the API"
        in result.output
    )
