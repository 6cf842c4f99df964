"""--history and --history-branch, shared by the commands that compare with a base (`run --baseline`,
`compare`): the default branch's runs tell which cases are flaky, so their regressions are marked, not counted."""

from __future__ import annotations

from typing import Any, Callable

import click


def history_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    """--history and --history-branch: read which cases are flaky on the default branch, and draw the
    HTML report's trend charts."""
    fn = click.option(
        "--history-branch",
        default="main",
        show_default=True,
        metavar="BRANCH",
        help="With --history: the default branch, whose runs tell which cases are flaky and "
        "whose last runs the HTML report's charts show.",
    )(fn)
    return click.option(
        "--history",
        type=click.Path(dir_okay=False),
        help="A results history (`evalkit history "
        "record`; a file or a PostgreSQL URL): a regression of a case flaky on the default branch "
        "is marked so, not counted (unless a critical item); the HTML report draws each suite's "
        "last runs.",
    )(fn)


def read_flaky_cases(history: str | None, branch: str) -> Any:
    """The cases flaky on `branch` by the history file, or None without one (a bad file: one-line error)."""
    from evalkit.history.access import read_flaky  # imported per command: light commands stay fast

    return read_flaky(history, branch=branch) if history else None
