"""Untrusted text (a model's output, a case's input) fenced as data for the judge and extraction."""

from __future__ import annotations

import hashlib

MAX_OUTPUT_CHARS = 60_000  # what the judge sees of a huge output; the rest is cut with a note


def fence(text: str, label: str = "output") -> str:
    """Enclose untrusted text in tags whose name it cannot guess (derived from its hash)."""
    if len(text) > MAX_OUTPUT_CHARS:
        text = text[:MAX_OUTPUT_CHARS] + f"\n[... {len(text) - MAX_OUTPUT_CHARS} more characters cut ...]"
    tag = f"{label}-{hashlib.sha256(text.encode()).hexdigest()[:12]}"
    return f"<{tag}>\n{text}\n</{tag}>"
