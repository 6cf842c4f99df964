"""What a run's report keeps of an output or a traceback: redacted first, then cut, so no cut leaves
a prefix of a secret that redaction would no longer recognise."""

from __future__ import annotations

from evalkit._runtime.redaction import redacted

__all__ = ["MAX_STORED_OUTPUT", "MAX_STORED_TRACEBACK", "stored_output", "stored_traceback"]

MAX_STORED_OUTPUT = 20_000  # characters of each output kept in the report
MAX_STORED_TRACEBACK = 8_000  # characters of a target's traceback kept (its innermost frames)


def stored_output(text: str) -> str:
    """What the report keeps of an output: redacted first, then cut (a secret the cut would split
    is replaced whole, never left as a prefix no redaction recognises)."""
    text = redacted(text)
    if len(text) <= MAX_STORED_OUTPUT:
        return text
    return text[:MAX_STORED_OUTPUT] + f"\n[... {len(text) - MAX_STORED_OUTPUT} more characters not stored ...]"


def stored_traceback(text: str | None) -> str | None:
    """What the report keeps of a traceback: redacted, then its innermost frames."""
    return redacted(text or "")[-MAX_STORED_TRACEBACK:] or None
