"""The `evalkit` console script: the CLI, with the interpreter's ordinary exit."""

from __future__ import annotations

from evalkit.cli import main


def entry() -> None:
    main()
