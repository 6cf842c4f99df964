"""The Batcher: model calls that can wait go into Message Batches instead of one request each.

Calls arrive one by one (a case's prompt-target call, then its judge and extraction calls once
the output exists) and are gathered into waves: a wave closes when no new call has arrived for
`gather` seconds (or after `max_wait`, or at the API's size limits) and is submitted as one
batch. The run's first wave is every prompt-target call; the next holds the judge and extraction
calls for those outputs. Each batch is polled with a growing interval until it ends, and its
results (in no particular order) are matched to the waiting calls by `custom_id`, which is the
call's cache key. A request that errored, expired or was canceled goes once more, into the next
wave; a second failure raises ProviderError, which the runner turns into an error row.

Submitted batches are saved in a BatchStore; a run started again with the same store picks up
their results by batch id instead of submitting the same requests again.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import json
from dataclasses import dataclass
from typing import Any, Awaitable, Callable, TypeVar

from evalkit.errors import ProviderError
from evalkit.llm.batching.store import BatchStore
from evalkit.llm.providers.batches import BatchAPI, BatchResult
from evalkit.llm.providers.interface import ModelRequest, ModelResponse

# Set by a call that may wait for a batch (a prompt target's one request). A callable target's own
# calls are not: an agent may chain several calls, each of which would wait for a whole batch.
batch_eligible: contextvars.ContextVar[bool] = contextvars.ContextVar("evalkit_batch_eligible", default=False)
BATCHED_ROLES = frozenset({"judge", "extraction"})

MAX_REQUESTS = 100_000  # the API's limit per batch
MAX_BYTES = 200_000_000  # under the API's 256 MB per batch, with room for the JSON around the params

T = TypeVar("T")


@dataclass(frozen=True)
class PollPolicy:
    """Seconds between looks at a batch (growing from `first` by `factor` up to `most`), and how
    a wave is gathered: it closes after `gather` quiet seconds, or `max_wait` at the latest."""

    first: float = 5.0
    factor: float = 1.5
    most: float = 60.0
    gather: float = 0.5
    max_wait: float = 10.0
    api_attempts: int = 8  # tries of one create/retrieve/results call that fails transiently


@dataclass
class BatchStats:
    batches: int = 0  # batches this run submitted
    requests: int = 0  # requests in them
    resumed: int = 0  # requests answered by a batch an earlier, interrupted run submitted
    retried: int = 0  # requests sent again after an errored, expired or canceled result


class Batcher:
    """Sends the calls it `takes` through a BatchAPI; see the module docstring."""

    def __init__(
        self,
        api: BatchAPI,
        store: BatchStore | None = None,
        *,
        poll: PollPolicy = PollPolicy(),
        log: Callable[[str], None] | None = None,
    ):
        self.api = api
        self.store = store
        self.poll = poll
        self.stats = BatchStats()
        self._log = log or (lambda message: None)
        self._pending: list[tuple[str, dict[str, Any]]] = []
        self._pending_bytes = 0
        self._pending_keys: set[str] = set()
        self._waiting: dict[str, asyncio.Future[BatchResult]] = {}
        self._saved = store.by_custom_id() if store is not None else {}  # custom id -> an earlier run's batch
        self._ready: dict[str, BatchResult] = {}  # results of resumed batches no call has asked for yet
        self._followed: set[str] = set()
        self._collector: asyncio.Task[None] | None = None
        self._tasks: set[asyncio.Task[Any]] = set()

    def takes(self, role: str) -> bool:
        return role in BATCHED_ROLES or (role == "target" and batch_eligible.get())

    async def generate(self, request: ModelRequest, key: str) -> ModelResponse:
        """The reply to `request` (whose cache key is `key`), answered through a batch."""
        result = await self._answer(key, request, resume=True)
        retried = False
        if result.kind != "succeeded" and result.retryable:
            self.stats.retried += 1
            retried = True
            result = await self._answer(key, request, resume=False)
        if result.kind == "succeeded" and result.response is not None:
            result.response.batch = True
            return result.response
        why = f": {result.error}" if result.error else ""
        raise ProviderError(
            f"Message Batches request {result.kind}{why}{' (after a retry)' if retried else ''}", retryable=False
        )

    def finished(self) -> None:
        """The run completed: its batches need not be resumed."""
        if self.store is not None:
            self.store.clear()

    # -- gathering waves -------------------------------------------------------------------

    async def _answer(self, key: str, request: ModelRequest, *, resume: bool) -> BatchResult:
        if resume:
            if key in self._ready:
                self.stats.resumed += 1
                return self._ready.pop(key)
            batch_id = self._saved.get(key)
            if batch_id is not None:
                future = self._future(key)
                self._follow_saved(batch_id)
                result = await future
                if result.kind == "succeeded":
                    self.stats.resumed += 1
                return result
        future = self._future(key)
        self._enqueue(key, request.to_api_body())
        return await future

    def _future(self, key: str) -> asyncio.Future[BatchResult]:
        future = self._waiting.get(key)
        if future is None or future.done():
            future = asyncio.get_running_loop().create_future()
            self._waiting[key] = future
        return future

    def _enqueue(self, key: str, params: dict[str, Any]) -> None:
        if key in self._pending_keys:
            return  # already in the wave being gathered (the same request asked twice)
        size = len(json.dumps(params))
        if self._pending and (len(self._pending) >= MAX_REQUESTS or self._pending_bytes + size > MAX_BYTES):
            self._flush()
        self._pending.append((key, params))
        self._pending_keys.add(key)
        self._pending_bytes += size
        if self._collector is None or self._collector.done():
            self._collector = self._spawn(self._gather())

    async def _gather(self) -> None:
        loop = asyncio.get_running_loop()
        start, seen = loop.time(), -1
        while self._pending and len(self._pending) != seen and loop.time() - start < self.poll.max_wait:
            seen = len(self._pending)
            await asyncio.sleep(self.poll.gather)
        self._flush()

    def _flush(self) -> None:
        wave, self._pending, self._pending_bytes = self._pending, [], 0
        self._pending_keys = set()
        if wave:
            self._spawn(self._submit(wave))

    # -- one batch -------------------------------------------------------------------------

    async def _submit(self, wave: list[tuple[str, dict[str, Any]]]) -> None:
        ids = [key for key, _ in wave]
        requests = [{"custom_id": key, "params": params} for key, params in wave]
        try:
            status = await self._api_call(functools.partial(self.api.create, requests))
        except ProviderError as exc:
            self._give_up(ids, set(), f"the batch could not be submitted: {exc}", retryable=False)
            return
        del requests, wave  # the params are no longer needed: free them while the batch runs
        if self.store is not None:
            self.store.add(status.id, ids)
        self.stats.batches += 1
        self.stats.requests += len(ids)
        saved = f" (saved in {self.store.path}: a run interrupted now resumes it)" if self.store is not None else ""
        self._log(f"Message Batch {status.id}: {len(ids)} requests submitted{saved}")
        await self._follow(status.id, ids, first=self.poll.first, resumed=False)

    def _follow_saved(self, batch_id: str) -> None:
        if batch_id in self._followed:
            return
        self._followed.add(batch_id)
        ids = self.store.batches.get(batch_id, []) if self.store is not None else []
        self._log(f"Message Batch {batch_id}: resuming ({len(ids)} requests submitted by an earlier run)")
        self._spawn(self._follow(batch_id, ids, first=0.0, resumed=True))

    async def _follow(self, batch_id: str, ids: list[str], *, first: float, resumed: bool) -> None:
        delivered: set[str] = set()
        why = f"no result for this request in Message Batch {batch_id}"
        try:
            delay = first
            while True:
                await asyncio.sleep(delay)
                status = await self._api_call(lambda: self.api.retrieve(batch_id))
                if status.ended:
                    break
                delay = min(self.poll.most, delay * self.poll.factor) if delay else self.poll.first
            counts = ", ".join(f"{n} {k}" for k, n in status.counts.items() if n)
            self._log(f"Message Batch {batch_id}: ended ({counts or 'empty'})")
            await self._api_call(lambda: self._read_results(batch_id, delivered, resumed))
        except ProviderError as exc:
            why = f"Message Batch {batch_id} could not be read: {exc}"
            self._log(why)
        self._give_up(ids, delivered, why, retryable=True)
        if resumed:
            for key in ids:
                if self._saved.get(key) == batch_id:
                    del self._saved[key]

    async def _read_results(self, batch_id: str, delivered: set[str], resumed: bool) -> None:
        async for result in self.api.results(batch_id):
            if result.custom_id in delivered:
                continue  # a second read after a broken stream
            delivered.add(result.custom_id)
            future = self._waiting.pop(result.custom_id, None)
            if future is not None and not future.done():
                future.set_result(result)
            elif resumed:
                self._ready[result.custom_id] = result

    def _give_up(self, ids: list[str], delivered: set[str], why: str, *, retryable: bool) -> None:
        """Answer every call still waiting on this batch with an error result."""
        for key in ids:
            if key in delivered:
                continue
            future = self._waiting.pop(key, None)
            if future is not None and not future.done():
                future.set_result(BatchResult(key, "errored", error=why, retryable=retryable))

    async def _api_call(self, call: Callable[[], Awaitable[T]]) -> T:
        """One call of the batch API, tried again on a transient failure with growing pauses."""
        attempt = 0
        while True:
            attempt += 1
            try:
                return await call()
            except ProviderError as exc:
                if not exc.retryable or attempt >= self.poll.api_attempts:
                    raise
                pause = exc.retry_after if exc.retry_after is not None else 0.5 * 2**attempt
                await asyncio.sleep(min(pause, self.poll.most))

    def _spawn(self, coro: Any) -> asyncio.Task[Any]:
        task: asyncio.Task[Any] = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task
