"""`evalkit history`: record a run's results, list the runs with each suite's trend and the flaky
cases, show one case over time. The logic is in evalkit.history; this only parses and prints."""

from __future__ import annotations

from typing import Any

import click

from evalkit.cli.exit_codes import guard

HISTORY_HELP = "The history: a file (default .evalkit/history.sqlite) or a PostgreSQL URL (postgresql://...)."
history_option = click.option("--history", "history_path", type=click.Path(), help=HISTORY_HELP)


def _path(ctx: click.Context, given: str | None) -> Any:
    from evalkit.history.database import DEFAULT_PATH

    return given or ctx.meta.get("evalkit.history") or DEFAULT_PATH


@click.group("history", invoke_without_command=True)
@history_option
@click.option("--branch", help="Only this branch's runs and trends; flaky cases are told on it (default main).")
@click.option(
    "--last",
    type=click.IntRange(1, 1000),
    default=10,
    show_default=True,
    help="Runs listed, and runs each trend and the flaky cases look at.",
)
@click.pass_context
@guard
def history(ctx: click.Context, history_path: str | None, branch: str | None, last: int) -> None:
    """List the recorded runs, each suite's trend (pass rate, cost, latency) and the flaky cases."""
    ctx.meta["evalkit.history"] = history_path
    if ctx.invoked_subcommand is not None:
        return
    from evalkit.history import queries, text
    from evalkit.history.database import open_history
    from evalkit.history.flaky import DEFAULT_BRANCH, flaky_cases

    conn = open_history(_path(ctx, history_path))
    try:
        lines = text.runs_text(queries.runs(conn, last=last, branch=branch))
        lines += ["", *text.trends_text(queries.suite_trends(conn, last=last, branch=branch)), ""]
        on = branch or DEFAULT_BRANCH
        lines += text.flaky_text(flaky_cases(conn, branch=on, last=last), on, last)
    finally:
        conn.close()
    click.echo("\n".join(lines))


@history.command("record")
@click.argument("results", type=click.Path(exists=True, dir_okay=False))
@history_option
@click.option("--branch", help="The run's branch (default: GITHUB_HEAD_REF, GITHUB_REF_NAME, else git's).")
@click.option("--commit", help="The run's commit (default: the results' provenance).")
@click.pass_context
@guard
def record(ctx: click.Context, results: str, history_path: str | None, branch: str | None, commit: str | None) -> None:
    """Add a run's results (JSON or JSONL) to the history: all of it or nothing."""
    from evalkit.history import shown
    from evalkit.history.access import record_file

    where = _path(ctx, history_path)
    done = record_file(results, where, branch=branch, commit=commit)
    if done.already:
        click.echo(f"{results} is run #{done.number} of {shown(where)} already: nothing added")
    else:
        click.echo(
            f"recorded {results} as run #{done.number} of {shown(where)} ({done.suites} suites, {done.cases} cases)"
        )


@history.command("case")
@click.argument("case_id", metavar="ID")
@history_option
@click.option("--suite", help="Only the case of this suite (ids may repeat across suites).")
@click.option("--last", type=click.IntRange(1, 1000), default=20, show_default=True, help="Runs shown.")
@click.pass_context
@guard
def case(ctx: click.Context, case_id: str, history_path: str | None, suite: str | None, last: int) -> None:
    """Show one case's outcomes over time, oldest first, with the items that failed."""
    from evalkit.history import queries, text
    from evalkit.history.database import open_history

    conn = open_history(_path(ctx, history_path))
    try:
        outcomes = queries.case_outcomes(conn, case_id, suite=suite, last=last)
    finally:
        conn.close()
    click.echo("\n".join(text.case_text(case_id, outcomes)))


@history.command("prune")
@history_option
@click.option("--keep", type=click.IntRange(1, None), required=True, help="Runs to keep: the newest ones.")
@click.pass_context
@guard
def prune(ctx: click.Context, history_path: str | None, keep: int) -> None:
    """Remove every run but the newest KEEP (a file is compacted after): all of them or none."""
    from evalkit.history import shown
    from evalkit.history.access import prune_file

    where = _path(ctx, history_path)
    gone = prune_file(where, keep=keep)
    click.echo(
        f"removed {gone} run{'s' if gone != 1 else ''} from {shown(where)}; the newest {keep} kept"
        if gone
        else f"{shown(where)} holds no more than {keep} runs: nothing removed"
    )
