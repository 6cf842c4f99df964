"""Worker processes user code runs in: the pool, one process, the protocol, the worker's side and
the client agent code gets there."""

__all__ = [
    "client_proxy",
    "link",
    "pool",
    "process",
    "worker_main",
]
