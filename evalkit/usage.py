"""Calls, tokens and dollars, counted per run, suite, case and model."""

from __future__ import annotations

from pydantic import BaseModel, Field

from evalkit.pricing import cost_usd
from evalkit.providers.base import ModelResponse


class Usage(BaseModel):
    """Calls, tokens and dollars; cache hits cost nothing and are counted apart."""

    calls: int = 0
    cache_hits: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    cost_usd: float = 0.0
    unpriced_calls: int = 0
    retried: dict[str, int] = Field(default_factory=dict, description="Faults absorbed by retries, by kind "
                                    "(rate_limited, overloaded, server_error, bad_reply, connection): each "
                                    "failed attempt of a call that then succeeded.")

    def record(self, response: ModelResponse, cached: bool) -> None:
        if cached:
            self.cache_hits += 1
            return
        self.calls += 1
        for kind, n in response.faults.items():
            self.retried[kind] = self.retried.get(kind, 0) + n
        # Only the counts a call changes: each assignment to a pydantic field costs about 0.2 µs
        # (its `__setattr__` dispatch), and every call is recorded in three scopes (run, model, case).
        if response.input_tokens:
            self.input_tokens += response.input_tokens
        if response.output_tokens:
            self.output_tokens += response.output_tokens
        if response.cache_read_tokens:
            self.cache_read_tokens += response.cache_read_tokens
        if response.cache_write_tokens:
            self.cache_write_tokens += response.cache_write_tokens
        cost = call_cost(response)
        if cost is None:
            self.unpriced_calls += 1
        elif cost:
            self.cost_usd += cost

    @property
    def faults_absorbed(self) -> int:
        return sum(self.retried.values())

    def add(self, other: "Usage") -> None:
        for name in _FIELDS:
            theirs = getattr(other, name)
            if not theirs:
                continue  # nothing to add: no assignment
            mine = getattr(self, name)
            if isinstance(mine, dict):
                setattr(self, name, {k: mine.get(k, 0) + theirs.get(k, 0) for k in {**mine, **theirs}})
            else:
                setattr(self, name, mine + theirs)


_FIELDS = tuple(Usage.model_fields)


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


_UNSET = object()


def call_cost(response: ModelResponse) -> float | None:
    """The call's dollars, priced once although the call is counted in several scopes."""
    cost = response.__dict__.get("_cost", _UNSET)
    if cost is _UNSET:
        cost = cost_usd(response.model, response.input_tokens, response.output_tokens,
                        cache_read_tokens=response.cache_read_tokens,
                        cache_write_tokens=response.cache_write_tokens, batch=response.batch)
        response.__dict__["_cost"] = cost
    return cost
