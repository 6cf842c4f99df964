"""The `evalkit` command: its subcommands, exit codes, console script, terminal output, the project's
evalkit.yml, `evalkit init` and `evalkit demo`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from evalkit._runtime.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from evalkit.cli.commands import main

# What the other rooms (and a team's code) use of this one; each name loads its module on first use.
__all__ = [
    "main",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "main": "evalkit.cli.commands",
    },
)

del annotations, TYPE_CHECKING, lazy_exports
