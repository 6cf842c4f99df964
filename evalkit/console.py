"""The `evalkit` console script: the CLI, then, after a saved `run`, an exit without the
interpreter's teardown (see evalkit._exit). Only the installed script comes here; whoever calls
`evalkit.cli.main` in process (tests, the pytest plugin) keeps an ordinary exit."""

from __future__ import annotations

from evalkit._exit import exit_quickly
from evalkit.cli import main


def entry() -> None:
    from evalkit import exit_guard

    exit_guard.arm()  # os._exit from user code imported here ends evalkit with 2, never with a silent 0
    try:
        main()
    except SystemExit as done:
        exit_quickly(done.code)
        raise
