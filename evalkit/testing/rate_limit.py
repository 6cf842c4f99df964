"""A token-bucket rate limit for the loopback fake, answering as the Messages API does: every
reply carries `anthropic-ratelimit-*` headers and a call over the limit gets a 429 with
`retry-after` (whole seconds, as the API sends)."""

from __future__ import annotations

import math
import threading
import time
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Callable


@dataclass
class _Bucket:
    per_minute: float
    capacity: float
    level: float
    at: float

    def refill(self, now: float) -> None:
        self.level = min(self.capacity, self.level + (now - self.at) * self.per_minute / 60.0)
        self.at = now

    def seconds_until(self, amount: float) -> float:
        return max(0.0, (min(amount, self.capacity) - self.level) * 60.0 / self.per_minute)


@dataclass
class RateLimit:
    """`requests_per_minute` (and optionally input tokens a minute), refilled continuously.

    `burst` is the bucket's capacity: by default the whole per-minute limit (Anthropic's
    buckets); a smaller one makes the limit bite at once.
    """

    requests_per_minute: float
    burst: float | None = None
    input_tokens_per_minute: float | None = None
    clock: Callable[[], float] = time.monotonic
    rejected: int = 0
    accepted: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    _buckets: dict[str, _Bucket] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        now = self._now()
        cap = self.burst if self.burst is not None else self.requests_per_minute
        self._buckets["requests"] = _Bucket(self.requests_per_minute, cap, cap, now)
        if self.input_tokens_per_minute:
            tcap = self.input_tokens_per_minute * cap / self.requests_per_minute
            self._buckets["input-tokens"] = _Bucket(self.input_tokens_per_minute, tcap, tcap, now)

    def _now(self) -> float:
        return self.clock()

    def admit(self, input_tokens: int) -> tuple[bool, dict[str, str]]:
        """Take one request (and its input tokens) if every bucket has them; the reply's headers."""
        with self._lock:
            now = self._now()
            need = {"requests": 1.0, "input-tokens": float(input_tokens)}
            for bucket in self._buckets.values():
                bucket.refill(now)
            short = [k for k, b in self._buckets.items() if b.level < min(need[k], b.capacity)]
            if short:
                self.rejected += 1
                wait = max(self._buckets[k].seconds_until(need[k]) for k in short)
                headers = self._headers()
                headers["retry-after"] = str(max(1, math.ceil(wait)))
                return False, headers
            for kind, bucket in self._buckets.items():
                bucket.level -= min(need[kind], bucket.capacity)
            self.accepted += 1
            return True, self._headers()

    def _headers(self) -> dict[str, str]:
        headers = {}
        wall = datetime.now(timezone.utc)
        for kind, b in self._buckets.items():
            full_at = wall + timedelta(seconds=b.seconds_until(b.capacity))
            prefix = f"anthropic-ratelimit-{kind}"
            headers[f"{prefix}-limit"] = str(int(b.per_minute))
            headers[f"{prefix}-remaining"] = str(max(0, int(b.level)))
            headers[f"{prefix}-reset"] = full_at.isoformat(timespec="seconds").replace("+00:00", "Z")
        return headers
