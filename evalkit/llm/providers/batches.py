"""The small interface a Message Batches API offers evalkit (the Anthropic SDK's
`messages.batches` behind `evalkit.llm.providers.anthropic.AnthropicBatches`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, AsyncIterator, Protocol

from evalkit.llm.providers.interface import ModelResponse


@dataclass(frozen=True)
class BatchStatus:
    id: str
    ended: bool
    counts: dict[str, int]  # processing, succeeded, errored, canceled, expired


@dataclass(frozen=True)
class BatchResult:
    """One request's result: `kind` is succeeded (with `response`), errored (with `error`), canceled
    or expired. `retryable` is False only for an error a second try cannot mend (an invalid request)."""

    custom_id: str
    kind: str
    response: ModelResponse | None = None
    error: str | None = None
    retryable: bool = True


class BatchAPI(Protocol):
    """Create a batch of `{"custom_id", "params"}` requests, look at it, read its results.

    Raises `ProviderError` (with `retryable` and `status`) for a failed HTTP call."""

    async def create(self, requests: list[dict[str, Any]]) -> BatchStatus: ...

    async def retrieve(self, batch_id: str) -> BatchStatus: ...

    def results(self, batch_id: str) -> AsyncIterator[BatchResult]: ...

    async def cancel(self, batch_id: str) -> BatchStatus: ...
