"""Prices come from genai-prices; evalkit adds only the batch fallback and the API's token split."""

from __future__ import annotations

from pathlib import Path

import genai_prices
import pytest

from evalkit.engine.planning import estimate
from evalkit.llm.pricing import BATCH_DISCOUNT, cost_usd
from evalkit.llm.providers.interface import ModelResponse
from evalkit.llm.usage import Usage

CURRENT = [
    "claude-sonnet-5-5",
    "claude-sonnet-5",
    "claude-haiku-5-5",
    "claude-opus-4-7",
    "claude-opus-5-5",
    "claude-haiku-4-5-20251001",
]


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
    usage.record(
        ModelResponse(text="x", model=model, input_tokens=100, cache_read_tokens=10_000, cache_write_tokens=2_000),
        cached=False,
    )
    assert (usage.cache_read_tokens, usage.cache_write_tokens) == (10_000, 2_000)
    assert usage.cost_usd == pytest.approx(cost_usd(model, 100, 0, cache_read_tokens=10_000, cache_write_tokens=2_000))


@pytest.mark.parametrize("model", CURRENT)
def test_batch_calls_cost_half(model: str) -> None:
    assert cost_usd(model, 3000, 700, batch=True) == pytest.approx(BATCH_DISCOUNT * cost_usd(model, 3000, 700))
    usage = Usage()
    usage.record(ModelResponse(text="x", model=model, input_tokens=3000, output_tokens=700, batch=True), False)
    assert usage.cost_usd == pytest.approx(cost_usd(model, 3000, 700, batch=True))


def test_plan_prices_a_prompt_target_suite_at_half_with_batch(tmp_path) -> None:
    from evalkit.engine import load_suites

    (tmp_path / "s.yml").write_text(
        "target: {prompt: 'Greet {{ who }}'}\nmodel: claude-sonnet-4-6\n"
        "cases: [{id: a, input: {who: Ada}, rubric: [{id: p, judge: polite}]}]\n"
    )
    est = estimate(load_suites([tmp_path / "s.yml"]))
    assert est.cost()[0] > 0 and est.batch_cost() == pytest.approx(est.cost()[0] * BATCH_DISCOUNT)


@pytest.mark.slow  # the plan runs the suite's targets in workers: over 8 s on a loaded machine
def test_plan_prices_interactive_and_batch(tmp_path) -> None:
    from evalkit.engine import load_suites

    suites = load_suites([Path(__file__).parents[2] / "suites" / "pace_ai"])
    est = estimate(suites)
    total, unpriced = est.cost()
    assert total > 0 and not unpriced
    # pace-ai's coach is Python: under --batch its own calls stay interactive, judge and extraction halve.
    assert total * BATCH_DISCOUNT < est.batch_cost() < total
    text = est.render()
    assert f"${total:.2f} interactive" in text and f"${est.batch_cost():.2f} with --batch" in text
    unknown = estimate(suites, model="claude-made-up-9")
    assert unknown.cost()[1] == ["claude-made-up-9"]


TOKENS = [
    (0, 0, 0, 0),
    (1, 1, 0, 0),
    (2000, 500, 0, 0),
    (123_457, 8_009, 31_337, 4_096),
    (250_000, 1_000, 0, 0),
    (180_000, 0, 30_000, 0),
    (999_999, 77_777, 0, 123_456),
]


@pytest.mark.parametrize("model", [*CURRENT, "claude-sonnet-4-5", "claude-sonnet-4", "claude-3-5-haiku-latest"])
@pytest.mark.parametrize("batch", [False, True])
def test_per_token_rates_give_exactly_the_librarys_cost(model: str, batch: bool) -> None:
    # Flat-priced models are priced from rates asked of the library once; tiered ones (long context
    # above 200k input tokens) call the library each time. Either way the dollars are the library's.
    from evalkit.llm.pricing import _library_cost

    for tokens in TOKENS:
        expected = _library_cost(model, *tokens, batch=batch)
        read, write = tokens[2], tokens[3]
        got = cost_usd(model, tokens[0], tokens[1], cache_read_tokens=read, cache_write_tokens=write, batch=batch)
        assert got == (None if expected is None else float(expected)), tokens


def test_a_flat_priced_model_asks_the_library_once_not_every_call(monkeypatch) -> None:
    import evalkit.llm.pricing as pricing

    calls = []
    real = pricing._library_cost
    monkeypatch.setattr(pricing, "_library_cost", lambda *a, **k: calls.append(a) or real(*a, **k))
    pricing._flat_rates.cache_clear()
    for n in range(50):
        assert cost_usd("claude-haiku-4-5-20251001", 1000 + n, n) == pytest.approx(
            library_price("claude-haiku-4-5-20251001", input_tokens=1000 + n, output_tokens=n)
        )
    assert len(calls) == 5  # one probe per kind of token and one mixed call checking them
    pricing._flat_rates.cache_clear()


def test_usage_counts_a_call_priced_once_in_every_scope_and_adds_without_sharing() -> None:
    model = "claude-haiku-4-5-20251001"
    reply = ModelResponse(text="x", model=model, input_tokens=1000, output_tokens=10, faults={"overloaded": 2})
    run, case = Usage(), Usage()
    for usage in (run, case):
        usage.record(reply, False, 0.25)  # priced by the caller
        usage.record(reply, True, None)  # a cache hit: counted apart, costs nothing
    assert (case.calls, case.cache_hits, case.input_tokens, case.cost_usd, case.retried) == (
        1,
        1,
        1000,
        0.25,
        {"overloaded": 2},
    )
    run.add(case)
    assert (run.calls, run.cache_hits, run.output_tokens, run.cost_usd, run.retried) == (
        2,
        2,
        20,
        0.5,
        {"overloaded": 4},
    )
    assert case.retried == {"overloaded": 2}  # the scope added from is left as it was
    assert Usage.model_validate(run.model_dump()) == run  # the JSON round trip the results use


def test_a_cache_hit_costs_nothing_and_its_list_price_is_counted_apart() -> None:
    """A run served from the cache compares like with like with a live one: same list cost, nothing paid."""
    model = "claude-sonnet-5-5"
    reply = ModelResponse(text="x", model=model, input_tokens=2000, output_tokens=500)
    live, cached = Usage(), Usage()
    live.record(reply, cached=False)
    cached.record(reply, cached=True)
    assert cached.cost_usd == 0 and cached.cache_hits == 1 and cached.calls == 0
    assert cached.cached_cost_usd == pytest.approx(live.cost_usd) and live.cached_cost_usd == 0
    assert cached.list_cost_usd == pytest.approx(live.list_cost_usd)
    live.add(cached)
    assert live.list_cost_usd == pytest.approx(2 * cost_usd(model, 2000, 500))
