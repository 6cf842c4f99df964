"""Work put off to the end of the event loop's current turn, so what several tasks produce in one
turn (case lines, progress lines) goes out in one write, before the loop next waits for anything."""

from __future__ import annotations

import sys
from typing import Callable


def before_next_wait(callback: Callable[[], object]) -> bool:
    """Schedule `callback` on the running event loop; False, and nothing scheduled, when no loop
    runs in this thread. asyncio is not imported for the question: without it no loop runs, and
    the light commands that print never pay for it."""
    asyncio = sys.modules.get("asyncio")
    if asyncio is None:
        return False
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        return False
    loop.call_soon(callback)
    return True
