"""Dollar cost of one model call, from `genai-prices` (pydantic's maintained price database:
current Claude models, long-context tiers, prompt-cache and Message Batches prices).

A model the database does not know is reported as unpriced, never guessed. Prices are per
call, because the long-context tiers depend on one request's prompt size, not on a total.
"""

from __future__ import annotations

import functools
from typing import Any

# Anthropic charges Message Batches at half the standard rates (cache reads and writes too).
# Used only for a model whose database entry carries no batch price of its own.
BATCH_DISCOUNT = 0.5
PROVIDER = "anthropic"


def cost_usd(model: str, input_tokens: int, output_tokens: int, *, cache_read_tokens: int = 0,
             cache_write_tokens: int = 0, batch: bool = False) -> float | None:
    """Cost of one call in US dollars, or None when the model has no known price.

    `input_tokens` is the Messages API's count, which excludes the prompt-cache tokens (the
    price database counts them inside its input total, so they are added here).
    """
    entry = _model(model)
    if entry is None:
        return None
    from genai_prices import Usage  # price data loads on first use: it is 1.6 MB of Python

    usage = Usage(input_tokens=input_tokens + cache_read_tokens + cache_write_tokens,
                  output_tokens=output_tokens, cache_read_tokens=cache_read_tokens,
                  cache_write_tokens=cache_write_tokens)
    provider, info = entry
    own_batch_price = batch and _has_batch_price(info)
    price = info.calc_price(usage, provider, price_context={"processing": "batch"} if own_batch_price else None)
    total = float(price.total_price)
    return total * BATCH_DISCOUNT if batch and not own_batch_price else total


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
