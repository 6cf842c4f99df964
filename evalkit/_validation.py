"""pydantic validation errors as short messages a user can act on (one formatter for every file)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def clean_loc(loc: Any) -> tuple[Any, ...]:
    """Drop union tags ("~prompt") and pydantic's internal steps from an error location."""
    return tuple(p for p in loc if not (isinstance(p, str) and (p.startswith("~") or p.startswith("function-"))))


def pydantic_message(err: Mapping[str, Any]) -> str:
    kind, msg, loc = err.get("type"), err.get("msg", ""), clean_loc(err.get("loc", ()))
    field_name = next((str(p) for p in reversed(loc) if isinstance(p, str)), "")
    if kind == "extra_forbidden":
        return f"unknown key {field_name!r}"
    if kind == "missing":
        return f"missing required key {field_name!r}"
    msg = msg.removeprefix("Value error, ")
    return f"{field_name}: {msg}" if field_name and not msg.startswith(field_name) else msg
