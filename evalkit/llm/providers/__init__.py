"""Model providers behind evalkit's client: the interface, the Anthropic provider (built lazily),
its Message Batches and rate-limit headers."""

__all__ = [
    "anthropic",
    "batches",
    "interface",
    "lazy",
    "ratelimit",
    "token_count",
]
