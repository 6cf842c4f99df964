"""How a case ends when it does not end as planned, and what of its values is stored: a cancellation
raised inside a case (not the run's stop) is its error row; inputs and facts are copied as JSON
gives them back."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from evalkit._runtime.user_calls import cancelled_words, is_cancellation
from evalkit.errors import one_line


def stopping() -> bool:
    """Whether the current task is being cancelled from outside (Ctrl-C, SIGTERM, a timeout): a
    CancelledError raised inside it by user code finds no request to cancel."""
    task = asyncio.current_task()
    return task is not None and task.cancelling() > 0


def ended_words(who: str, exc: BaseException) -> str:
    """An error row's words for a run ended by a cancellation or another BaseException raised in it."""
    if is_cancellation(exc):
        return cancelled_words(who, exc)
    return f"{who} ended by {type(exc).__name__} raised inside it: {one_line(exc)}"


_PLAIN = (str, int, float, bool, type(None))


def jsonable(value: Any) -> Any:
    """A copy of the value as JSON gives it back (dates and other objects as text)."""
    try:
        # Most inputs and facts are already JSON's own types: copied as they are, without the
        # round trip through text (three times slower for a case's usual small dict).
        return _plain_copy(value)
    except (_NotPlain, RecursionError):  # (a circular value: JSON's own error names it as such)
        return json.loads(json.dumps(value, default=str))


class _NotPlain(Exception):
    pass


def _plain_copy(value: Any) -> Any:
    kind = type(value)
    if kind in _PLAIN:  # exact types: a str subclass (an enum member) still goes through JSON
        return value
    if kind is dict:
        copy = {}
        for key, item in value.items():
            if type(key) is not str:  # JSON turns other keys into text
                raise _NotPlain
            copy[key] = _plain_copy(item)
        return copy
    if kind is list:
        return [_plain_copy(item) for item in value]
    raise _NotPlain
