"""No silent exit 0: `os._exit` from user code in evalkit's own process, and a run's results.

Calls of targets and checks run in worker processes (evalkit/run/user_code.py), but the modules a suite names are also imported here (plugins
register their checks, `validate` and `run` check that targets import), and such a module, or a
thread it starts, may call `os._exit(0)`: the process would end at once, "successfully", with
nothing written. Armed by the console script, `os._exit` in this process prints why and ends it
with exit code 2 instead, until `disarm()` (the run's results are written; what ends the process
then is evalkit's own choice). A forked child (another pid) exits as it asks.

And `evalkit run` gives a verdict only once it has seen its results file written by the run
(`checked`): a new file, renamed over the old one, so its inode, time and size change."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Callable, NoReturn

from evalkit.exit_codes import ExitCode

_real_exit = os._exit
_armed_pid: int | None = None


def arm() -> None:
    global _armed_pid
    _armed_pid = os.getpid()
    os._exit = _guarded_exit


def disarm() -> None:
    global _armed_pid
    _armed_pid = None


def _guarded_exit(status: int) -> NoReturn:
    if _armed_pid is not None and os.getpid() == _armed_pid:
        try:
            sys.stderr.write(
                f"evalkit: user code called os._exit({status}) in evalkit's own process (a module a "
                "suite names, as it was imported, or a thread it started): evalkit did not finish, "
                "and no results were written\n"
            )
            sys.stderr.flush()
        except BaseException:
            pass
        _real_exit(ExitCode.USAGE)  # the user must fix something: user code ended evalkit
    _real_exit(status)


def file_state(path: Path) -> tuple[int, int, int] | None:
    """(inode, mtime, size) of a file; None when there is none, or it is empty."""
    try:
        st = path.stat()
    except OSError:
        return None
    return (st.st_ino, st.st_mtime_ns, st.st_size) if st.st_size else None


def checked(code: int, out: Path, before: tuple[int, int, int] | None, jsonl: object, echo: Callable[..., None]) -> int:
    """`code`, the run's verdict, if the run wrote `out` since `file_state` gave `before`; else 3 (an
    internal error), said as such: never a verdict, least of all a pass, without its results.
    Disarms: from here on, what ends the process is evalkit's own choice."""
    disarm()
    after = file_state(out)
    if after is None or after == before:
        echo(
            f"evalkit: the run ended without writing {out}: an internal error of evalkit; the finished cases "
            f"are in {jsonl}",
            err=True,
        )
        return ExitCode.INTERNAL
    return code
