"""Keeping the process that holds credentials out of reach of the user code it starts.

`mark_non_dumpable()` sets the kernel's "dumpable" flag of this process to 0 (prctl(2),
PR_SET_DUMPABLE): a process of the same user without CAP_SYS_PTRACE can then neither attach to it
nor read its `/proc/<pid>/mem` or `/proc/<pid>/environ` (ptrace(2), "Ptrace access mode
checking"). Linux only; elsewhere, or where libc has no `prctl`, it does nothing and says so.

`withhold(env)` remembers the credentials evalkit calls the model with; `without_credentials`
leaves every variable that holds one out of the environment the worker processes get (they reach
the model through the run's client, over their socket, never with a key of their own).
"""

from __future__ import annotations

import ctypes
import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

_PR_SET_DUMPABLE, _PR_GET_DUMPABLE = 4, 3


def mark_non_dumpable() -> bool:
    """Make this process non-dumpable; whether it is now."""
    if sys.platform != "linux":
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0)
        return int(libc.prctl(_PR_GET_DUMPABLE, 0, 0, 0, 0)) == 0
    except (OSError, AttributeError):
        return False


def without_ptrace(argv: list[str]) -> list[str]:
    """`argv` (an absolute program path first) started without CAP_SYS_PTRACE in any capability
    set (evalkit/_runtime/unprivileged.py), so neither it nor anything it starts can read a
    non-dumpable process's memory, even as root. Linux only; elsewhere `argv` as it is."""
    if sys.platform != "linux":
        return argv
    return [sys.executable, "-I", "-S", str(Path(__file__).with_name("unprivileged.py")), *argv]


def wipe_initial_environ(secrets: Sequence[str]) -> bool:
    """Overwrite each secret in the block the kernel shows as /proc/<pid>/environ (which some
    kernels let a same-user process read even from a non-dumpable one). `os.environ` keeps its
    copy; whether the block could be found."""
    try:
        stat = Path("/proc/self/stat").read_text()
        fields = stat[stat.rindex(")") + 2 :].split()
        start, end = int(fields[47]), int(fields[48])  # env_start, env_end (proc(5) fields 50, 51)
        block = ctypes.string_at(start, end - start)
    except (OSError, ValueError, IndexError):
        return False
    for secret in secrets:
        raw = secret.encode()
        if not raw:
            continue
        pos = block.find(raw)
        while pos != -1:
            ctypes.memset(start + pos, ord("*"), len(raw))
            pos = block.find(raw, pos + len(raw))
    return True


def keep_out_of_reach(env: Mapping[str, str]) -> None:
    """What the `evalkit` command does before any user code: non-dumpable, the credentials withheld
    from its workers and wiped from its initial environment block (the C library's copy set again
    from `os.environ`, so a program it starts with the inherited environment still gets them)."""
    mark_non_dumpable()
    withhold(env)
    if _withheld and wipe_initial_environ(_withheld):
        for name in CREDENTIAL_VARIABLES:
            if name in os.environ:
                os.putenv(name, os.environ[name])


# Credentials this process calls the model with, which the user code it starts must not get.
_withheld: list[str] = []
CREDENTIAL_VARIABLES = ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN")
MIN_CHARS = 8  # as evalkit/_runtime/redaction.py: shorter values are not told apart from words


def withhold(env: Mapping[str, str]) -> None:
    """Remember the credentials of `env` (the key evalkit calls the model with) to keep out of the
    environment of every process that runs user code."""
    _withheld[:] = [v for v in ((env.get(name) or "").strip() for name in CREDENTIAL_VARIABLES) if len(v) >= MIN_CHARS]


def withheld() -> list[str]:
    return list(_withheld)


def without_credentials(env: Mapping[str, str]) -> dict[str, str]:
    """`env` without any variable whose value is or holds a withheld credential."""
    return {k: v for k, v in env.items() if not any(secret in v for secret in _withheld)}


def overlaps_credential(value: str) -> bool:
    """Whether `value` and a withheld credential share it (one holds the other)."""
    return any(secret in value or value in secret for secret in _withheld)
