"""`os._exit` from user code in evalkit's own process. Calls of targets and checks run in worker
processes (evalkit/user_code.py), but the modules a suite names are also imported here (plugins
register their checks, `validate` and `run` check that targets import), and such a module, or a
thread it starts, may call `os._exit(0)`: the process would end at once, "successfully", with
nothing written. Armed by the console script, `os._exit` in this process prints why and ends it
with exit code 2 instead, until `disarm()` (the run's results are written; what ends the process
then is evalkit's own choice). A forked child (another pid) exits as it asks."""

from __future__ import annotations

import os
import sys
from typing import NoReturn

EXIT_USER_CODE = 2  # the user must fix something: user code ended evalkit
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
            sys.stderr.write(f"evalkit: user code called os._exit({status}) in evalkit's own process (a module a "
                             "suite names, as it was imported, or a thread it started): evalkit did not finish, "
                             "and no results were written\n")
            sys.stderr.flush()
        except BaseException:
            pass
        _real_exit(EXIT_USER_CODE)
    _real_exit(status)
