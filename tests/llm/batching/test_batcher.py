"""The Batcher against an in-process BatchAPI: waves, resumption and the failure paths that the
loopback fake does not produce (a failed submission, a vanished batch, a broken results stream)."""

from __future__ import annotations

import asyncio
from typing import Any, AsyncIterator

import pytest

from evalkit.errors import ProviderError
from evalkit.llm.batching import Batcher, BatchStore, PollPolicy
from evalkit.llm.providers.batches import BatchResult, BatchStatus
from evalkit.llm.providers.interface import ModelRequest, ModelResponse

FAST = PollPolicy(first=0.01, factor=1.0, most=0.01, gather=0.01, max_wait=0.5, api_attempts=3)


class MemoryBatches:
    """Answers every request with its prompt reversed; failures are switched on per test."""

    def __init__(self) -> None:
        self.batches: dict[str, list[dict[str, Any]]] = {}
        self.fail_create: ProviderError | None = None
        self.gone: set[str] = set()
        self.broken_streams = 0  # results streams that break after one line

    async def create(self, requests: list[dict[str, Any]]) -> BatchStatus:
        if self.fail_create is not None:
            raise self.fail_create
        batch_id = f"b{len(self.batches)}"
        self.batches[batch_id] = requests
        return BatchStatus(batch_id, False, {"processing": len(requests)})

    async def retrieve(self, batch_id: str) -> BatchStatus:
        if batch_id in self.gone or batch_id not in self.batches:
            raise ProviderError("Anthropic API 404 not_found_error: no such batch", retryable=False, status=404)
        return BatchStatus(batch_id, True, {"succeeded": len(self.batches[batch_id])})

    async def results(self, batch_id: str) -> AsyncIterator[BatchResult]:
        for i, request in enumerate(self.batches[batch_id]):
            if i == 1 and self.broken_streams:
                self.broken_streams -= 1
                raise ProviderError("connection dropped", retryable=True)
            text = request["params"]["messages"][0]["content"][::-1]
            yield BatchResult(request["custom_id"], "succeeded", response=ModelResponse(text=text, model="m"))

    async def cancel(self, batch_id: str) -> BatchStatus:
        return BatchStatus(batch_id, True, {})


def ask(batcher: Batcher, *prompts: str) -> list[Any]:
    async def all_of() -> list[Any]:
        calls = [batcher.generate(ModelRequest.from_prompt(p, model="m"), f"key-{p}") for p in prompts]
        return list(await asyncio.gather(*calls, return_exceptions=True))

    return asyncio.run(all_of())


def test_calls_arriving_together_are_one_batch_and_each_gets_its_own_reply():
    api = MemoryBatches()
    replies = ask(Batcher(api, poll=FAST), "abc", "xyz", "pqr")
    assert [r.text for r in replies] == ["cba", "zyx", "rqp"] and all(r.batch for r in replies)
    assert len(api.batches) == 1


def test_a_failed_submission_is_an_error_for_every_call_without_a_second_try():
    api = MemoryBatches()
    api.fail_create = ProviderError("Anthropic API 400 invalid_request_error: too big", retryable=False, status=400)
    replies = ask(Batcher(api, poll=FAST), "abc", "xyz")
    assert all(isinstance(r, ProviderError) and "could not be submitted" in str(r) for r in replies)
    assert "after a retry" not in str(replies[0])


def test_a_broken_results_stream_is_read_again(tmp_path):
    api = MemoryBatches()
    api.broken_streams = 1
    replies = ask(Batcher(api, poll=FAST), "abc", "xyz", "pqr")
    assert [r.text for r in replies] == ["cba", "zyx", "rqp"] and len(api.batches) == 1


def test_a_saved_batch_is_resumed_and_one_that_vanished_is_submitted_again(tmp_path):
    store = BatchStore(tmp_path / "r.batches.json")
    api = MemoryBatches()
    api.batches["old"] = [{"custom_id": "key-abc", "params": {"messages": [{"content": "abc"}]}}]
    api.batches["lost"] = [{"custom_id": "key-xyz", "params": {"messages": [{"content": "xyz"}]}}]
    api.gone.add("lost")
    store.add("old", ["key-abc"])
    store.add("lost", ["key-xyz"])
    batcher = Batcher(api, BatchStore(store.path), poll=FAST)
    replies = ask(batcher, "abc", "xyz")
    assert [r.text for r in replies] == ["cba", "zyx"]
    assert batcher.stats.resumed == 1 and batcher.stats.retried == 1
    assert [r["custom_id"] for r in api.batches["b2"]] == ["key-xyz"]  # only the lost one went again
    batcher.finished()
    assert not store.path.exists()


def test_a_damaged_store_costs_a_resubmission_never_the_run(tmp_path):
    path = tmp_path / "r.batches.json"
    path.write_text("{not json")
    api = MemoryBatches()
    assert [r.text for r in ask(Batcher(api, BatchStore(path), poll=FAST), "abc")] == ["cba"]


@pytest.mark.parametrize(
    "role, eligible, batched",
    [("judge", False, True), ("extraction", False, True), ("target", False, False), ("target", True, True)],
)
def test_which_calls_are_batched(role, eligible, batched):
    from evalkit.llm.batching import batch_eligible

    token = batch_eligible.set(eligible)
    try:
        assert Batcher(MemoryBatches()).takes(role) is batched
    finally:
        batch_eligible.reset(token)
