"""Process plumbing shared by the rooms (private to evalkit): atomic writes, signals, the garbage
collector during a run, lazy exports, user calls, exit guard."""

__all__ = [
    "asyncio_run",
    "atomic_write",
    "current_client",
    "end_of_turn",
    "exit_guard",
    "gc_pause",
    "import_names",
    "lazy_exports",
    "out_of_reach",
    "queue_time",
    "redaction",
    "signals",
    "unprivileged",
    "user_calls",
]
