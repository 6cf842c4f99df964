"""Message Batches: a run's prompt-target, judge and extraction calls sent as asynchronous
batches (half price) instead of one request each. See `evalkit.llm.batching.batcher`."""

from evalkit.llm.batching.batcher import Batcher, BatchStats, PollPolicy, batch_eligible
from evalkit.llm.batching.setup import batch_notes, batch_run, use_batches
from evalkit.llm.batching.store import BatchStore, store_path_for

__all__ = [
    "BatchStats",
    "BatchStore",
    "Batcher",
    "PollPolicy",
    "batch_eligible",
    "batch_notes",
    "batch_run",
    "store_path_for",
    "use_batches",
]
