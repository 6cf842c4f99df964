"""Prompt caching as the fakes report it: a request whose blocks carry `cache_control` caches
its prefix up to the last marked block (tools, then system, then messages, as the API orders
them). The first request with a given prefix writes it (`cache_creation_input_tokens`), requests
that arrive after that one was answered read it (`cache_read_input_tokens`): as with the API, a
request sent while the writer is still in flight writes the prefix too. `input_tokens` counts only
what follows the prefix. As with the API, a prefix below the model's minimum is not cached at all:
the fake takes the published rule (about 1,024 tokens for Sonnet and Opus, more for Haiku) as 1,024,
and 2,048 for a Haiku model, counting tokens as its input tokens are counted.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from typing import Any

from evalkit.testing.script import estimate_tokens


class PromptCache:
    def __init__(self) -> None:
        self._written: dict[str, float] = {}  # prefix key -> when its first writer was answered
        self._lock = threading.Lock()

    def apply(self, body: dict[str, Any], usage: dict[str, Any], arrived: float | None = None) -> None:
        """Split `usage["input_tokens"]` into cached and uncached parts when `body` marks a prefix;
        `arrived`: when the request arrived (time.monotonic(); None: now), as it is being answered."""
        blocks = _blocks(body)
        marked = [i for i, block in enumerate(blocks) if isinstance(block, dict) and block.get("cache_control")]
        if not marked:
            return
        prefix = blocks[: marked[-1] + 1]
        prefix_tokens = estimate_tokens("\n".join(_text(b) for b in prefix))
        if prefix_tokens < minimum_tokens(str(body.get("model") or "")):
            return
        key = hashlib.sha256(json.dumps([body.get("model"), prefix], sort_keys=True).encode()).hexdigest()
        now = time.monotonic()
        with self._lock:
            written = self._written.setdefault(key, now)
            hit = written < now and written <= (now if arrived is None else arrived)
        usage["input_tokens"] = max(0, int(usage.get("input_tokens") or 0) - prefix_tokens)
        usage["cache_read_input_tokens" if hit else "cache_creation_input_tokens"] = prefix_tokens
        usage.setdefault("cache_read_input_tokens", 0)
        usage.setdefault("cache_creation_input_tokens", 0)


def minimum_tokens(model: str) -> int:
    """The smallest prefix `model` caches, in tokens."""
    return 2048 if "haiku" in model else 1024


def _blocks(body: dict[str, Any]) -> list[Any]:
    fmt = (body.get("output_config") or {}).get("format")  # a structured-output format opens every prefix
    blocks: list[Any] = [{"output_format": fmt}] if fmt else []
    blocks += list(body.get("tools") or [])
    system = body.get("system")
    blocks += system if isinstance(system, list) else ([{"type": "text", "text": system}] if system else [])
    for message in body.get("messages") or []:
        content = message.get("content")
        blocks += content if isinstance(content, list) else [{"type": "text", "text": content or ""}]
    return blocks


def _text(block: Any) -> str:
    """The prose of a block, counted as the fakes count input tokens (tool definitions and formats are not)."""
    if not isinstance(block, dict) or "input_schema" in block or "output_format" in block:
        return ""
    return str(block.get("text") or block.get("content") or "")
