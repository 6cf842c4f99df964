"""Prompt-cache prefixes of a Messages-API request: what `cache_control` marks, how large it is, and
whether the model caches a prefix that size.

A block marked `cache_control: {"type": "ephemeral"}` ends a prefix (a structured-output format,
tools, then system, then the messages, in that order) that the API caches for 5 minutes: the first request writes it (1.25× the
input price), later ones read it (about a tenth). A prefix shorter than the model's minimum is not
cached at all. Sizes here are estimates (4 characters a token, as `evalkit plan` counts), so a
prefix near a minimum may fall either side of it.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from typing import Any

CHARS_PER_TOKEN = 4

# The smallest prefix each model caches, in tokens, as Anthropic's prompt-caching page lists them
# (2026): by model id prefix, the first match wins.
MIN_CACHEABLE_TOKENS: tuple[tuple[str, int], ...] = (
    ("claude-opus-4-6", 4096),
    ("claude-opus-4-5", 4096),
    ("claude-haiku-4-5", 4096),
    ("claude-3-5-haiku", 2048),
    ("claude-3-haiku", 2048),
    ("claude-haiku-3", 2048),
    ("claude-sonnet-4", 1024),
    ("claude-opus-4", 1024),
    ("claude-3-7-sonnet", 1024),
)
# A model not listed: the largest minimum listed, so a plan never counts on a cache that may not form.
UNLISTED_MIN_TOKENS = 4096


def min_cacheable_tokens(model: str) -> int:
    return next((n for prefix, n in MIN_CACHEABLE_TOKENS if model.startswith(prefix)), UNLISTED_MIN_TOKENS)


def _blocks(body: dict[str, Any]) -> list[Any]:
    """Every block of a request body (lists, or a ModelRequest's tuples) in the order the API caches them."""
    blocks: list[Any] = list(body.get("tools") or [])
    system = body.get("system")
    blocks += system if isinstance(system, (list, tuple)) else ([{"type": "text", "text": system}] if system else [])
    for message in body.get("messages") or []:
        content = message.get("content")
        blocks += content if isinstance(content, (list, tuple)) else [{"type": "text", "text": content or ""}]
    return blocks


def cacheable_prefixes(body: dict[str, Any]) -> list[tuple[str, int]]:
    """(key, estimated tokens) of each prefix the request marks that its model would cache, shortest
    first; the key names the model and the prefix's exact content."""
    blocks = _blocks(body)
    minimum = min_cacheable_tokens(str(body.get("model") or ""))
    out = []
    size = 0
    for i, block in enumerate(blocks):
        size += len(json.dumps(block, ensure_ascii=False))
        if isinstance(block, dict) and block.get("cache_control") and size // CHARS_PER_TOKEN >= minimum:
            # A structured-output format (a thinking judge's) is in every prefix's key, as a new schema may well
            # start a new prefix; its tokens are not counted as cached, which the API's documents do not say.
            key = hashlib.sha256(
                json.dumps(
                    [body.get("model"), (body.get("output_config") or {}).get("format"), blocks[: i + 1]],
                    sort_keys=True,
                ).encode()
            ).hexdigest()
            out.append((key, size // CHARS_PER_TOKEN))
    return out


class PrefixLedger:
    """The prefixes written so far (in a plan): splits a request's input tokens into new input, cache
    reads (the longest prefix already written) and cache writes (the rest of its longest prefix)."""

    def __init__(self) -> None:
        self.written: set[str] = set()

    def split(self, body: dict[str, Any], input_tokens: int) -> tuple[int, int, int]:
        """(uncached input, cache read, cache write) tokens of one request, and its prefixes noted."""
        prefixes = cacheable_prefixes(body)
        if not prefixes:
            return input_tokens, 0, 0
        read = max((n for key, n in prefixes if key in self.written), default=0)
        longest = prefixes[-1][1]
        write = 0 if prefixes[-1][0] in self.written else longest - read
        self.written.update(key for key, _ in prefixes)
        read, write = min(read, input_tokens), min(write, max(input_tokens - read, 0))
        return input_tokens - read - write, read, write


def marks_a_prefix(body: dict[str, Any]) -> bool:
    """Whether any block of the request carries `cache_control` (cheap: no JSON is built)."""
    return any(isinstance(block, dict) and "cache_control" in block for block in _blocks(body))


class WarmUp:
    """Holds a request whose cacheable prefix another request in flight is writing until that one is
    answered, so it reads the prefix instead of writing it again (the API makes a prefix readable
    only once the request writing it has been answered). A run's calls are thereby counted as the
    plan counts them: each prefix written once, then read. A prefix written more than `ttl` seconds
    ago may have expired: it is written again."""

    def __init__(self, ttl: float = 300.0, remember: int = 4096) -> None:
        self.ttl, self.remember = ttl, remember
        self._written: dict[str, float] = {}  # key -> when its writer was answered
        self._writing: dict[str, Any] = {}  # key -> a future set when its writer is answered

    async def before(self, body: dict[str, Any], now: float) -> list[str]:
        """Wait for the writers of this request's prefixes; returns the prefixes it writes itself."""
        keys = [key for key, _ in cacheable_prefixes(body)]
        for key in keys:  # shortest first: a shared shorter prefix is written once, then each longer one
            while (writer := self._writing.get(key)) is not None and not self._fresh(key, now):
                await writer
        mine = [key for key in keys if not self._fresh(key, now)]
        if mine:
            future = asyncio.get_running_loop().create_future()
            for key in mine:
                self._writing[key] = future
        return mine

    def after(self, keys: list[str], now: float, answered: bool = True) -> None:
        """The request that writes `keys` was answered (or failed: the next one then writes them)."""
        future = None
        for key in keys:
            future = self._writing.pop(key, None)
            if answered:
                self._written[key] = now
        if future is not None and not future.done():
            future.set_result(None)
        while len(self._written) > self.remember:
            self._written.pop(next(iter(self._written)))

    def _fresh(self, key: str, now: float) -> bool:
        return now - self._written.get(key, -self.ttl - 1) <= self.ttl
