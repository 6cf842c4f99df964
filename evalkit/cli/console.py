"""The `evalkit` console script: the CLI, with the interpreter's ordinary exit."""

from __future__ import annotations

from evalkit.cli.commands import main


def entry() -> None:
    from evalkit._runtime import exit_guard

    exit_guard.arm()  # os._exit from user code imported here ends evalkit with 2, never with a silent 0
    main()
