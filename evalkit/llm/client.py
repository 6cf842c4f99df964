"""The evalkit model client: every call of a target, the judge and extraction goes through
it, so each gets the concurrency limit, the one retry layer, the cache and cost accounting."""

from __future__ import annotations

import asyncio
import collections
import random
import time
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, Callable, Iterable

from evalkit._runtime.queue_time import queued
from evalkit.errors import ProviderError
from evalkit.limits import DEFAULT_CONCURRENCY
from evalkit.llm.budget import Budget, BudgetExceeded
from evalkit.llm.cache import ResponseCache
from evalkit.llm.capabilities import Capabilities, CapabilityTable
from evalkit.llm.concurrency import AdaptiveLimiter
from evalkit.llm.paid import PaidLedger
from evalkit.llm.prompt_prefix import WarmUp, marks_a_prefix
from evalkit.llm.providers.interface import ModelRequest, ModelResponse, Provider
from evalkit.llm.refusals import RunStop, run_stop
from evalkit.llm.usage import Usage, call_cost, fault_kind
from evalkit.trace.recorder import TraceRecorder


@dataclass(frozen=True)
class RetryPolicy:
    """Exponential backoff with jitter; a server's `retry-after` wins when it gives one."""

    max_attempts: int = 4
    base_delay: float = 0.5
    max_delay: float = 8.0
    max_retry_after: float = 60.0
    max_rate_limited: int = 20  # 429s a call may meet; the limiter paces and holds, they use no attempt

    def delay(self, attempt: int, retry_after: float | None) -> float:
        if retry_after is not None:
            return min(max(retry_after, 0.0), self.max_retry_after)
        return float(min(self.max_delay, self.base_delay * 2 ** (attempt - 1)) * random.uniform(0.8, 1.0))


Validator = Callable[[ModelResponse], Any]

# Finished replies the run keeps for an identical request later in it (a judge asked twice about
# the same output, a target's repeat): the most recent ones only, so memory stays flat however many
# cases run; an older one comes from the disk cache (or, with --no-cache, is asked again).
RECENT_REPLIES = 4096
NOT_SENT = "not sent: the run stopped at a refusal every case would meet (its reason ends the run's output)"


class NotSent(ProviderError):
    """A call not sent because the run stopped (ModelClient.stopped): its case is not run, not an error."""


def _valid(response: ModelResponse, validate: Validator | None) -> bool:
    if validate is None:
        return True
    try:
        validate(response)
    except ValueError:
        return False
    return True


class ModelClient:
    """Shared by every case of a run. Use `bind()` to get the client a target receives."""

    def __init__(
        self,
        provider: Provider,
        *,
        concurrency: int = DEFAULT_CONCURRENCY,
        cache: ResponseCache | None = None,
        retry: RetryPolicy = RetryPolicy(),
        deprecated: Callable[[], dict[str, str]] | None = None,
        sleep: Callable[[float], Any] = asyncio.sleep,
        budget: Budget | None = None,
        capabilities: CapabilityTable | None = None,
    ):
        if concurrency < 1:
            raise ValueError("concurrency must be at least 1")
        self.provider = provider
        self.cache = cache
        self.ledger: PaidLedger | None = None  # the run's paid calls, for a resume after a kill (evalkit/llm/paid.py)
        self.paid_earlier: collections.Counter[str] = collections.Counter()
        self.retry = retry
        self.concurrency = concurrency
        self.limiter = AdaptiveLimiter(concurrency, sleep=lambda seconds: self._sleep(seconds))
        self._in_flight: dict[str, asyncio.Future[ModelResponse]] = {}
        self._recent: OrderedDict[str, ModelResponse] = OrderedDict()
        self._deprecated = deprecated
        self._sleep = sleep
        self.usage = Usage()
        self.per_model: dict[str, Usage] = {}
        self.models_used: dict[str, set[str]] = {}
        self.warnings: list[str] = []
        self.retries = 0
        self.batcher: Any = None  # an evalkit.llm.batching.Batcher when the run sends calls as Message Batches
        self.warmup = WarmUp()  # requests sharing a prompt-cache prefix: the first writes it, the others read
        self.budget = budget  # --max-cost: asked before every call sent (cache hits and shared replies are free)
        # What each model supports (structured outputs, thinking): the API's word with a key, else evalkit's table.
        self.capabilities = capabilities if capabilities is not None else CapabilityTable()
        self.stopped: RunStop | None = None  # a refusal every case would meet: no further call is sent

    def deprecations(self) -> dict[str, str]:
        """Model id to end-of-life date, for the deprecated models known to the provider's SDK."""
        return self._deprecated() if self._deprecated is not None else {}

    def warn(self, message: str) -> None:
        if message not in self.warnings:
            self.warnings.append(message)

    def _note_model(self, model: str, role: str) -> None:
        roles = self.models_used.setdefault(model, set())
        if roles:
            roles.add(role)
            return
        roles.add(role)
        if self._deprecated is not None:
            eol = self.deprecations().get(model)
            if eol:
                self.warn(f"model {model} is deprecated and reaches end-of-life on {eol}; move to a newer model")

    async def generate(
        self,
        request: ModelRequest,
        *,
        repeat: int | str = 0,
        role: str = "target",
        scopes: Iterable[Usage] = (),
        validate: Validator | None = None,
        key: str | None = None,
        evalkit_built: bool = False,
    ) -> ModelResponse:
        """One model call: served from the run's recent replies or the disk cache when it can be. With
        `validate` (raises ValueError on a reply the caller cannot use), only a valid reply is
        cached or shared, and an invalid cached one is a miss. `key` is `request.cache_key(repeat)`
        when the caller has it already. `evalkit_built`: a target request whose shape evalkit chose
        (a prompt target's; the judge's and the extraction's always are): a refusal of it stops the
        run (evalkit.llm.refusals) instead of failing each case the same way."""
        if self.stopped is not None:
            raise NotSent(NOT_SENT)
        self._note_model(request.model, role)
        key = key or request.cache_key(repeat)
        recent = self._recent.get(key)
        if recent is not None:
            self._recent.move_to_end(key)
            response, cached = recent, True
        elif (shared := self._in_flight.get(key)) is not None:
            response, cached = await asyncio.shield(shared), True
        else:
            future: asyncio.Future[ModelResponse] = asyncio.get_running_loop().create_future()
            self._in_flight[key] = future
            try:
                response, cached, valid = await self._fetch(request, key, role, validate)
            except BaseException as exc:
                if isinstance(exc, ProviderError) and self.stopped is None:
                    self.stopped = run_stop(exc, request, role, evalkit_built or role != "target")
                # Failures are not memoised: the next identical request tries again.
                future.set_exception(exc)
                future.exception()  # mark retrieved; waiters re-raise it themselves
                raise
            else:
                future.set_result(response)  # waiters already sharing it get it, valid or not
                if valid:  # an invalid reply is not kept: later requests ask again
                    self._recent[key] = response
                    if len(self._recent) > RECENT_REPLIES:
                        self._recent.popitem(last=False)
            finally:
                del self._in_flight[key]
        self._account(response, cached, scopes)
        return response

    async def _fetch(
        self, request: ModelRequest, key: str, role: str = "target", validate: Validator | None = None
    ) -> tuple[ModelResponse, bool, bool]:
        """The reply, whether it came from the disk cache, and whether it is valid."""
        if self.cache is not None:
            hit = self.cache.get(key)
            if hit is not None and _valid(hit, validate):
                if self.paid_earlier[key] > 0:  # paid by a killed session of this run: counted as paid, once
                    self.paid_earlier[key] -= 1
                    return hit, False, True
                return hit, True, True
        if self.batcher is not None and self.batcher.takes(role):
            response = await self._batched(request, key)
        else:
            response = await self._warm_call(request)
        valid = _valid(response, validate)
        if valid and self.ledger is not None:
            self.ledger.record(key)
        if self.cache is not None and valid:
            self.cache.put(key, response)
            if self.cache.unusable:
                self.warn(self.cache.unusable)
                self.cache = None
        return response, False, valid

    async def _batched(self, request: ModelRequest, key: str) -> ModelResponse:
        """The call as part of a Message Batch; the budget holds its cost (at batch prices) until it is answered."""
        if self.budget is None:
            return await self.batcher.generate(request, key)  # type: ignore[no-any-return]  # the Batcher returns a ModelResponse; typed Any to keep batching out of this import
        reserved, cost = self.budget.reserve(request, batch=True), None
        try:
            response: ModelResponse = await self.batcher.generate(request, key)
            cost = call_cost(response)
            return response
        finally:
            self.budget.settle(reserved, cost)

    async def _warm_call(self, request: ModelRequest) -> ModelResponse:
        """The call, after any request in flight that writes the same prompt-cache prefix is answered."""
        parts = {"tools": request.tools, "system": request.system, "messages": request.messages}
        writes = await self.warmup.before(request.to_api_body(), time.monotonic()) if marks_a_prefix(parts) else []
        if not writes:
            return await self._call_with_retries(request)
        answered = False
        try:
            response = await self._call_with_retries(request)
            answered = True
            return response
        finally:
            self.warmup.after(writes, time.monotonic(), answered)

    async def _call_with_retries(self, request: ModelRequest) -> ModelResponse:
        if self.budget is None:
            return await self._attempts(request, None)
        held: list[float] = []  # the budget's hold on the call: taken with its first slot, once
        cost: float | None = None
        try:
            response = await self._attempts(request, held)
            cost = call_cost(response)
            return response
        finally:
            self.budget.settle(sum(held), cost)

    async def _attempts(self, request: ModelRequest, held: list[float] | None) -> ModelResponse:
        attempt = rate_limited = 0
        faults: dict[str, int] = {}  # met and retried: on success, the faults this call absorbed
        while True:
            attempt += 1
            try:
                async with queued(self.limiter.slot()) as slot:  # the wait for a slot is the case's queue time
                    if held is not None and not held:
                        # Asked once the call has a slot: a call still queued when the budget stops
                        # the run is never sent. A refusal is not a fault and is never retried.
                        held.append(self.budget.reserve(request))  # type: ignore[union-attr]  # held is given only with a budget
                    if self.stopped is not None:  # stopped while this call waited for its slot
                        raise NotSent(NOT_SENT)
                    try:
                        response = await self.provider.generate(request)
                    except ProviderError as exc:
                        if exc.status == 429:
                            pause = self.retry.delay(rate_limited + 1, exc.retry_after)
                            slot.rate_limited(pause, exc.rate_limit)
                        raise
                    slot.succeeded(response.rate_limit, response.input_tokens)
                    response.faults = faults
                    return response
            except BudgetExceeded:
                raise
            except ProviderError as exc:
                faults[fault_kind(exc.status)] = faults.get(fault_kind(exc.status), 0) + 1
                if exc.status == 429 and rate_limited < self.retry.max_rate_limited:
                    # The limiter has cut the window and holds every new call (this one's retry
                    # too) for the pause: a rate limit uses no attempt of the call.
                    rate_limited += 1
                    attempt -= 1
                    self.retries += 1
                    continue
                if not exc.retryable or attempt >= self.retry.max_attempts:
                    if exc.retryable:
                        raise ProviderError(
                            f"{exc} (gave up after {attempt} attempts)", retryable=False, status=exc.status
                        ) from exc
                    raise
                self.retries += 1
                await self._sleep(self.retry.delay(attempt, exc.retry_after))

    def track_paid(self, ledger: PaidLedger | None, *, resume: bool = False) -> None:
        """Keep the keys of the calls paid from now on in `ledger` (a resumed run first takes those a
        killed session paid, to count their cache hits as paid); None: the session's totals are
        written, so its ledger is emptied and no longer kept."""
        if self.ledger is not None:
            self.ledger.clear()
        self.ledger = ledger
        if ledger is not None:
            if resume:
                self.paid_earlier = ledger.earlier()
            else:
                ledger.start()

    def _account(self, response: ModelResponse, cached: bool, scopes: Iterable[Usage]) -> None:
        model = response.model or "unknown"
        per_model = self.per_model.get(model)
        if per_model is None:
            per_model = self.per_model[model] = Usage()
        cost = call_cost(response)  # priced once, counted in every scope (a cache hit's apart)
        self.usage.record(response, cached, cost)
        per_model.record(response, cached, cost)
        for usage in scopes:
            usage.record(response, cached, cost)

    def bind(
        self,
        *,
        model: str,
        repeat: int = 0,
        scopes: Iterable[Usage] = (),
        max_tokens: int = 1024,
        temperature: float | None = None,
        tiers: dict[str, str] | None = None,
    ) -> "BoundClient":
        return BoundClient(
            self,
            model=model,
            repeat=repeat,
            scopes=tuple(scopes),
            max_tokens=max_tokens,
            temperature=temperature,
            tiers=tiers or {},
        )


class BoundClient:
    """The client a target receives: defaults of its suite, and its case's repeat index."""

    def __init__(
        self,
        client: ModelClient,
        *,
        model: str,
        repeat: int,
        scopes: tuple[Usage, ...],
        max_tokens: int,
        temperature: float | None,
        tiers: dict[str, str],
    ):
        self._client = client
        self.model = model
        self.repeat = repeat
        self._scopes = scopes
        self.max_tokens = max_tokens
        self.temperature = temperature
        self.tiers = tiers
        self.truncated = False  # a target call of this run stopped at max_tokens
        self.target_requests: list[str] = []  # cache keys of the target's model requests in this run
        self.sample = 0  # >0: another sample of the same request (judge repeats), cached apart
        self.batching = client.batcher is not None  # a prompt target's call may wait for a Message Batch
        self.refused = False  # a call of this run (or of a sample) was not sent: the budget, or the run stopped
        self._origin = self  # the client whose run this is: a sample's refusal is its run's
        self.recorder = TraceRecorder()  # the target's calls as a trajectory (evalkit.trace.recorder)
        self._born = time.perf_counter()  # a step's `start` is counted from the run's beginning

    def forget_calls(self) -> None:
        """Forget the target's calls recorded so far: the target runs again from the start."""
        self.target_requests.clear()
        self.truncated = False
        self.recorder = TraceRecorder()

    def sampled(self, k: int) -> "BoundClient":
        """This client for the k-th sample of a repeated judgement: same scopes, its own cache key."""
        other = BoundClient(
            self._client,
            model=self.model,
            repeat=self.repeat,
            scopes=self._scopes,
            max_tokens=self.max_tokens,
            temperature=self.temperature,
            tiers=self.tiers,
        )
        other.sample = k
        other._origin = self._origin
        return other

    def capabilities(self, model: str) -> Capabilities:
        """What `model` supports (structured outputs, extended thinking), as the run knows it."""
        return self._client.capabilities.of(model)

    def resolve_model(self, model: str | None) -> str:
        """A model id, a tier name (`high`, `low`), or None for the suite's target model."""
        if model is None:
            return self.model
        return self.tiers.get(model, model)

    async def generate(
        self,
        request: ModelRequest,
        *,
        role: str = "target",
        validate: Validator | None = None,
        evalkit_built: bool = False,
    ) -> ModelResponse:
        repeat = self.repeat if not self.sample else f"{self.repeat}.{self.sample}"
        key = request.cache_key(repeat)
        sent = time.perf_counter()
        if role == "target":
            self.target_requests.append(key)
            self.recorder.request(request.messages, at=sent - self._born, offered_tools=bool(request.tools))
        try:
            response = await self._client.generate(
                request,
                repeat=repeat,
                role=role,
                scopes=self._scopes,
                validate=validate,
                key=key,
                evalkit_built=evalkit_built,
            )
        except (BudgetExceeded, NotSent):
            self._origin.refused = True  # the runner reports the case "not run", not as an error
            raise
        if role == "target":
            self.recorder.reply(
                response.text, response.tool_uses, at=sent - self._born, seconds=time.perf_counter() - sent
            )
            if response.stop_reason == "max_tokens":
                self.truncated = True
        return response

    async def complete(
        self,
        prompt: str | list[dict[str, Any]],
        *,
        system: str | None = None,
        model: str | None = None,
        max_tokens: int | None = None,
        temperature: float | None = None,
    ) -> str:
        """Send a prompt (or a message list) and return the reply's text."""
        messages = ({"role": "user", "content": prompt},) if isinstance(prompt, str) else tuple(prompt)
        request = ModelRequest(
            model=self.resolve_model(model),
            messages=messages,
            system=system,
            max_tokens=max_tokens or self.max_tokens,
            temperature=self.temperature if temperature is None else temperature,
        )
        return (await self.generate(request)).text


class SyncClient:
    """A blocking view of a BoundClient, for synchronous targets run in a worker thread."""

    def __init__(self, bound: BoundClient, loop: asyncio.AbstractEventLoop):
        self._bound = bound
        self._loop = loop
        self.model = bound.model
        self.tiers = bound.tiers

    def resolve_model(self, model: str | None) -> str:
        return self._bound.resolve_model(model)

    def generate(
        self, request: ModelRequest, *, role: str = "target", validate: Validator | None = None
    ) -> ModelResponse:
        return asyncio.run_coroutine_threadsafe(
            self._bound.generate(request, role=role, validate=validate), self._loop
        ).result()

    def complete(self, prompt: str | list[dict[str, Any]], **kwargs: Any) -> str:
        return asyncio.run_coroutine_threadsafe(self._bound.complete(prompt, **kwargs), self._loop).result()
