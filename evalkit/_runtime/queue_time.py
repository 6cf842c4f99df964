"""How long a case waited in the queue (for a slot of the run's concurrency limit, or for a worker
thread), kept apart from its own time so per-case durations tell the truth: 500 cases started at
once each wait most of a run, and their times must not add up to many times the run's."""

from __future__ import annotations

import contextvars
import threading
import time
from typing import Any, AsyncContextManager, Callable

# The clock of the case whose work runs in this context (set by the runner around each case).
current: contextvars.ContextVar["CaseClock | None"] = contextvars.ContextVar("evalkit_case_clock", default=None)


class CaseClock:
    """Queue time of one case: the time during which at least one of its calls waited for a slot
    while none of them held one (repeats, the judge and extraction may wait side by side)."""

    def __init__(self, clock: Callable[[], float] = time.perf_counter):
        self._clock = clock
        self._lock = threading.Lock()  # sync targets start their waits' ends from worker threads
        self._waiting = 0
        self._serving = 0
        self._since = clock()
        self.queued = 0.0

    def _change(self, waiting: int = 0, serving: int = 0) -> None:
        with self._lock:
            now = self._clock()
            if self._waiting > 0 and self._serving == 0:
                self.queued += now - self._since
            self._since = now
            self._waiting += waiting
            self._serving += serving

    def add(self, seconds: float) -> None:
        """A wait measured elsewhere (a call's wait to start in a worker process)."""
        with self._lock:
            self.queued += seconds

    def wait(self) -> "Wait":
        """Start a wait; end it with `.end()` (once, from any thread)."""
        self._change(waiting=1)
        return Wait(self)


class Wait:
    def __init__(self, clock: CaseClock):
        self._clock: CaseClock | None = clock

    def end(self) -> None:
        clock, self._clock = self._clock, None
        if clock is not None:
            clock._change(waiting=-1)


class queued:
    """`async with queued(slot) as held:` enters `slot` (a concurrency limit's), counting the wait
    for it as the current case's queue time. A class, not an `asynccontextmanager`: it is entered
    for every model call, and an async generator costs several times more to enter and leave."""

    __slots__ = ("_slot", "_clock")

    def __init__(self, slot: AsyncContextManager[Any]):
        self._slot = slot
        self._clock: CaseClock | None = None

    async def __aenter__(self) -> Any:
        clock = current.get()
        if clock is None:
            return await self._slot.__aenter__()
        clock._change(waiting=1)
        try:
            held = await self._slot.__aenter__()
        except BaseException:
            clock._change(waiting=-1)
            raise
        clock._change(waiting=-1, serving=1)  # the wait ends as the service starts
        self._clock = clock
        return held

    async def __aexit__(self, *exc_info: Any) -> Any:
        if self._clock is not None:
            self._clock._change(serving=-1)
        return await self._slot.__aexit__(*exc_info)
