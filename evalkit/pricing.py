"""Prices of Claude models in US dollars per million tokens (input, output).

Figures from Anthropic's published price list; a model missing here is reported as
unpriced rather than guessed.
"""

from __future__ import annotations

PRICES_PER_MTOK: dict[str, tuple[float, float]] = {
    "claude-haiku-4-5": (1.00, 5.00),
    "claude-sonnet-4-5": (3.00, 15.00),
    "claude-sonnet-4-6": (3.00, 15.00),
    "claude-sonnet-4": (3.00, 15.00),
    "claude-opus-4-5": (5.00, 25.00),
    "claude-opus-4-6": (5.00, 25.00),
    "claude-opus-4-1": (15.00, 75.00),
    "claude-opus-4": (15.00, 75.00),
    "claude-3-7-sonnet": (3.00, 15.00),
    "claude-3-5-haiku": (0.80, 4.00),
    "claude-3-haiku": (0.25, 1.25),
}


def price_for(model: str) -> tuple[float, float] | None:
    """Price of `model`, matching dated ids (`claude-haiku-4-5-20251001`) to their family."""
    best = None
    for family, price in PRICES_PER_MTOK.items():
        if (model == family or model.startswith(family + "-")) and (best is None or len(family) > len(best[0])):
            best = (family, price)
    return best[1] if best else None


def cost_usd(model: str, input_tokens: int, output_tokens: int) -> float | None:
    price = price_for(model)
    if price is None:
        return None
    return (input_tokens * price[0] + output_tokens * price[1]) / 1_000_000
