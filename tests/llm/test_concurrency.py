"""Adaptive concurrency: a 429 cuts the window and holds new calls, successes grow it back, the
rate-limit headers pace call starts before a 429 comes; end to end against the fake's bucket."""

from __future__ import annotations

import asyncio

import pytest

from evalkit.engine import load_suites, make_client, run
from evalkit.llm.client import ModelClient
from evalkit.llm.concurrency import AdaptiveLimiter
from evalkit.llm.providers.anthropic import AnthropicProvider
from evalkit.llm.providers.interface import ModelRequest
from evalkit.llm.providers.ratelimit import Bucket, RateLimitInfo, parse_rate_limit_headers
from evalkit.run.runner import RunOptions
from evalkit.testing.rate_limit import RateLimit
from evalkit.testing.script import Script


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def requests_left(remaining: float, limit: float = 600) -> RateLimitInfo:
    return RateLimitInfo({"requests": Bucket(limit=limit, remaining=remaining)})


def test_a_429_halves_the_window_once_per_event_down_to_the_floor_and_successes_grow_it_back():
    clock = Clock()
    limiter = AdaptiveLimiter(64, floor=4, clock=clock)
    assert limiter.window == 4  # slow start
    for _ in range(60):
        limiter.succeeded(None)
    assert limiter.window == 64  # +1 a success: doubling each round trip
    started_before = clock.now
    clock.now += 1
    limiter.rate_limited(started_before, 2.0, None)
    assert limiter.window == 32
    limiter.rate_limited(started_before, 2.0, None)  # a call started before the cut: no second cut
    assert limiter.window == 32 and limiter.stats.rejected == 2
    for _ in range(5):
        clock.now += 1
        limiter.rate_limited(clock.now, 0.5, None)
    assert limiter.window == 4  # the floor
    grown = [limiter.window]
    for _ in range(200):
        limiter.succeeded(None)
        grown.append(limiter.window)
    assert grown == sorted(grown) and 4 < grown[-1] <= 64
    assert grown[4] - grown[0] <= 1.01  # additive: about one more per window of successes
    for _ in range(5000):
        limiter.succeeded(None)
    assert limiter.window == 64  # never past the ceiling


def test_headers_drive_pacing_on_and_off():
    limiter = AdaptiveLimiter(32)
    limiter.window = 32
    limiter.succeeded(requests_left(500))
    assert limiter._interval == 0 and not limiter.stats.paced  # the bucket has room for everything in flight
    limiter.succeeded(requests_left(10, limit=600))
    assert limiter._interval == pytest.approx(0.1 * 1.05)  # 600 a minute: one start every 0.1 s (+5 %)
    assert limiter.stats.paced
    limiter.succeeded(requests_left(400))
    assert limiter._interval == 0
    tokens = RateLimitInfo({"input-tokens": Bucket(limit=60_000, remaining=100)})
    for _ in range(50):
        limiter.succeeded(None, input_tokens=1000)
    limiter.succeeded(tokens, input_tokens=1000)
    assert limiter._interval == pytest.approx(1000 * 60 / 60_000 * 1.05, rel=0.05)


def test_the_pause_after_a_429_holds_new_calls():
    async def scenario():
        slept: list[float] = []

        async def sleep(seconds: float) -> None:
            slept.append(seconds)

        clock = Clock()
        limiter = AdaptiveLimiter(4, clock=clock, sleep=sleep)
        limiter.rate_limited(clock.now, 3.0, None)
        await limiter.acquire()
        return slept, limiter.stats.paused_seconds

    slept, paused = asyncio.run(scenario())
    assert slept == [3.0] and paused == 3.0


def test_the_window_bounds_calls_in_flight():
    async def scenario():
        limiter = AdaptiveLimiter(8)
        limiter.window = 3
        peak = 0

        async def call():
            nonlocal peak
            async with limiter.slot():
                peak = max(peak, limiter.in_flight)
                await asyncio.sleep(0.01)

        await asyncio.gather(*(call() for _ in range(20)))
        return peak, limiter.in_flight

    assert asyncio.run(scenario()) == (3, 0)


def test_rate_limit_headers_are_read_in_any_case_from_httpx_headers_and_from_a_mapping():
    import datetime

    import httpx2

    now = datetime.datetime(2026, 11, 23, 12, 0, 0, tzinfo=datetime.timezone.utc)
    said = {
        "Anthropic-RateLimit-Requests-Limit": "600",
        "anthropic-ratelimit-requests-remaining": "12",
        "ANTHROPIC-RATELIMIT-REQUESTS-RESET": "2026-11-23T12:00:30Z",
        "anthropic-ratelimit-input-tokens-limit": "40000",
        "anthropic-ratelimit-input-tokens-remaining": "39000",
        "anthropic-ratelimit-tokens-limit": "not a number",
        "anthropic-ratelimit-tokens-remaining": "5",
        "anthropic-ratelimit-output-tokens-limit": "0",
        "anthropic-ratelimit-output-tokens-remaining": "0",
        "content-type": "application/json",
        "request-id": "req_1",
    }
    for headers in (said, httpx2.Headers(said)):
        info = parse_rate_limit_headers(headers, now)
        assert set(info.buckets) == {"requests", "input-tokens"}  # a bucket without a usable limit is left out
        requests = info.requests
        assert (requests.limit, requests.remaining, requests.reset_in) == (600, 12, 30.0)
        assert info.buckets["input-tokens"].reset_in is None  # no reset header
    assert parse_rate_limit_headers(httpx2.Headers({"content-type": "application/json"})) is None


def test_the_provider_surfaces_rate_limit_headers(fake_anthropic):
    limit = RateLimit(600, burst=5)
    fake = fake_anthropic(Script().reply("ok"), rate_limit=limit)

    async def call():
        provider = AnthropicProvider(api_key="k", base_url=fake.url)
        try:
            return await provider.generate(ModelRequest.from_prompt("hi", model="claude-haiku-4-5"))
        finally:
            await provider.aclose()

    response = asyncio.run(call())
    bucket = response.rate_limit.requests
    assert (bucket.limit, bucket.remaining) == (600, 4) and bucket.reset_in is not None
    assert parse_rate_limit_headers({}) is None


def test_against_a_token_bucket_the_run_paces_itself_with_few_rejections(write, tmp_path, fake_anthropic):
    n = 300
    cases = "\n".join(f"  - {{id: c{i}, input: {{i: {i}}}, checks: [{{type: equals, value: ok}}]}}" for i in range(n))
    suite = write(
        "s.yml", f"name: limited\ntarget: {{prompt: 'Say ok {{{{ i }}}}'}}\nmodel: claude-haiku-4-5\ncases:\n{cases}\n"
    )
    limit = RateLimit(12_000, burst=20)  # 200 a second after a burst of 20
    fake = fake_anthropic(Script().reply("ok"), latency=0.02, rate_limit=limit)
    client = make_client(
        AnthropicProvider(api_key="k", base_url=fake.url, max_connections=64),
        concurrency=64,
        no_cache=True,
        deprecated=None,
    )
    report = run(load_suites([suite]), client, RunOptions())
    assert report.verdict == "pass"
    assert limit.accepted == n
    assert limit.rejected < 0.05 * (limit.accepted + limit.rejected)
    assert report.rate_limit.paced and report.rate_limit.rejected == limit.rejected


def test_a_client_with_a_fixed_window_would_meet_many_more_429s(tmp_path, fake_anthropic):
    # The contrast that makes the previous test mean something: a bucket of the same burst, no pacing.
    # It refills at 10 a second (not 200): on a loaded machine the calls could trickle out slowly
    # enough for a fast bucket to keep up, and the test would fail for the machine's sake.
    limit = RateLimit(600, burst=20)
    fake = fake_anthropic(Script().reply("ok"), latency=0.02, rate_limit=limit)

    async def burst():
        provider = AnthropicProvider(api_key="k", base_url=fake.url, max_connections=64)
        client = ModelClient(provider, concurrency=64)
        client.limiter._pace = lambda info: None  # headers ignored and the whole ceiling at once, as before
        client.limiter.window, client.limiter._slow_start = 64.0, False
        reqs = [ModelRequest.from_prompt(f"x{i}", model="claude-haiku-4-5") for i in range(60)]
        await asyncio.gather(*(client.generate(r) for r in reqs), return_exceptions=True)
        await provider.aclose()

    asyncio.run(burst())
    assert limit.rejected > 0.05 * (limit.accepted + limit.rejected)


def test_headers_with_room_for_the_ceiling_end_the_slow_start_at_once():
    async def scenario():
        limiter = AdaptiveLimiter(32)
        assert limiter.window == 4
        limiter.succeeded(requests_left(8, limit=600))  # a bucket nearly empty: keep creeping (and pace)
        assert limiter.window == 5 and limiter._slow_start
        limiter.succeeded(requests_left(3900, limit=4000))  # room for all 32: open at once
        assert limiter.window == 32 and not limiter._slow_start

        # Calls waiting for room are all woken when the window opens, not one by one.
        limiter = AdaptiveLimiter(16)
        held = [await limiter.acquire() for _ in range(4)]
        waiting = [asyncio.ensure_future(limiter.acquire()) for _ in range(12)]
        await asyncio.sleep(0)
        assert not any(w.done() for w in waiting) and len(held) == 4
        limiter.succeeded(requests_left(3900, limit=4000))
        await asyncio.sleep(0)
        assert all(w.done() for w in waiting) and limiter.in_flight == 16

        # Tokens count too: a token bucket without room for the ceiling's calls keeps the slow start.
        limiter = AdaptiveLimiter(32)
        tokens = RateLimitInfo(
            {"requests": Bucket(limit=4000, remaining=3999), "input-tokens": Bucket(limit=400_000, remaining=20_000)}
        )
        limiter._tokens_per_call = 2_000  # the running mean of a prompt's input tokens
        limiter.succeeded(tokens, input_tokens=2_000)
        assert limiter._slow_start and limiter.window == 5

    asyncio.run(scenario())
