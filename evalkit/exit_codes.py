"""Every exit code evalkit ends a process with, in one table: the front doors' (the `evalkit`
command, the Action's entrypoint, the base ref's child run) and the Action worker's protocol.
No other module writes an exit code as a number (tests/test_exit_codes.py holds it)."""

from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    """What a front door's exit code means to the user and to CI."""

    PASSED = 0  # every gate passed (or nothing to run, or a skip)
    GATE_FAILED = 1  # a gate failed, an error row stands, or a comparison regressed
    USAGE = 2  # the user must fix something: a flag, a suite file, a setting, user code that ended evalkit
    INTERNAL = 3  # as pytest's "internal error": evalkit's own fault; the run did not finish, never a verdict
    SIGINT = 130  # 128 + the signal's number, as shells report a process a signal ended
    SIGTERM = 143


class WorkerExit(IntEnum):
    """The Action's worker (`python -m evalkit.action.worker`) to its parent (evalkit/action/sandbox.py):
    a protocol of its own, whose numbers mean nothing to a user: its failures reuse none of ExitCode's
    numbers. (User code that ends the worker while it is armed: ExitCode.USAGE, evalkit/_runtime/exit_guard.py.)"""

    DONE = 0  # the answer is written
    SUITE_ERROR = 10  # a suite file could not be loaded: the answer has its "problems"
    USAGE_ERROR = 11  # an entry of the `suites` input names no suite: the answer has "usage_error"
    FAILED = 12  # the job did not finish: the answer's "refused", "error" or "internal_error" says why


def passed_or_failed(failed: bool) -> ExitCode:
    """GATE_FAILED when `failed`, else PASSED."""
    return ExitCode.GATE_FAILED if failed else ExitCode.PASSED
