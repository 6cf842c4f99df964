"""Deadlines of one length share one timer and behave as asyncio.timeout does: TimeoutError past
the time, nothing before it, a cancellation from elsewhere left as it is."""

from __future__ import annotations

import asyncio

import pytest

from evalkit.deadlines import deadline, queue_for


async def guarded(seconds: float, work: float) -> str:
    try:
        with deadline(seconds):
            await asyncio.sleep(work)
    except TimeoutError:
        return "timeout"
    return "done"


def test_blocks_past_their_deadline_time_out_and_the_others_finish():
    async def main():
        # Interleaved: a long block at the front of the queue must not hold back the short ones
        # behind it, nor they its expiry.
        results = await asyncio.gather(*(guarded(0.1, work) for work in (5, 0.01, 5, 0.01, 0.02)))
        return results, len(queue_for(0.1))

    results, left = asyncio.run(main())
    assert results == ["timeout", "done", "timeout", "done", "done"]
    assert left == 0  # every entry is gone once its block ended


def test_a_task_whose_block_timed_out_goes_on_uncancelled():
    async def main():
        assert await guarded(0.02, 5) == "timeout"
        task = asyncio.current_task()
        assert task.cancelling() == 0
        await asyncio.sleep(0.01)  # not cancelled again
        return "went on"

    assert asyncio.run(main()) == "went on"


def test_deadlines_of_different_lengths_keep_their_own_order():
    async def main():
        long = asyncio.ensure_future(guarded(0.5, 0.2))
        short = asyncio.ensure_future(guarded(0.05, 0.2))
        return await long, await short

    assert asyncio.run(main()) == ("done", "timeout")


def test_a_cancellation_from_elsewhere_is_not_turned_into_a_timeout():
    async def main():
        task = asyncio.ensure_future(guarded(5, 5))
        await asyncio.sleep(0.01)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        return len(queue_for(5))

    assert asyncio.run(main()) == 0


def test_a_block_that_ends_in_time_is_never_cancelled_later():
    async def main():
        assert await guarded(0.05, 0) == "done"
        await asyncio.sleep(0.1)  # past the deadline the block had: nothing fires at this task
        return asyncio.current_task().cancelling()

    assert asyncio.run(main()) == 0


def test_outside_a_task_a_deadline_is_refused():
    with pytest.raises(RuntimeError, match="inside a task"):
        deadline(1).__enter__()
