"""Dollar cost of one model call, from `genai-prices` (pydantic's maintained price database:
current Claude models, long-context tiers, prompt-cache and Message Batches prices).

A model the database does not know is reported as unpriced, never guessed. Prices are per
call, because the long-context tiers depend on one request's prompt size, not on a total.
"""

from __future__ import annotations

import functools
import time
from decimal import Decimal
from typing import Any

# Anthropic charges Message Batches at half the standard rates (cache reads and writes too).
# Used only for a model whose database entry carries no batch price of its own.
BATCH_DISCOUNT = 0.5
PROVIDER = "anthropic"


def cost_usd(
    model: str,
    input_tokens: int,
    output_tokens: int,
    *,
    cache_read_tokens: int = 0,
    cache_write_tokens: int = 0,
    batch: bool = False,
) -> float | None:
    """Cost of one call in US dollars, or None when the model has no known price.

    `input_tokens` is the Messages API's count, which excludes the prompt-cache tokens (the
    price database counts them inside its input total, so they are added here).
    """
    tokens = (input_tokens, output_tokens, cache_read_tokens, cache_write_tokens)
    rates = _flat_rates(model, batch, int(time.time() // 3600))
    if rates is not None:
        flat = Decimal(0)
        for n, rate in zip(tokens, rates):
            if n:  # most calls have no cache tokens: Decimal products cost a microsecond each
                flat += n * rate
        return float(flat)
    total = _library_cost(model, *tokens, batch=batch)
    return None if total is None else float(total)


def _library_cost(
    model: str, input_tokens: int, output_tokens: int, cache_read_tokens: int, cache_write_tokens: int, *, batch: bool
) -> Decimal | None:
    entry = _model(model)
    if entry is None:
        return None
    from genai_prices import Usage  # price data loads on first use: it is 1.6 MB of Python

    usage = Usage(
        input_tokens=input_tokens + cache_read_tokens + cache_write_tokens,
        output_tokens=output_tokens,
        cache_read_tokens=cache_read_tokens,
        cache_write_tokens=cache_write_tokens,
    )
    provider, info = entry
    own_batch_price = batch and _has_batch_price(info)
    price = info.calc_price(usage, provider, price_context={"processing": "batch"} if own_batch_price else None)
    total = Decimal(price.total_price)
    return total * Decimal(str(BATCH_DISCOUNT)) if batch and not own_batch_price else total


_PROBE = (1234, 567, 89, 10)  # a call mixing every kind of token, below any long-context tier


@functools.lru_cache(maxsize=256)
def _flat_rates(model: str, batch: bool, hour: int) -> tuple[Decimal, ...] | None:
    """The dollars per token of each kind (input, output, cache read, cache write) when the model's
    price is flat, as it is below the long-context tiers: the library's own prices, asked for once
    an hour (a price may change on a date) instead of on every call, which costs 0.1 ms. None when
    the price has tiers (or is unknown): then every call is priced by the library itself.

    The rates are the library's cost of 1,000 tokens of one kind; they are used only if they give
    exactly the library's cost of a mixed call."""
    entry = _model(model)
    if entry is None or _tiered(entry[1]):
        return None
    unit = 1000
    rates = []
    for kind in range(4):
        cost = _library_cost(model, *(unit if k == kind else 0 for k in range(4)), batch=batch)
        if cost is None:
            return None
        rates.append(cost / unit)
    mixed = _library_cost(model, *_PROBE, batch=batch)
    return tuple(rates) if mixed == sum(n * rate for n, rate in zip(_PROBE, rates)) else None


def _tiered(info: Any) -> bool:
    from genai_prices.types import ModelPrice, TieredPrices

    prices = [info.prices] if isinstance(info.prices, ModelPrice) else [p.prices for p in info.prices]
    prices += [v.prices for v in info.price_variants or ()]
    return any(isinstance(value, TieredPrices) for price in prices for value in vars(price).values())


def is_priced(model: str) -> bool:
    return _model(model) is not None


@functools.lru_cache(maxsize=256)
def _model(model: str) -> tuple[Any, Any] | None:
    from genai_prices import data_snapshot  # likewise, on first use

    try:
        return data_snapshot.get_snapshot().find_provider_model(model, None, PROVIDER, None)
    except LookupError:
        return None


def _has_batch_price(info: Any) -> bool:
    return any(dict(v.when) == {"processing": "batch"} for v in (info.price_variants or ()))
