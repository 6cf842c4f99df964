"""The budget the client asks before every call it sends (evalkit.llm.budget)."""

from __future__ import annotations

import asyncio
import json

import pytest

from evalkit.engine import load_suites, run
from evalkit.engine.planning import estimate
from evalkit.errors import UsageError
from evalkit.llm.budget import Budget, BudgetExceeded, estimated_cost, parse_max_cost, request_tokens, text_tokens
from evalkit.llm.cache import ResponseCache
from evalkit.llm.client import ModelClient
from evalkit.llm.pricing import cost_usd
from evalkit.llm.providers.interface import ModelRequest
from evalkit.run.runner import RunOptions
from evalkit.testing.script import Script
from evalkit.testing.scripted import ScriptedProvider

MODEL = "claude-haiku-4-5-20251001"


def request(text: str = "hello " * 100, max_tokens: int = 100, model: str = MODEL) -> ModelRequest:
    return ModelRequest.from_prompt(text, model=model, max_tokens=max_tokens)


def test_a_call_is_estimated_as_plan_counts_it_with_output_at_max_tokens(write):
    req = request()
    assert estimated_cost(req) == cost_usd(MODEL, request_tokens(req), 100)
    # The input tokens evalkit plan counts for a prompt target are the budget's for the request the run sends.
    suite = write(
        "s.yml",
        f"target: {{prompt: 'Say {{{{ w }}}} {'hello ' * 50}'}}\nmodel: {MODEL}\n"
        "max_tokens: 100\ncases: [{id: a, input: {w: yes}}]\n",
    )
    suites = load_suites([suite])
    [line] = estimate(suites, cache=None).lines
    provider = ScriptedProvider(Script().reply("hi"))
    run(suites, ModelClient(provider, budget=Budget(limit=1.0)), RunOptions())
    [sent] = provider.requests
    assert line.tokens[MODEL][0] == text_tokens(json.dumps(sent)) > 50


def test_the_first_refusal_stops_the_run_even_for_a_smaller_call():
    one = estimated_cost(request())
    assert one is not None
    budget = Budget(limit=2.5 * one)
    held = [budget.reserve(request()), budget.reserve(request())]
    with pytest.raises(BudgetExceeded, match="not run: budget: the next call .* would pass the budget"):
        budget.reserve(request())  # 3 in flight would pass 2.5
    for h in held:
        budget.settle(h, one / 2)
    assert budget.spent == pytest.approx(one) and budget.in_flight == 0
    with pytest.raises(BudgetExceeded):  # room again, but the run has stopped
        budget.reserve(request("hi", max_tokens=1))
    assert budget.refused == 2 and budget.stopped


def test_a_model_without_a_price_cannot_be_kept_within_a_budget():
    budget = Budget(limit=100)
    with pytest.raises(BudgetExceeded, match="no price is known for no-such-model"):
        budget.reserve(request(model="no-such-model"))


def test_cached_replies_cost_nothing_and_are_never_refused(tmp_path):
    req = request()
    cache = ResponseCache(tmp_path)
    provider = ScriptedProvider(Script().reply("hi"))
    first = ModelClient(provider, cache=cache)
    asyncio.run(first.generate(req))
    assert len(provider.requests) == 1
    # A budget smaller than the call: served from the cache all the same, and nothing spent.
    again = ModelClient(provider, cache=cache, budget=Budget(limit=1e-9))
    assert asyncio.run(again.generate(req)).text == "hi"
    assert len(provider.requests) == 1 and again.budget is not None and again.budget.spent == 0
    with pytest.raises(BudgetExceeded):
        asyncio.run(again.generate(request("another prompt")))
    assert len(provider.requests) == 1  # refused: never sent


def test_the_client_counts_what_calls_cost_against_the_budget():
    provider = ScriptedProvider(Script().reply("hi"))
    client = ModelClient(provider, budget=Budget(limit=1.0))

    async def calls() -> None:
        await asyncio.gather(*(client.generate(request(f"prompt {i}")) for i in range(5)))

    asyncio.run(calls())
    assert client.budget is not None
    assert client.budget.spent == pytest.approx(client.usage.cost_usd) and client.usage.cost_usd > 0
    assert client.budget.in_flight == 0 and client.budget.stopped is None


@pytest.mark.parametrize("value, amount", [("5", 5.0), ("0.50", 0.5), ("$2", 2.0), (" 3 ", 3.0), (1, 1.0)])
def test_a_budget_is_an_amount_of_dollars(value, amount):
    assert parse_max_cost(value) == amount


@pytest.mark.parametrize("value", ["-1", "0", "abc", "nan", "inf", "", True])
def test_a_bad_budget_is_a_usage_error(value):
    with pytest.raises(UsageError, match=r"^--max-cost .*(not an amount|more than 0)"):
        parse_max_cost(value)
