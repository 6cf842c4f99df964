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
        # The fields are written in `__dict__`, where pydantic keeps them: an assignment through
        # the model's `__setattr__` costs ten times more, and every call is recorded in three
        # scopes (run, model, case). Nothing reads which fields were set (`exclude_unset`).
        fields = self.__dict__
        if cached:
            fields["cache_hits"] += 1
            return
        fields["calls"] += 1
        if response.faults:
            retried = fields["retried"]
            for kind, n in response.faults.items():
                retried[kind] = retried.get(kind, 0) + n
        fields["input_tokens"] += response.input_tokens
        fields["output_tokens"] += response.output_tokens
        fields["cache_read_tokens"] += response.cache_read_tokens
        fields["cache_write_tokens"] += response.cache_write_tokens
        cost = call_cost(response)
        if cost is None:
            fields["unpriced_calls"] += 1
        else:
            fields["cost_usd"] += cost

    @property
    def faults_absorbed(self) -> int:
        return sum(self.retried.values())

    def add(self, other: "Usage") -> None:
        mine, theirs = self.__dict__, other.__dict__  # written as in `record`
        for name in _COUNTS:
            mine[name] += theirs[name]
        if theirs["retried"]:
            retried = mine["retried"] = dict(mine["retried"])  # a copy: `other` may share its dict
            for kind, n in theirs["retried"].items():
                retried[kind] = retried.get(kind, 0) + n


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
