"""`asyncio.run` for a coroutine whose result is large (a Report).

When `asyncio.run` ends it compares the SIGINT handler with its own, and on CPython 3.11 that
comparison builds an error message holding `repr()` of the main task, result included: the
whole Report, formatted for nothing (0.12 s at 1,000 cases, growing with every case). The main
task here returns None and the result travels beside it."""

from __future__ import annotations

import asyncio
from typing import Any, Coroutine, TypeVar

T = TypeVar("T")


def run_blocking(coro: Coroutine[Any, Any, T]) -> T:
    """Run `coro` to completion in a new event loop and return its result."""
    box: list[T] = []

    async def main() -> None:
        box.append(await coro)

    asyncio.run(main())
    return box[0]
