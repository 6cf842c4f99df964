"""The trajectory of a target's model calls, recorded as they are made: the client a target is
handed (evalkit.llm.client.BoundClient) records every request and reply here, so agent code that
runs its own tool loop through that client gets a trace without instrumentation, and evalkit's own
tool loop records through the same path.

What a request shows is enough: a reply's tool_use blocks are the tool calls asked for, and the
next request's tool_result blocks (matched by tool_use id) are what they gave.
"""

from __future__ import annotations

import json
from typing import Any

from evalkit._runtime.redaction import redacted
from evalkit.trace.steps import Step


def _cut(text: str) -> str:
    """A step's text as kept: the secrets the run knows replaced before it is cut (never a cut key)."""
    return redacted(text)[:MAX_STEP_TEXT]


MAX_STEP_TEXT = 4_000  # characters of a message or tool result kept in a recorded step


class TraceRecorder:
    """Steps in the order the calls were made; `steps` is the trace so far. Each call notes plain
    fields only: the `Step`s are built when the trace is read, so a run that keeps no trace (a prompt
    target without tools, one reply) pays nothing for them."""

    def __init__(self) -> None:
        self._noted: list[dict[str, Any]] = []  # each step's fields, in order
        self._built: list[Step] = []  # the Steps of the first len(_built) of them
        self._pending: dict[str, dict[str, Any]] = {}  # tool_use id -> the call, until its result is sent
        self._tool_seconds: dict[str, float] = {}  # tool_use id -> seconds the tool took (evalkit's own loop)
        self.offered_tools = False  # some request offered the model tools
        self.replies = 0  # model calls answered

    def request(
        self, messages: tuple[dict[str, Any], ...] | list[dict[str, Any]], at: float, offered_tools: bool = False
    ) -> None:
        """A request is about to be sent: its newest user turn, tool results and all, joins the trace."""
        self.offered_tools = self.offered_tools or offered_tools
        if not messages or messages[-1].get("role") != "user":
            return
        last = messages[-1]
        content = last.get("content")
        if isinstance(content, list):
            for block in content:
                if isinstance(block, dict) and block.get("type") == "tool_result":
                    self._tool_result(block)
        text = _text_of(content)  # (each request resends the history: only its newest turn is new)
        if text:
            self._noted.append({"type": "message", "role": "user", "text": _cut(text), "start": _round(at)})

    def reply(self, text: str, tool_uses: list[dict[str, Any]], *, at: float, seconds: float) -> None:
        """The model answered: its text, and the tool calls it asked for (recorded when answered)."""
        self.replies += 1
        self._noted.append(
            {
                "type": "message",
                "role": "assistant",
                "text": _cut(text),
                "start": _round(at),
                "seconds": _round(seconds),
            }
        )
        for use in tool_uses:
            self._pending[str(use.get("id"))] = use

    @property
    def steps(self) -> list[Step]:
        """The trace so far."""
        self._built += [Step(**noted) for noted in self._noted[len(self._built) :]]
        return self._built

    def tool_took(self, tool_use_id: str, seconds: float) -> None:
        """How long a tool evalkit ran took (recorded with the call when its result is sent)."""
        self._tool_seconds[tool_use_id] = seconds

    def trajectory(self, why: str, *, tools: bool = False) -> list[Step] | None:
        """The recorded trace when it is one worth keeping: the target has tools (`tools`, or a request
        offered some) or made more than one call; else None (one prompt and one reply, which a run
        keeps as its prompt and output already). Tool calls never answered are closed with `why`."""
        if not (tools or self.offered_tools or self.replies > 1):
            return None
        return self.close(why)

    def close(self, why: str) -> list[Step]:
        """The trace, with any tool call asked for but never answered recorded as an error `why`."""
        for use_id, use in list(self._pending.items()):
            self._noted.append(
                {
                    "type": "tool_call",
                    "name": str(use.get("name")),
                    "arguments": dict(use.get("input") or {}),
                    "error": why,
                    "id": use_id or None,
                }
            )
        self._pending.clear()
        return self.steps

    def _tool_result(self, block: dict[str, Any]) -> None:
        use_id = str(block.get("tool_use_id"))
        use = self._pending.pop(use_id, None)
        if use is None:
            return  # answered before (a resent history) or never asked for in this run
        content = block.get("content")
        result: Any = _text_of(content) if isinstance(content, list) else content
        if isinstance(result, str):
            try:
                result = json.loads(result)  # a tool's JSON result kept as data, so checks can read it
            except ValueError:
                result = _cut(result)
        error = None
        if block.get("is_error"):
            error, result = _cut(result if isinstance(result, str) else json.dumps(result)), None
        self._noted.append(
            {
                "type": "tool_call",
                "name": str(use.get("name")),
                "arguments": dict(use.get("input") or {}),
                "result": result,
                "error": error or None,
                "id": use_id or None,
                "seconds": _round(self._tool_seconds.pop(use_id, None)),
            }
        )


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(b.get("text")) for b in content if isinstance(b, dict) and b.get("type") == "text")
    return ""


def _round(value: float | None) -> float | None:
    return None if value is None else round(max(value, 0.0), 4)
