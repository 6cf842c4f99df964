"""One run: the runner's orchestration, targets, sharding, the case queue and user code's calls."""

__all__ = [
    "case_queue",
    "dry_run",
    "runner",
    "sharding",
    "stored",
    "targets",
    "user_code",
]
