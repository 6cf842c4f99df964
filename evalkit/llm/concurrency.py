"""How many model calls are in flight, adapted to the organisation's rate limit.

At most `ceiling` (the user's --concurrency) calls run at once, reached by a slow start (the
window grows by one per success from 4 until a 429 or pacing), or at once when a reply's headers
show room in every bucket for the whole ceiling. A 429 halves the window (once
per congestion event: calls started before the cut do not cut it again), down to `floor`, and
holds every new call until the reply's `retry-after` has passed, so the calls waiting do not
turn into a retry storm. Each success grows the window additively (+1 per window of successes).
While the reply headers (`anthropic-ratelimit-*`) show a bucket nearly empty, call starts are
spaced at its refill rate, so the limit is met before a 429 is.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from dataclasses import dataclass
from types import TracebackType
from typing import Any, Awaitable, Callable

from evalkit.llm.providers.ratelimit import Bucket, RateLimitInfo

SLOW_START = 4  # the first window
PACE_MARGIN = 1.05  # start calls a little slower than the bucket refills


@dataclass
class RateLimitStats:
    """What the rate limit cost a run: 429s met, seconds new calls were held, the smallest window."""

    rejected: int = 0
    paused_seconds: float = 0.0
    paced: bool = False


class AdaptiveLimiter:
    def __init__(
        self,
        ceiling: int,
        floor: int | None = None,
        *,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[Any]] = asyncio.sleep,
    ):
        if ceiling < 1:
            raise ValueError("concurrency must be at least 1")
        self.ceiling = ceiling
        self.floor = max(1, min(ceiling, floor if floor is not None else ceiling // 16))
        # Slow start: a small first window doubling with each round of successes, so the first
        # replies' headers are read before a burst the size of the ceiling meets a small bucket.
        self.window = float(min(ceiling, max(self.floor, SLOW_START)))
        self._slow_start = True
        self.in_flight = 0
        self.stats = RateLimitStats()
        self.min_window = ceiling
        self._clock = clock
        self._sleep = sleep
        self._paused_until = 0.0
        self._interval = 0.0  # seconds between call starts while pacing; 0: not pacing
        self._next_start = 0.0
        self._last_cut = -1.0
        self._tokens_per_call = 0.0  # running mean of input tokens per call, for token buckets
        self._waiters: deque[asyncio.Future[None]] = deque()

    def slot(self) -> "_Slot":
        """`async with limiter.slot() as slot:` one call; `slot.succeeded(...)` after a reply."""
        return _Slot(self)

    async def acquire(self) -> float:
        """Wait for room (first come, first served) and for any pause or pacing; returns the start time."""
        woken, waited_out = False, 0.0
        while True:
            now = self._clock()
            deadline = max(self._paused_until, self._next_start if self._interval else 0.0)
            if deadline > now and deadline > waited_out:
                await self._sleep(deadline - now)
                waited_out = deadline  # this deadline is met, whatever the clock says
                continue
            if self.in_flight < int(self.window) and (woken or not self._waiters):
                break
            waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            # A call woken once and still without room keeps its place at the front.
            (self._waiters.appendleft if woken else self._waiters.append)(waiter)
            try:
                await waiter
            except asyncio.CancelledError:
                if waiter in self._waiters:
                    self._waiters.remove(waiter)
                elif not waiter.cancelled():
                    self._wake()  # pass on the wake-up this call will not use
                raise
            woken = True
        self.in_flight += 1
        if self._interval:
            self._next_start = max(now, self._next_start) + self._interval
        return now

    def release(self) -> None:
        self.in_flight -= 1
        self._wake()

    def _wake(self) -> None:
        while self._waiters:
            waiter = self._waiters.popleft()
            if not waiter.done():
                waiter.set_result(None)
                return

    def succeeded(self, info: RateLimitInfo | None, input_tokens: int = 0) -> None:
        self._tokens_per_call += (input_tokens - self._tokens_per_call) * 0.1
        if self.window < self.ceiling:
            before = int(self.window)
            if self._slow_start and info is not None and self._room_for(info, self.ceiling):
                # The headers show room for every call the ceiling allows: no need to creep up to it.
                self.window, self._slow_start = float(self.ceiling), False
            else:
                self.window = min(float(self.ceiling), self.window + (1.0 if self._slow_start else 1.0 / self.window))
            for _ in range(int(self.window) - before):
                self._wake()  # room for more
        self._pace(info)

    def _per_call(self, kind: str) -> float:
        """What one call takes from a bucket of this kind (output tokens: unknown before the reply)."""
        return 1.0 if kind == "requests" else self._tokens_per_call if kind != "output-tokens" else 0.0

    def _room_for(self, info: RateLimitInfo, calls: int) -> bool:
        """Whether every bucket has room for `calls` more calls."""
        return all(self._bucket_room(kind, bucket, calls) for kind, bucket in info.buckets.items())

    def _bucket_room(self, kind: str, bucket: Bucket, calls: int) -> bool:
        """Whether this bucket has room for `calls` more calls (a kind no call takes from always has)."""
        per_call = self._per_call(kind)
        return per_call <= 0 or bucket.remaining > per_call * calls

    def rate_limited(self, started: float, pause: float, info: RateLimitInfo | None) -> None:
        """A 429 for a call started at `started`: hold new calls for `pause` seconds."""
        now = self._clock()
        self.stats.rejected += 1
        self._slow_start = False
        if started >= self._last_cut:
            self.window = max(float(self.floor), self.window / 2)
            self.min_window = min(self.min_window, int(self.window))
            self._last_cut = now
        until = now + pause
        if until > self._paused_until:
            self.stats.paused_seconds += until - max(now, self._paused_until)
            self._paused_until = until
        self._pace(info)

    def _pace(self, info: RateLimitInfo | None) -> None:
        if info is None:
            return
        interval = 0.0
        room = max(self.in_flight, int(self.window))
        for kind, bucket in info.buckets.items():
            if self._bucket_room(kind, bucket, room):
                continue  # this bucket has room for every call that may be in flight
            interval = max(interval, self._per_call(kind) * 60.0 / bucket.limit * PACE_MARGIN)
        if interval and not self._interval:
            self.stats.paced = True
            self._slow_start = False
        self._interval = interval


class _Slot:
    def __init__(self, limiter: AdaptiveLimiter):
        self._limiter = limiter
        self.started = 0.0

    async def __aenter__(self) -> "_Slot":
        self.started = await self._limiter.acquire()
        return self

    def succeeded(self, info: RateLimitInfo | None, input_tokens: int = 0) -> None:
        self._limiter.succeeded(info, input_tokens)

    async def __aexit__(
        self, etype: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._limiter.release()

    def rate_limited(self, pause: float, info: RateLimitInfo | None) -> None:
        """The call met a 429: cut the window, hold new calls for `pause` seconds."""
        self._limiter.rate_limited(self.started, pause, info)
