"""Prompt-cache prefixes: the model's minimum, how a plan prices reads and writes, and the run's
warm-up (requests sharing a prefix wait for the one writing it, so they read it)."""

from __future__ import annotations

import asyncio
import threading

import pytest

from evalkit.llm.client import ModelClient
from evalkit.llm.pricing import cost_usd
from evalkit.llm.prompt_prefix import PrefixLedger, cacheable_prefixes, min_cacheable_tokens
from evalkit.llm.providers.anthropic import AnthropicProvider
from evalkit.llm.providers.interface import CACHE_CONTROL, ModelRequest
from evalkit.testing.fake_anthropic import FakeAnthropicServer
from evalkit.testing.script import Script

SHARED = "Runner data. " * 400  # ~1,300 tokens by the 4-characters estimate


def request(task: str, model: str = "claude-sonnet-4-6", shared: str = SHARED) -> ModelRequest:
    content = [{"type": "text", "text": shared, "cache_control": CACHE_CONTROL}, {"type": "text", "text": task}]
    return ModelRequest(model=model, system="You coach.", messages=({"role": "user", "content": content},))


def test_each_model_caches_from_its_own_minimum_and_an_unlisted_model_from_the_largest():
    assert min_cacheable_tokens("claude-sonnet-4-6") == 1024 and min_cacheable_tokens("claude-opus-4-1") == 1024
    assert min_cacheable_tokens("claude-haiku-4-5-20251001") == 4096 == min_cacheable_tokens("claude-opus-4-5")
    assert min_cacheable_tokens("some-new-model") == 4096
    assert len(cacheable_prefixes(request("a").to_api_body())) == 1
    assert cacheable_prefixes(request("a", model="claude-haiku-4-5").to_api_body()) == []  # under 4,096
    assert cacheable_prefixes(request("a", shared="short").to_api_body()) == []
    assert cacheable_prefixes(ModelRequest.from_prompt(SHARED, model="claude-sonnet-4-6").to_api_body()) == []


def test_the_plan_writes_a_prefix_once_then_reads_it_and_prices_both_at_cache_rates():
    ledger = PrefixLedger()
    [(_, size)] = cacheable_prefixes(request("a").to_api_body())
    first = ledger.split(request("a").to_api_body(), size + 20)
    second = ledger.split(request("b").to_api_body(), size + 20)
    assert first == (20, 0, size) and second == (20, size, 0)
    assert ledger.split(request("c", shared=SHARED + "x").to_api_body(), size + 20)[2] > 0  # another prefix
    plain = cost_usd("claude-sonnet-4-6", size + 20, 0)
    read = cost_usd("claude-sonnet-4-6", 20, 0, cache_read_tokens=size)
    write = cost_usd("claude-sonnet-4-6", 20, 0, cache_write_tokens=size)
    assert read < plain / 5 and plain < write < plain * 1.3


def run_concurrently(fake: FakeAnthropicServer, requests: list[ModelRequest], through_client: bool):
    provider = AnthropicProvider(api_key="k", base_url=fake.url)
    client = ModelClient(provider, concurrency=8)

    async def every():
        try:
            if through_client:
                return await asyncio.gather(*(client.generate(r) for r in requests))
            return await asyncio.gather(*(provider.generate(r) for r in requests))
        finally:
            await provider.aclose()

    return asyncio.run(every())


@pytest.mark.parametrize("through_client, writes", [(False, 4), (True, 1)])
def test_requests_sharing_a_prefix_wait_for_its_writer_and_read_it(through_client, writes, fake_anthropic):
    # The fake, as the API: a request sent while the writer is in flight writes the prefix again.
    # The client holds the others until the first is answered: one write, three reads. Straight to the
    # provider, the fake answers none of the four before all four have arrived (a barrier, not a time
    # window a loaded machine could miss); through the client, the first waits out a latency that the
    # others would overlap were they not held.
    if through_client:
        fake = fake_anthropic(Script().reply("ok"), latency=0.3)
    else:
        all_arrived = threading.Barrier(4, timeout=120)  # a hang guard: the four arrive at once

        def answer_once_all_arrived(body: dict) -> str:
            all_arrived.wait()
            return "ok"

        fake = fake_anthropic(Script().respond(answer_once_all_arrived))
    replies = run_concurrently(fake, [request(f"task {i}") for i in range(4)], through_client)
    assert sum(r.cache_write_tokens > 0 for r in replies) == writes
    assert sum(r.cache_read_tokens > 0 for r in replies) == 4 - writes


def test_a_failed_writer_leaves_the_prefix_to_be_written_by_the_next_request(fake_anthropic):
    # Had the failed call counted as written, the two after it would both go at once and both write.
    script = Script().fault("400", prompt="task 0").reply("ok")
    fake = fake_anthropic(script, latency=0.3)
    provider = AnthropicProvider(api_key="k", base_url=fake.url)
    client = ModelClient(provider, concurrency=8)

    async def three():
        first = asyncio.ensure_future(client.generate(request("task 0")))
        await asyncio.sleep(0.05)  # the others arrive while it is in flight
        rest = asyncio.gather(*(client.generate(request(f"task {i}")) for i in (1, 2)))
        with pytest.raises(Exception, match="400|Bad request"):
            await first
        replies = await rest
        await provider.aclose()
        return replies

    replies = asyncio.run(three())
    assert sorted((r.cache_write_tokens > 0, r.cache_read_tokens > 0) for r in replies) == [
        (False, True),
        (True, False),
    ]


@pytest.mark.parametrize(
    "model, shared, cached",
    [
        ("claude-sonnet-4-6", SHARED, True),
        ("claude-sonnet-4-6", "Runner data. " * 200, False),  # ~650 tokens: under Sonnet's 1,024
        ("claude-haiku-4-5", SHARED, False),  # ~1,300 tokens: under Haiku's larger minimum
    ],
)
def test_the_fake_caches_no_prefix_under_the_models_minimum(model, shared, cached, fake_anthropic):
    fake = fake_anthropic(Script().reply("ok"))
    replies = run_concurrently(fake, [request("a", model, shared)], through_client=False)
    assert (replies[0].cache_write_tokens > 0) is cached and replies[0].cache_read_tokens == 0
