"""A run's trajectory as compact text for the judge: one numbered line a step (messages, tool
calls with their arguments and results or errors), each part cut to a length, and the whole cut
in the middle past a limit, so a long agent run costs a bounded number of tokens.

The text is untrusted (a tool's result can say anything): the judge's request fences it as data.
"""

from __future__ import annotations

import json
from typing import Any

from evalkit.trace.steps import Step

MAX_TEXT_CHARS = 400  # of a message's text
MAX_ARGUMENTS_CHARS = 300  # of a tool call's arguments, as JSON
MAX_RESULT_CHARS = 400  # of a tool call's result or error
MAX_TRAJECTORY_CHARS = 20_000  # of the whole rendering: past it, steps in the middle are cut


def _cut(text: str, limit: int) -> str:
    text = " ".join(text.split())  # one line a step: newlines and runs of spaces as one space
    return text if len(text) <= limit else text[:limit] + f"… [{len(text) - limit} more characters]"


def _json(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)


def step_line(number: int, step: Step) -> str:
    """One step as one line: `3. tool get_weather({"city": "Paris"}) -> {"temp_c": 18}`."""
    if step.type == "message":
        return f"{number}. {step.role}: {_cut(step.text or '', MAX_TEXT_CHARS) or '(no text)'}"
    call = f"{number}. tool {step.name}({_cut(_json(step.arguments), MAX_ARGUMENTS_CHARS)})"
    if step.error is not None:
        return f"{call} -> ERROR: {_cut(step.error, MAX_RESULT_CHARS)}"
    return f"{call} -> {_cut(_json(step.result), MAX_RESULT_CHARS)}"


def render_trajectory(trace: list[Step], limit: int = MAX_TRAJECTORY_CHARS) -> str:
    """The trajectory, one line a step; past `limit` characters the first and last steps are kept
    and a line says how many were cut between them."""
    if not trace:
        return "(no steps were recorded)"
    lines = [step_line(n, step) for n, step in enumerate(trace, 1)]
    if sum(len(line) + 1 for line in lines) <= limit:
        return "\n".join(lines)
    head = _fitting(lines, limit // 2)
    tail = _fitting(lines[len(head) :][::-1], limit // 2)[::-1]
    cut = len(lines) - len(head) - len(tail)
    return "\n".join([*head, f"[... {cut} steps cut ...]", *tail])


def _fitting(lines: list[str], budget: int) -> list[str]:
    """The first of `lines` that fit in `budget` characters, each with its newline."""
    kept: list[str] = []
    for line in lines:
        budget -= len(line) + 1
        if budget < 0:
            break
        kept.append(line)
    return kept
