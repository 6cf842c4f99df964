"""What a reply's `anthropic-ratelimit-*` headers say about the organisation's rate limit.

Every Messages-API reply carries, per limited quantity (requests, tokens, input and output
tokens), the bucket's `-limit` (per minute), `-remaining` and `-reset` (RFC 3339 time when the
bucket is full again). The client paces itself from these before it meets a 429.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Mapping

PREFIX = "anthropic-ratelimit-"
KINDS = ("requests", "tokens", "input-tokens", "output-tokens")


@dataclass(frozen=True)
class Bucket:
    limit: float  # per minute
    remaining: float
    reset_in: float | None = None  # seconds until the bucket is full again


@dataclass(frozen=True)
class RateLimitInfo:
    buckets: dict[str, Bucket]  # kind ("requests", "input-tokens", ...) to its bucket

    @property
    def requests(self) -> Bucket | None:
        return self.buckets.get("requests")


def parse_rate_limit_headers(headers: Mapping[str, Any] | Any, now: datetime | None = None) -> RateLimitInfo | None:
    """The buckets the headers describe (a bucket needs at least its limit and remaining), or None."""
    buckets: dict[str, Bucket] = {}
    for kind in KINDS:
        limit = _number(headers.get(f"{PREFIX}{kind}-limit"))
        remaining = _number(headers.get(f"{PREFIX}{kind}-remaining"))
        if limit is None or remaining is None or limit <= 0:
            continue
        buckets[kind] = Bucket(limit, remaining, _seconds_until(headers.get(f"{PREFIX}{kind}-reset"), now))
    return RateLimitInfo(buckets) if buckets else None


def _number(value: Any) -> float | None:
    try:
        return float(value) if value is not None else None
    except (TypeError, ValueError):
        return None


def _seconds_until(value: Any, now: datetime | None) -> float | None:
    if not value:
        return None
    try:
        when = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError:
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return max(0.0, (when - (now or datetime.now(timezone.utc))).total_seconds())
