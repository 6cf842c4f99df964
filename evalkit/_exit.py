"""Ending the `evalkit` console script without the interpreter's teardown once a run is saved.

Freeing every object of a large run at exit takes seconds (2.1 s at 20,000 cases) and changes
nothing: the results are written and closed. After `run` has saved everything, the console
script runs the exit handlers (user code's, logging's, coverage's), flushes every open file and
the standard streams, and ends the process with `os._exit`. It does not when a thread that is
not a daemon is still running (the interpreter would wait for it), nor with EVALKIT_SLOW_EXIT=1.
In-process callers of `evalkit.cli.main` (tests, the pytest plugin) are never affected."""

from __future__ import annotations

import atexit
import gc
import io
import os
import sys
import threading

_saved = False
_WRITERS = (io.TextIOWrapper, io.BufferedWriter, io.BufferedRandom)


def run_saved() -> None:
    """`run` has written and closed its results: the process may end quickly."""
    global _saved
    _saved = True


def exit_quickly(code: object) -> None:
    """End the process now with `code` if it is safe; return (do nothing) otherwise."""
    if not _saved or not isinstance(code, int) or os.environ.get("EVALKIT_SLOW_EXIT"):
        return
    me = threading.current_thread()
    if any(t is not me and t.is_alive() and not t.daemon for t in threading.enumerate()):
        return
    atexit._run_exitfuncs()
    _flush_open_files()
    os._exit(code)


def _flush_open_files() -> None:
    """What teardown would have flushed: files user code left open, then stdout and stderr."""
    for obj in gc.get_objects():
        # The concrete buffered classes (io.IOBase is an ABC: checking it on every object is slow).
        if isinstance(obj, _WRITERS) and not obj.closed and obj.writable():
            try:
                obj.flush()
            except (OSError, ValueError):
                pass
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError, AttributeError):
            pass
