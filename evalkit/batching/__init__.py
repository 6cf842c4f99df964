"""Message Batches: a run's prompt-target, judge and extraction calls sent as asynchronous
batches (half price) instead of one request each. See `evalkit.batching.batcher`."""

from evalkit.batching.batcher import Batcher, BatchStats, PollPolicy, batch_eligible
from evalkit.batching.setup import batch_notes, batch_run, use_batches
from evalkit.batching.store import BatchStore, store_path_for

__all__ = ["BatchStats", "BatchStore", "Batcher", "PollPolicy", "batch_eligible", "batch_notes", "batch_run", "store_path_for",
           "use_batches"]
