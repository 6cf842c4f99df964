"""Stopping a run from outside. SIGTERM (what CI sends when a job is cancelled) does what Ctrl-C
does: the run's task is cancelled, so every `finally` runs (finished cases are already in the
JSONL; the session's totals are added), and the CLI exits 143 (Ctrl-C: 130)."""

from __future__ import annotations

import asyncio
import signal
import threading
from typing import Any, Coroutine, TypeVar

from evalkit.exit_codes import ExitCode

T = TypeVar("T")


class Terminated(KeyboardInterrupt):
    """The run was stopped by SIGTERM (a KeyboardInterrupt, so whatever stops on Ctrl-C stops on it)."""


def exit_code(exc: BaseException) -> ExitCode:
    return ExitCode.SIGTERM if isinstance(exc, Terminated) else ExitCode.SIGINT


def run_stoppable(main: Coroutine[Any, Any, T]) -> T:
    """`asyncio.run(main)`, where SIGTERM cancels `main` as Ctrl-C does, then raises Terminated.
    (Only the main thread can take signals: elsewhere this is plain asyncio.run.)"""
    terminated: list[int] = []
    result: list[T] = []

    async def guarded() -> None:
        task, loop = asyncio.current_task(), asyncio.get_running_loop()

        def on_term(signum: int, frame: Any) -> None:
            if not terminated:  # a second SIGTERM must not cut the unwinding short
                terminated.append(signum)
                loop.call_soon_threadsafe(task.cancel)  # type: ignore[union-attr]  # the task exists before the handler is installed

        previous = _install(on_term)
        try:
            result.append(await main)
        finally:
            if previous is not None:
                signal.signal(signal.SIGTERM, previous)

    try:
        # The main task returns None, its result travels beside it: when asyncio.run ends, CPython
        # 3.11 formats repr() of the main task (result included) while checking the SIGINT handler,
        # which for a Report took 0.12 s at 1,000 cases, growing with every case.
        asyncio.run(guarded())
    except (asyncio.CancelledError, KeyboardInterrupt):
        if terminated:
            raise Terminated() from None
        raise
    return result[0]


def _install(handler: Any) -> Any:
    """Install `handler` for SIGTERM; the handler it replaces (to put back), or None if it could not."""
    if threading.current_thread() is not threading.main_thread():
        return None
    previous = signal.getsignal(signal.SIGTERM)
    signal.signal(signal.SIGTERM, handler)
    return signal.SIG_DFL if previous is None else previous
