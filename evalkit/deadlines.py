"""Deadlines of one length on one event loop, served by one timer.

`asyncio.timeout` schedules a timer for every block it guards and cancels it when the block ends:
a heap push, a cancelled handle left in the loop's heap, and the loop's sweeps of them, once per
case of a run (a tenth of evalkit's own time per case). Every case of a suite has the same target
timeout, so the deadlines of one length expire in the order they were set: a queue in that
order and one timer, armed for the oldest deadline still open, serve them all.

`with deadline(seconds):` behaves as `async with asyncio.timeout(seconds):` does: the task is
cancelled when the time is up, and the block raises TimeoutError (a cancellation from elsewhere,
a Ctrl-C, goes through as it is).
"""

from __future__ import annotations

import asyncio
import time
import weakref
from collections import deque
from types import TracebackType
from typing import Any

# An entry of a queue: [deadline, the task while its block is open (None once closed), expired].
_WHEN, _TASK, _EXPIRED = 0, 1, 2
# The loop runs a timer this close before its time (asyncio's own tolerance): it has expired.
_RESOLUTION = time.get_clock_info("monotonic").resolution


class DeadlineQueue:
    """The open deadlines of one length on one loop, oldest first."""

    def __init__(self, loop: asyncio.AbstractEventLoop, seconds: float):
        # A weak reference: the queues are values of a WeakKeyDictionary of loops, which a strong
        # one would keep alive for ever.
        self._loop = weakref.ref(loop)
        self.seconds = seconds
        self._entries: deque[list[Any]] = deque()
        self._timer: asyncio.TimerHandle | None = None

    def __len__(self) -> int:
        return len(self._entries)

    def open(self, task: asyncio.Task[Any]) -> list[Any]:
        loop = self._loop()
        assert loop is not None, "a queue is used on its running loop"
        entry: list[Any] = [loop.time() + self.seconds, task, False]
        self._entries.append(entry)
        if self._timer is None:
            self._timer = loop.call_at(entry[_WHEN], self._expire)
        return entry

    def close(self, entry: list[Any]) -> None:
        entry[_TASK] = None
        entries = self._entries
        # Blocks mostly end in the order they began: dropping the closed ones at the front keeps
        # the queue as long as the blocks open (plus those behind one that runs long).
        while entries and entries[0][_TASK] is None:
            entries.popleft()
        if not entries and self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _expire(self) -> None:
        self._timer = None
        loop = self._loop()
        if loop is None:
            return
        now, entries = loop.time() + _RESOLUTION, self._entries
        while entries and (entries[0][_TASK] is None or entries[0][_WHEN] <= now):
            entry = entries.popleft()
            task, entry[_TASK] = entry[_TASK], None
            if task is not None:
                entry[_EXPIRED] = True
                task.cancel()
        if entries:  # the timer goes off again for the oldest deadline still open
            self._timer = loop.call_at(entries[0][_WHEN], self._expire)


_queues: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[float, DeadlineQueue]] = \
    weakref.WeakKeyDictionary()


def queue_for(seconds: float) -> DeadlineQueue:
    """The queue of deadlines `seconds` long on the running loop."""
    loop = asyncio.get_running_loop()
    by_length = _queues.get(loop)
    if by_length is None:
        by_length = _queues[loop] = {}
    queue = by_length.get(seconds)
    if queue is None:
        queue = by_length[seconds] = DeadlineQueue(loop, seconds)
    return queue


class deadline:
    """`with deadline(seconds):` inside a task: TimeoutError when the block runs past `seconds`."""

    __slots__ = ("_seconds", "_task", "_entry", "_queue", "_cancelling")

    def __init__(self, seconds: float):
        self._seconds = seconds

    def __enter__(self) -> "deadline":
        try:
            task = asyncio.current_task()
        except RuntimeError:  # no running loop
            task = None
        if task is None:
            raise RuntimeError("deadline() is used inside a task")
        self._task = task
        self._cancelling = task.cancelling()
        self._queue = queue_for(self._seconds)
        self._entry = self._queue.open(task)
        return self

    def __exit__(self, etype: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        if not self._entry[_EXPIRED]:
            self._queue.close(self._entry)
            return
        # As asyncio.timeout decides: the cancellation was ours when no other request came since.
        if self._task.uncancel() <= self._cancelling and etype is asyncio.CancelledError:
            raise TimeoutError from exc
