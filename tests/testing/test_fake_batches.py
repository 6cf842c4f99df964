"""The loopback fake's Message Batches endpoints, through the real anthropic SDK's
`client.messages.batches`: create, retrieve, results (JSONL), cancel, and chosen failures."""

from __future__ import annotations

import anthropic
import pytest

from evalkit.testing.fake_anthropic import FakeAnthropicServer
from evalkit.testing.script import Script


def requests(*prompts: str) -> list[dict]:
    return [
        {
            "custom_id": f"r{i}",
            "params": {"model": "claude-haiku-4-5", "max_tokens": 32, "messages": [{"role": "user", "content": p}]},
        }
        for i, p in enumerate(prompts)
    ]


def test_a_batch_is_in_progress_for_its_delay_then_its_results_match_by_custom_id():
    # A delay no run of this test outlasts, then none: the batch's clock, not the machine's speed.
    with FakeAnthropicServer(
        Script().reply("hi Ada", prompt="Ada").reply("hi Bob", prompt="Bob"), batch_delay=3600
    ) as fake:
        client = anthropic.Anthropic(api_key="k", base_url=fake.url, max_retries=0)
        batch = client.messages.batches.create(requests=requests("Ada", "Bob"))
        assert batch.processing_status == "in_progress" and batch.request_counts.processing == 2
        assert batch.results_url is None
        fake.batches.processing_delay = 0  # its delay is over
        ended = client.messages.batches.retrieve(batch.id)
        assert ended.processing_status == "ended" and ended.request_counts.succeeded == 2
        assert ended.ended_at is not None and ended.results_url.endswith(f"/{batch.id}/results")
        got = {r.custom_id: r.result for r in client.messages.batches.results(batch.id)}
        assert got["r0"].type == "succeeded" and got["r0"].message.content[0].text == "hi Ada"
        assert got["r1"].message.content[0].text == "hi Bob"
        assert fake.batches.creates == 1 and fake.request_count == 0


def test_chosen_requests_end_errored_or_expired_and_a_canceled_batch_cancels_the_rest():
    with FakeAnthropicServer(Script().reply("ok"), batch_delay=0) as fake:
        fake.batches.fail("expired", prompt="late").fail("errored", prompt="broken", times=1)
        client = anthropic.Anthropic(api_key="k", base_url=fake.url, max_retries=0)
        batch = client.messages.batches.create(requests=requests("late", "broken", "broken", "fine"))
        got = {r.custom_id: r.result.type for r in client.messages.batches.results(batch.id)}
        assert got == {"r0": "expired", "r1": "errored", "r2": "succeeded", "r3": "succeeded"}
        fake.batches.processing_delay = 60
        slow = client.messages.batches.create(requests=requests("fine"))
        assert client.messages.batches.cancel(slow.id).processing_status == "canceling"
        assert client.messages.batches.retrieve(slow.id).request_counts.canceled == 1
        assert [r.result.type for r in client.messages.batches.results(slow.id)] == ["canceled"]


@pytest.mark.parametrize(
    "bad, problem",
    [
        ([], "non-empty list"),
        ([{"custom_id": "has space", "params": {"model": "m", "max_tokens": 1, "messages": []}}], "custom_id"),
        (requests("a") + requests("b"), "not unique"),
        ([{"custom_id": "x", "params": {"model": "m"}}], "max_tokens, messages required"),
    ],
)
def test_a_malformed_batch_is_a_400_naming_the_problem(bad, problem):
    with FakeAnthropicServer(Script().reply("ok")) as fake:
        client = anthropic.Anthropic(api_key="k", base_url=fake.url, max_retries=0)
        with pytest.raises(anthropic.BadRequestError, match=problem):
            client.messages.batches.create(requests=bad)
        with pytest.raises(anthropic.NotFoundError):
            client.messages.batches.retrieve("msgbatch_unknown")
