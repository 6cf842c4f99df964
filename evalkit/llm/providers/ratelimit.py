"""What a reply's `anthropic-ratelimit-*` headers say about the organisation's rate limit.

Every Messages-API reply carries, per limited quantity (requests, tokens, input and output
tokens), the bucket's `-limit` (per minute), `-remaining` and `-reset` (RFC 3339 time when the
bucket is full again). The client paces itself from these before it meets a 429.

Every reply is read, so the reading is cheap: one pass over the headers (a case-insensitive
`get` per name would scan them all twelve times), and a bucket's reset time is parsed only
when asked for (the pacing needs limits and remainders, not dates).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Mapping, NamedTuple

PREFIX = "anthropic-ratelimit-"
KINDS = ("requests", "tokens", "input-tokens", "output-tokens")


class Bucket(NamedTuple):  # a tuple: four are made for every reply
    limit: float  # per minute
    remaining: float
    reset: str | None = None  # the `-reset` header: when the bucket is full again (RFC 3339)
    read_at: float = 0.0  # when the headers were read (Unix seconds; 0: reset_in counts from now)

    @property
    def reset_in(self) -> float | None:
        """Seconds from reading the headers until the bucket is full again (None: not said)."""
        return _seconds_until(self.reset, self.read_at or time.time())


@dataclass(frozen=True)
class RateLimitInfo:
    buckets: dict[str, Bucket]  # kind ("requests", "input-tokens", ...) to its bucket

    @property
    def requests(self) -> Bucket | None:
        return self.buckets.get("requests")


def parse_rate_limit_headers(headers: Mapping[str, Any] | Any, now: datetime | None = None) -> RateLimitInfo | None:
    """The buckets the headers describe (a bucket needs at least its limit and remaining), or None.

    `headers`: httpx's Headers or any mapping; names in any case."""
    said = _said(headers)
    if not said:
        return None
    read_at = now.timestamp() if now is not None else time.time()
    buckets: dict[str, Bucket] = {}
    for kind, limit_name, remaining_name, reset_name in _NAMES:
        limit = _number(said.get(limit_name))
        remaining = _number(said.get(remaining_name))
        if limit is None or remaining is None or limit <= 0:
            continue
        buckets[kind] = Bucket(limit, remaining, said.get(reset_name) or None, read_at)
    return RateLimitInfo(buckets) if buckets else None


def _said(headers: Mapping[str, Any] | Any) -> dict[str, Any]:
    """The rate-limit headers by the rest of their name (`requests-limit`, ...)."""
    raw = getattr(headers, "raw", None)  # httpx's Headers: (name, value) bytes as received
    if isinstance(raw, list):
        return {
            lower[_RAW_LEN:].decode("latin-1"): value.decode("latin-1")
            for name, value in raw
            if (lower := name.lower()).startswith(_RAW_PREFIX)
        }
    return {
        name[len(PREFIX) :]: value
        for name, value in ((str(name).lower(), value) for name, value in headers.items())
        if name.startswith(PREFIX)
    }


_NAMES = tuple((kind, f"{kind}-limit", f"{kind}-remaining", f"{kind}-reset") for kind in KINDS)
_RAW_PREFIX = PREFIX.encode()
_RAW_LEN = len(_RAW_PREFIX)


def _number(value: Any) -> float | None:
    try:
        return float(value) if value is not None else None
    except (TypeError, ValueError):
        return None


def _seconds_until(value: Any, read_at: float) -> float | None:
    if not value:
        return None
    try:
        when = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError:
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return max(0.0, when.timestamp() - read_at)
