"""pydantic validation errors as short messages a user can act on (one formatter for every file)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def clean_loc(loc: Any) -> tuple[Any, ...]:
    """Drop union tags ("~prompt") and pydantic's internal steps from an error location."""
    return tuple(p for p in loc if not (isinstance(p, str) and (p.startswith("~") or p.startswith("function-"))))


def pydantic_message(err: Mapping[str, Any]) -> str:
    kind, msg, loc = err.get("type"), err.get("msg", ""), clean_loc(err.get("loc", ()))
    names = [str(p) for p in loc if isinstance(p, str)]
    field_name = names[-1] if names else ""
    # The whole path (`timeout.target`), since a last key alone can be ambiguous (`target`).
    path = ".".join(names)
    where = f" in {'.'.join(names[:-1])}" if len(names) > 1 else ""
    if kind == "extra_forbidden":
        return f"unknown key {field_name!r}{where}"
    if kind == "missing":
        return f"missing required key {field_name!r}{where}"
    msg = msg.removeprefix("Value error, ")
    return f"{path}: {msg}" if path and not msg.startswith(field_name) else msg
