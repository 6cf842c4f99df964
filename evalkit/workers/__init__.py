"""Worker processes user code runs in: the pool, one process, the protocol, the worker's side and
the client agent code gets there."""

from __future__ import annotations

from typing import TYPE_CHECKING

from evalkit._runtime.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from evalkit.workers.link import PICKLE
    from evalkit.workers.pool import TIMED_OUT, WorkerPool
    from evalkit.workers.process import signal_name

# What the other rooms (and a team's code) use of this one; each name loads its module on first use.
__all__ = [
    "PICKLE",
    "TIMED_OUT",
    "WorkerPool",
    "signal_name",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "PICKLE": "evalkit.workers.link",
        "TIMED_OUT": "evalkit.workers.pool",
        "WorkerPool": "evalkit.workers.pool",
        "signal_name": "evalkit.workers.process",
    },
)

del annotations, TYPE_CHECKING, lazy_exports
