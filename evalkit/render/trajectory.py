"""A run's trajectory in one line, for the views with no room for the steps themselves (the
markdown report's failing cases, the terminal, JUnit): `tools: search(q="shoes") → book(id=3) →
error in pay(card="…"): declined`.

The names, arguments and errors come from the model and the tools: untrusted. The line has no
control or format characters and no newlines; a markdown view still passes it through `clean`."""

from __future__ import annotations

import json
from typing import Any

from evalkit.render.sanitize import strip_invisible
from evalkit.trace.steps import Step, tool_calls

VALUE_CHARS = 24  # of one argument's value
ARGUMENTS_CHARS = 60  # of a call's arguments together
ERROR_CHARS = 60
LINE_CHARS = 300


def _one_line(text: str) -> str:
    return " ".join(strip_invisible(text).split())


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def call_text(call: Step) -> str:
    """`name(key=value, …)` with each value as JSON, cut short."""

    def value(v: Any) -> str:
        return _cut(_one_line(json.dumps(v, ensure_ascii=False, sort_keys=True, default=str)), VALUE_CHARS)

    arguments = ", ".join(f"{_one_line(str(k))}={value(v)}" for k, v in call.arguments.items())
    return f"{_one_line(str(call.name))}({_cut(arguments, ARGUMENTS_CHARS)})"


def tool_line(trace: list[Step] | None, limit: int = LINE_CHARS) -> str:
    """The run's tool calls in order, a failed one as `error in name(…): why`; "" without a trace,
    "no tool calls" for a trace without any. At most `limit` characters, saying how many calls
    were left out."""
    if trace is None:
        return ""
    calls = tool_calls(trace)
    if not calls:
        return "no tool calls"
    parts = [
        f"error in {call_text(c)}: {_cut(_one_line(c.error), ERROR_CHARS)}" if c.error is not None else call_text(c)
        for c in calls
    ]
    line = ""
    for shown, part in enumerate(parts):
        joined = part if not line else f"{line} → {part}"
        left = len(parts) - shown - 1
        if len(joined) > limit - (20 if left else 0):
            return f"{line} → … ({len(parts) - shown} more calls)" if line else f"… ({len(parts)} calls)"
        line = joined
    return line


def step_count(trace: list[Step] | None) -> str:
    """ "5 steps, 2 tool calls" (empty without a trace)."""
    if trace is None:
        return ""
    n = len(tool_calls(trace))
    return f"{len(trace)} step{'s' if len(trace) != 1 else ''}, {n} tool call{'s' if n != 1 else ''}"
