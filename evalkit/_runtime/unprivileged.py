"""Start a program without CAP_SYS_PTRACE: `python -I -S unprivileged.py PROGRAM ARGS...` drops
the capability from this process's bounding, ambient, inheritable, permitted and effective sets,
then becomes PROGRAM (execv). Neither PROGRAM nor anything it starts can get it back, so none
of them can read the memory of the non-dumpable entrypoint (/proc/<pid>/mem), even as root in the
same namespace (ptrace(2), "Ptrace access mode checking").

Run by path with `-I -S`, before any site-packages (and the `.pth` files a team's dependencies
may bring) load: stdlib only, no evalkit import. Linux only; elsewhere it only runs PROGRAM.
"""

from __future__ import annotations

import ctypes
import os
import sys
from pathlib import Path

CAP_SYS_PTRACE = 19
_PR_CAPBSET_READ, _PR_CAPBSET_DROP = 23, 24
_PR_CAP_AMBIENT, _PR_CAP_AMBIENT_CLEAR_ALL = 47, 4
_CAPABILITY_VERSION_3 = 0x20080522


class _Header(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _Data(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]


def capabilities(pid: int | str = "self") -> dict[str, int]:
    """The capability sets of a process as /proc/<pid>/status shows them (CapEff, CapBnd...)."""
    out = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("Cap"):
            name, value = line.split(":", 1)
            out[name] = int(value.strip(), 16)
    return out


def drop(cap: int = CAP_SYS_PTRACE) -> str | None:
    """Drop `cap` from every set of this process; None when it is gone from all, else why not."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(_PR_CAP_AMBIENT, _PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
    if libc.prctl(_PR_CAPBSET_READ, cap, 0, 0, 0) == 1 and libc.prctl(_PR_CAPBSET_DROP, cap, 0, 0, 0) != 0:
        problem = f"the bounding set keeps it ({os.strerror(ctypes.get_errno())}: no CAP_SETPCAP)"
    else:
        problem = None
    header = _Header(_CAPABILITY_VERSION_3, 0)
    data = (_Data * 2)()
    if libc.capget(ctypes.byref(header), data) != 0:
        return f"capget failed: {os.strerror(ctypes.get_errno())}"
    word, bit = divmod(cap, 32)
    mask = ~(1 << bit) & 0xFFFFFFFF
    data[word].effective &= mask
    data[word].permitted &= mask
    data[word].inheritable &= mask
    if libc.capset(ctypes.byref(header), data) != 0:
        return f"capset failed: {os.strerror(ctypes.get_errno())}"
    return problem


def _may_keep_it() -> bool:
    try:
        return bool(capabilities()["CapBnd"] >> CAP_SYS_PTRACE & 1)
    except (OSError, KeyError, ValueError):  # no /proc to tell: say so
        return True


def main(argv: list[str]) -> None:
    if sys.platform == "linux":
        try:
            problem = drop()
        except (OSError, AttributeError) as exc:  # a libc without capget/capset, an unreadable /proc
            problem = f"{type(exc).__name__}: {exc}"
        if problem and _may_keep_it():
            print(
                f"evalkit: could not drop CAP_SYS_PTRACE before starting user code: {problem}",
                file=sys.stderr,
                flush=True,
            )
    os.execv(argv[0], argv)


if __name__ == "__main__":
    main(sys.argv[1:])
