"""Model calls: the client (retries, concurrency, cache, usage), prices, model tiers and lifecycle,
the providers and Message Batches."""

__all__ = [
    "batching",
    "budget",
    "cache",
    "capabilities",
    "client",
    "concurrency",
    "model_lifecycle",
    "pricing",
    "tiers",
    "usage",
]
