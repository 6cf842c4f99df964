"""Prices come from genai-prices; evalkit adds only the batch fallback and the API's token split."""

from __future__ import annotations

from pathlib import Path

import genai_prices
import pytest

from evalkit.planning import estimate
from evalkit.pricing import BATCH_DISCOUNT, cost_usd
from evalkit.providers.base import ModelResponse
from evalkit.usage import Usage

CURRENT = ["claude-sonnet-5-5", "claude-sonnet-5", "claude-haiku-5-5", "claude-opus-4-7", "claude-opus-5-5",
           "claude-haiku-4-5-20251001"]


def library_price(model: str, **tokens: int) -> float:
    return float(genai_prices.calc_price(genai_prices.Usage(**tokens), model, provider_id="anthropic").total_price)


@pytest.mark.parametrize("model", CURRENT)
def test_current_claude_models_are_priced_by_the_library(model: str) -> None:
    assert cost_usd(model, 2000, 500) == pytest.approx(library_price(model, input_tokens=2000, output_tokens=500))
    assert cost_usd(model, 2000, 500) > 0


def test_an_unknown_model_is_unpriced_not_guessed() -> None:
    assert cost_usd("claude-made-up-9", 1000, 1000) is None
    usage = Usage()
    usage.record(ModelResponse(text="x", model="claude-made-up-9", input_tokens=10, output_tokens=10), cached=False)
    assert usage.unpriced_calls == 1 and usage.cost_usd == 0


def test_prompt_cache_tokens_are_priced_apart_from_input() -> None:
    model = "claude-sonnet-5-5"
    plain = cost_usd(model, 10_000, 0)
    read = cost_usd(model, 0, 0, cache_read_tokens=10_000)
    write = cost_usd(model, 0, 0, cache_write_tokens=10_000)
    assert plain and read and write
    assert read < plain < write  # a cache read costs a tenth-ish, a write a premium
    # The API's input_tokens excludes cache tokens; the library counts them inside its input total.
    assert read == pytest.approx(library_price(model, input_tokens=10_000, cache_read_tokens=10_000))
    usage = Usage()
    usage.record(ModelResponse(text="x", model=model, input_tokens=100, cache_read_tokens=10_000,
                               cache_write_tokens=2_000), cached=False)
    assert (usage.cache_read_tokens, usage.cache_write_tokens) == (10_000, 2_000)
    assert usage.cost_usd == pytest.approx(cost_usd(model, 100, 0, cache_read_tokens=10_000,
                                                    cache_write_tokens=2_000))


@pytest.mark.parametrize("model", CURRENT)
def test_batch_calls_cost_half(model: str) -> None:
    assert cost_usd(model, 3000, 700, batch=True) == pytest.approx(BATCH_DISCOUNT * cost_usd(model, 3000, 700))
    usage = Usage()
    usage.record(ModelResponse(text="x", model=model, input_tokens=3000, output_tokens=700, batch=True), False)
    assert usage.cost_usd == pytest.approx(cost_usd(model, 3000, 700, batch=True))


def test_plan_prices_a_prompt_target_suite_at_half_with_batch(tmp_path) -> None:
    from evalkit.engine import load_suites

    (tmp_path / "s.yml").write_text("target: {prompt: 'Greet {{ who }}'}\nmodel: claude-sonnet-4-6\n"
                                    "cases: [{id: a, input: {who: Ada}, rubric: [{id: p, judge: polite}]}]\n")
    est = estimate(load_suites([tmp_path / "s.yml"]))
    assert est.cost()[0] > 0 and est.batch_cost() == pytest.approx(est.cost()[0] * BATCH_DISCOUNT)


def test_plan_prices_interactive_and_batch(tmp_path) -> None:
    from evalkit.engine import load_suites

    suites = load_suites([Path(__file__).parents[1] / "suites" / "pace_ai"])
    est = estimate(suites)
    total, unpriced = est.cost()
    assert total > 0 and not unpriced
    # pace-ai's coach is Python: under --batch its own calls stay interactive, judge and extraction halve.
    assert total * BATCH_DISCOUNT < est.batch_cost() < total
    text = est.render()
    assert f"${total:.2f} interactive" in text and f"${est.batch_cost():.2f} with --batch" in text
    unknown = estimate(suites, model="claude-made-up-9")
    assert unknown.cost()[1] == ["claude-made-up-9"]
