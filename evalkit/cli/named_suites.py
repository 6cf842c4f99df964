"""The suites a command names, else the project's (evalkit.yml): shared by every command that reads suites."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from evalkit.errors import UsageError


def suite_paths(paths: tuple[str, ...]) -> tuple[list[str | Path], dict[str, str]]:
    """The paths named, else the project's suites (evalkit.yml), with the targets its entries give."""
    if paths:
        return [*paths], {}
    project = click.get_current_context().find_root().obj
    if project is None:
        raise UsageError(
            "Missing argument 'PATHS...': name suite files or folders, or list them under `suites:` "
            "in evalkit.yml (`evalkit init` writes one)"
        )
    paths_and_targets: tuple[list[str | Path], dict[str, str]] = project.suite_paths()
    return paths_and_targets


def load_named(paths: tuple[str, ...]) -> list[Any]:
    """Load the suites `suite_paths` names; an evalkit.yml entry's `target` becomes its suite's target."""
    from evalkit.engine import load_suites  # imported per command: --help and light commands stay fast
    from evalkit.suite.model import Target

    files, targets = suite_paths(paths)
    suites = load_suites(files)
    for suite in suites:
        if str(suite.path) in targets:
            suite.target = Target(function=targets[str(suite.path)])
    return suites
