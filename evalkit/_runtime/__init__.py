"""Process plumbing shared by the rooms (private to evalkit): atomic writes, signals, the garbage
collector during a run, lazy exports, user calls, exit guard."""

from __future__ import annotations

from typing import TYPE_CHECKING

from evalkit._runtime.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from evalkit._runtime.asyncio_run import run_blocking
    from evalkit._runtime.atomic_write import probe_writable, write_atomic
    from evalkit._runtime.current_client import current_client
    from evalkit._runtime.end_of_turn import before_next_wait
    from evalkit._runtime.import_names import import_module, import_object, repository_root
    from evalkit._runtime.lazy_exports import lazy_exports
    from evalkit._runtime.out_of_reach import (
        keep_out_of_reach,
        mark_non_dumpable,
        overlaps_credential,
        wipe_initial_environ,
        without_credentials,
        without_ptrace,
    )
    from evalkit._runtime.queue_time import queued
    from evalkit._runtime.redaction import (
        MIN_SECRET_CHARS,
        held_back,
        known,
        labelled,
        protect,
        redact_text,
        redacted,
        secret_names,
        secret_values,
    )
    from evalkit._runtime.signals import Terminated, exit_code, run_stoppable
    from evalkit._runtime.user_calls import (
        USER_EXITS,
        DaemonPool,
        call_shape,
        cancelled_words,
        describe_exit,
        is_cancellation,
        output_problem,
        takes_messages,
        tool_answer,
        user_traceback,
    )

# What the other rooms (and a team's code) use of this one; each name loads its module on first use.
__all__ = [
    "DaemonPool",
    "MIN_SECRET_CHARS",
    "Terminated",
    "USER_EXITS",
    "before_next_wait",
    "call_shape",
    "cancelled_words",
    "current_client",
    "describe_exit",
    "exit_code",
    "held_back",
    "import_module",
    "import_object",
    "is_cancellation",
    "keep_out_of_reach",
    "known",
    "labelled",
    "lazy_exports",
    "mark_non_dumpable",
    "output_problem",
    "overlaps_credential",
    "probe_writable",
    "protect",
    "queued",
    "redact_text",
    "redacted",
    "repository_root",
    "run_blocking",
    "run_stoppable",
    "secret_names",
    "secret_values",
    "takes_messages",
    "tool_answer",
    "user_traceback",
    "wipe_initial_environ",
    "without_credentials",
    "without_ptrace",
    "write_atomic",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "run_blocking": "evalkit._runtime.asyncio_run",
        "probe_writable": "evalkit._runtime.atomic_write",
        "write_atomic": "evalkit._runtime.atomic_write",
        "current_client": "evalkit._runtime.current_client",
        "before_next_wait": "evalkit._runtime.end_of_turn",
        "import_module": "evalkit._runtime.import_names",
        "import_object": "evalkit._runtime.import_names",
        "repository_root": "evalkit._runtime.import_names",
        "lazy_exports": "evalkit._runtime.lazy_exports",
        "keep_out_of_reach": "evalkit._runtime.out_of_reach",
        "mark_non_dumpable": "evalkit._runtime.out_of_reach",
        "overlaps_credential": "evalkit._runtime.out_of_reach",
        "wipe_initial_environ": "evalkit._runtime.out_of_reach",
        "without_credentials": "evalkit._runtime.out_of_reach",
        "without_ptrace": "evalkit._runtime.out_of_reach",
        "queued": "evalkit._runtime.queue_time",
        "MIN_SECRET_CHARS": "evalkit._runtime.redaction",
        "held_back": "evalkit._runtime.redaction",
        "known": "evalkit._runtime.redaction",
        "labelled": "evalkit._runtime.redaction",
        "protect": "evalkit._runtime.redaction",
        "redact_text": "evalkit._runtime.redaction",
        "redacted": "evalkit._runtime.redaction",
        "secret_names": "evalkit._runtime.redaction",
        "secret_values": "evalkit._runtime.redaction",
        "Terminated": "evalkit._runtime.signals",
        "exit_code": "evalkit._runtime.signals",
        "run_stoppable": "evalkit._runtime.signals",
        "DaemonPool": "evalkit._runtime.user_calls",
        "USER_EXITS": "evalkit._runtime.user_calls",
        "call_shape": "evalkit._runtime.user_calls",
        "cancelled_words": "evalkit._runtime.user_calls",
        "describe_exit": "evalkit._runtime.user_calls",
        "is_cancellation": "evalkit._runtime.user_calls",
        "output_problem": "evalkit._runtime.user_calls",
        "takes_messages": "evalkit._runtime.user_calls",
        "tool_answer": "evalkit._runtime.user_calls",
        "user_traceback": "evalkit._runtime.user_calls",
    },
)

del annotations, TYPE_CHECKING, lazy_exports
