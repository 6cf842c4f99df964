"""A case's `tool_results:`: the scripted answers of a prompt target's tools, and which one answers
a call. A tool's value is the result of every call, or a list of entries matched on arguments:

    tool_results:
      get_weather: {temp_c: 12}                          # every call gets this
      lookup_order:
        - {arguments: {order_id: A1}, result: {status: shipped}}
        - {arguments: {order_id: B2}, error: "no such order"}
        - {result: {status: unknown}}                    # no `arguments`: any other call
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

ENTRY_KEYS = {"arguments", "result", "error"}


@dataclass(frozen=True)
class ScriptedAnswer:
    """What a scripted tool gives one call: a result, or an error (None when nothing matched)."""

    result: Any = None
    error: str | None = None


def is_entry_list(value: Any) -> bool:
    """A list of `{arguments, result | error}` entries (else the value is every call's result)."""
    return (
        isinstance(value, list)
        and bool(value)
        and all(isinstance(e, dict) and set(e) <= ENTRY_KEYS and ("result" in e or "error" in e) for e in value)
    )


def entry_problem(value: Any) -> str | None:
    """What is wrong with a tool's scripted value, or None (a problem only in an entry list)."""
    if not is_entry_list(value):
        return None
    for number, entry in enumerate(value, 1):
        if "result" in entry and "error" in entry:
            return f"entry {number} has both `result` and `error`: give one"
        if "arguments" in entry and not isinstance(entry["arguments"], dict):
            return f"entry {number}'s `arguments` is not a mapping"
        if "error" in entry and not isinstance(entry["error"], str):
            return f"entry {number}'s `error` is not text"
    return None


def scripted_answer(value: Any, arguments: dict[str, Any]) -> ScriptedAnswer | None:
    """The answer the scripted `value` gives a call with `arguments`, or None when no entry matches."""
    if not is_entry_list(value):
        return ScriptedAnswer(result=value)
    for entry in value:
        wanted = entry.get("arguments") or {}
        if all(key in arguments and arguments[key] == expected for key, expected in wanted.items()):
            return ScriptedAnswer(result=entry.get("result"), error=entry.get("error"))
    return None
