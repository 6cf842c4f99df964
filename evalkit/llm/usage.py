"""Calls, tokens and dollars, counted per run, suite, case and model."""

from __future__ import annotations

from enum import Enum

from pydantic import BaseModel, Field

from evalkit.llm.pricing import cost_usd
from evalkit.llm.providers.interface import ModelResponse


class _Price(Enum):
    """`Usage.record`'s default cost: the call is priced there."""

    HERE = "here"


class Usage(BaseModel):
    """Calls, tokens and dollars; cache hits cost nothing and are counted apart."""

    calls: int = 0
    cache_hits: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    cost_usd: float = 0.0
    cached_cost_usd: float = Field(
        default=0.0,
        description="What the cache hits' replies cost at list price when they "
        "were made live: not paid by this run, kept apart so runs compare like with like.",
    )
    unpriced_calls: int = 0
    retried: dict[str, int] = Field(
        default_factory=dict,
        description="Faults absorbed by retries, by kind "
        "(rate_limited, overloaded, server_error, bad_reply, connection): each "
        "failed attempt of a call that then succeeded.",
    )

    def record(self, response: ModelResponse, cached: bool, cost: float | None | _Price = _Price.HERE) -> None:
        """Count one call. `cost` is its dollars when the caller has priced it already (a call is
        counted in several scopes: run, model, case), else it is priced here."""
        if cost is _Price.HERE:
            cost = call_cost(response)
        if cached:
            self.cache_hits += 1
            if cost is not None:
                self.cached_cost_usd += cost
            return
        self.calls += 1
        if response.faults:
            retried = self.retried
            for kind, n in response.faults.items():
                retried[kind] = retried.get(kind, 0) + n
        self.input_tokens += response.input_tokens
        self.output_tokens += response.output_tokens
        self.cache_read_tokens += response.cache_read_tokens
        self.cache_write_tokens += response.cache_write_tokens
        if cost is None:
            self.unpriced_calls += 1
        else:
            self.cost_usd += cost

    @property
    def list_cost_usd(self) -> float:
        """Every call at list price, live or from the cache: what the same run costs with no cache."""
        return self.cost_usd + self.cached_cost_usd

    @property
    def faults_absorbed(self) -> int:
        return sum(self.retried.values())

    def add(self, other: "Usage") -> None:
        for name in _COUNTS:
            setattr(self, name, getattr(self, name) + getattr(other, name))
        if other.retried:
            retried = dict(self.retried)  # a copy: `other` may share its dict
            for kind, n in other.retried.items():
                retried[kind] = retried.get(kind, 0) + n
            self.retried = retried


_COUNTS = tuple(name for name in Usage.model_fields if name != "retried")


def fault_kind(status: int | None) -> str:
    """The kind of a failed attempt, from its HTTP status (None: no reply at all)."""
    if status is None:
        return "connection"
    if status == 429:
        return "rate_limited"
    if status == 529:
        return "overloaded"
    if status >= 500:
        return "server_error"
    return "bad_reply" if status == 200 else f"http_{status}"


def call_cost(response: ModelResponse) -> float | None:
    """The call's dollars, or None when its model has no known price."""
    return cost_usd(
        response.model,
        response.input_tokens,
        response.output_tokens,
        cache_read_tokens=response.cache_read_tokens,
        cache_write_tokens=response.cache_write_tokens,
        batch=response.batch,
    )
