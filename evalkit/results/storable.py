"""Text as a results file can hold it. JSON holds every character but one kind: a lone
surrogate (half of a UTF-16 pair, which a model's JSON reply may carry as `"\\ud800"`), which
UTF-8 cannot encode. Such text is stored with U+FFFD in its place, visibly; a pair of surrogates
becomes the character it makes. Everything else (control characters, NUL, BOM, right-to-left
marks, emoji) is kept as it is, control characters as JSON escapes."""

from __future__ import annotations

from typing import Any


def storable_text(text: str) -> str:
    """`text` as UTF-8 can hold it (the same object when it already can)."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def storable(value: Any) -> Any:
    """A copy of plain data (what `model_dump` gives) with every text made storable, keys too."""
    if isinstance(value, str):
        return storable_text(value)
    if isinstance(value, dict):
        return {storable(k): storable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [storable(v) for v in value]
    return value
