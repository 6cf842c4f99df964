"""Cases start as room frees up in a window shared by the whole run, not all at once: a task
waiting for the model costs memory, and 100,000 of them waiting together cost gigabytes.
The window is wider than the client's concurrency, so the model calls in flight never wait for
a case to start."""

from __future__ import annotations

import asyncio
from typing import Any, Awaitable, Callable, Iterable, TypeVar

T = TypeVar("T")

PER_CALL = 4  # cases started per model call in flight (a case's calls come one after another)
SPARE = 16
UNBOUNDED = 1 << 40


def window_for(concurrency: int, *, batched: bool = False) -> asyncio.Semaphore:
    """The window of a run; a run whose calls go as Message Batches starts every case at once
    (its first wave must hold every target call, or each wave would wait hours for a handful)."""
    return asyncio.Semaphore(UNBOUNDED if batched else PER_CALL * concurrency + SPARE)


async def run_windowed(items: Iterable[T], run_one: Callable[[T], Awaitable[Any]], window: asyncio.Semaphore) -> None:
    """`run_one(item)` for every item, at most as many at once as `window` lets in. Results are
    dropped (the caller keeps what it needs); the first exception stops the rest and is raised.
    Cancelled, it cancels the items still running and waits for them to unwind."""
    running: set[asyncio.Task[Any]] = set()
    failed: list[BaseException] = []

    def finished(task: asyncio.Task[Any]) -> None:
        running.discard(task)
        window.release()
        if not task.cancelled() and task.exception() is not None:
            failed.append(task.exception())  # type: ignore[arg-type]  # not None: checked on the line above

    try:
        for item in items:
            await window.acquire()
            if failed:
                window.release()
                break
            task: asyncio.Task[Any] = asyncio.ensure_future(run_one(item))
            running.add(task)
            task.add_done_callback(finished)
        while running:
            await asyncio.wait(set(running))
    finally:
        for task in running:
            task.cancel()
        if running:
            await asyncio.wait(set(running))
    if failed:
        raise failed[0]
