"""The GitHub Action's entrypoint and its parts; run it as `python -m evalkit.action`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from evalkit._runtime.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from evalkit.action.__main__ import main
    from evalkit.action.discovery import (
        CONFIG_NAMES,
        config_file,
        discover,
        load_repo_suites,
        read_config,
        read_watch_map,
    )

# What the other rooms (and a team's code) use of this one; each name loads its module on first use.
__all__ = [
    "CONFIG_NAMES",
    "config_file",
    "discover",
    "load_repo_suites",
    "main",
    "read_config",
    "read_watch_map",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "main": "evalkit.action.__main__",
        "CONFIG_NAMES": "evalkit.action.discovery",
        "config_file": "evalkit.action.discovery",
        "discover": "evalkit.action.discovery",
        "load_repo_suites": "evalkit.action.discovery",
        "read_config": "evalkit.action.discovery",
        "read_watch_map": "evalkit.action.discovery",
    },
)

del annotations, TYPE_CHECKING, lazy_exports
