"""The commands that read results files rather than suites: `report` renders one, `compare` sets
two side by side, `merge` joins a sharded run's. Declared here, added to `evalkit` in evalkit.cli.commands."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from evalkit.cli.exit_codes import guard
from evalkit.cli.history_options import history_options, read_flaky_cases
from evalkit.cli.terminal import summarise
from evalkit.errors import UsageError
from evalkit.exit_codes import passed_or_failed


@click.command()
@click.argument("results", type=click.Path(exists=True, dir_okay=False))
@click.option("--format", "fmt", type=click.Choice(["markdown", "junit", "json", "html"]), default="markdown")
@click.option("--template", type=click.Path(exists=True, dir_okay=False), help="A Jinja template for markdown.")
@click.option(
    "--base", type=click.Path(exists=True, dir_okay=False), help="html: a base run's results, to show base vs head."
)
@click.option("--output", "-o", type=click.Path(dir_okay=False), help="Write here instead of to stdout.")
@click.option(
    "--history",
    type=click.Path(dir_okay=False),
    help="html: a results history (`evalkit history "
    "record`; a file or a PostgreSQL URL), to draw each suite's last runs as charts and each case's as a "
    "strip.",
)
@click.option(
    "--history-branch",
    default="main",
    show_default=True,
    metavar="BRANCH",
    help="With --history: the branch whose runs the charts show and whose flaky cases are marked.",
)
@guard
def report(
    results: str,
    *,
    fmt: str,
    template: str | None,
    base: str | None,
    output: str | None,
    history: str | None,
    history_branch: str,
) -> None:
    """Render a results file (JSON, or a run's JSONL: partial if it stopped) as markdown, JUnit XML,
    JSON or one self-contained HTML page."""
    from evalkit._runtime.atomic_write import write_atomic
    from evalkit.compare import load_results  # imported per command: --help and light commands stay fast
    from evalkit.render.junit import render_junit
    from evalkit.render.markdown import render_markdown

    if history and fmt != "html":
        raise UsageError("--history draws the HTML report's trend charts: add --format html")
    data = load_results(results)
    if fmt == "markdown":
        text = render_markdown(data, template=template)
    elif fmt == "junit":
        text = render_junit(data)
    elif fmt == "html":
        text = _html(data, base, results, _past(history, history_branch, data))
    else:
        text = data.model_dump_json(indent=2) + "\n"
    if output:  # written whole or not at all; a full disk is one line, exit 2
        click.echo(f"wrote {write_atomic(output, text)}", err=True)
    else:
        click.echo(text, nl=False)


def _html(head: Any, base_path: str | None, head_path: str, past: Any = None) -> str:
    """The HTML page of `head`, compared with the results at `base_path` when given, with the
    history's charts and strips when `past` is given."""
    from evalkit.compare import compare_reports, load_results  # imported per command: light commands stay fast
    from evalkit.render.html import render_html

    if base_path is None:
        return render_html(head, past=past)
    base = load_results(base_path)
    return render_html(
        head, base=base, comparison=compare_reports(base, head, base_label=base_path, head_label=head_path), past=past
    )


def _past(history: str | None, branch: str, report: Any) -> Any:
    from evalkit.cli.history_page import past  # imported per command: light commands stay fast

    return past(history, branch, report)


@click.command()
@click.argument("base", type=click.Path(dir_okay=False))
@click.argument("head", type=click.Path(dir_okay=False))
@click.option(
    "--format", "fmt", type=click.Choice(["table", "markdown", "json", "html"]), default="table", show_default=True
)
@click.option("--template", type=click.Path(exists=True, dir_okay=False), help="A Jinja template for markdown.")
@click.option(
    "--alpha",
    type=click.FloatRange(0, 1, min_open=True, max_open=True),
    default=0.05,
    show_default=True,
    help="Significance level of Fisher's exact test on items with repeats.",
)
@history_options
@guard
def compare(
    base: str, head: str, *, fmt: str, template: str | None, alpha: float, history: str | None, history_branch: str
) -> None:
    """Compare two results files (JSON or JSONL) case by case (exit 1 when a case regressed)."""
    from evalkit.compare import compare_reports, load_results  # imported per command: light commands stay fast
    from evalkit.render.compare import comparison_table, render_comparison

    base_report, head_report = load_results(base), load_results(head)
    cmp = compare_reports(
        base_report,
        head_report,
        alpha=alpha,
        base_label=base,
        head_label=head,
        flaky=read_flaky_cases(history, history_branch),
    )
    if fmt == "html":
        from evalkit.render.html import render_html  # imported per command: light commands stay fast

        click.echo(
            render_html(
                head_report, comparison=cmp, base=base_report, past=_past(history, history_branch, head_report)
            ),
            nl=False,
        )
    elif fmt == "json":
        click.echo(cmp.model_dump_json(indent=2))
    elif fmt == "markdown":
        click.echo(render_comparison(cmp, template=template, head=head_report), nl=False)
    else:
        click.echo(comparison_table(cmp), nl=False)
    sys.exit(passed_or_failed(bool(cmp.regressed)))


@click.command()
@click.argument("results", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False))
@click.option(
    "--output",
    "-o",
    type=click.Path(dir_okay=False),
    default="results.json",
    show_default=True,
    help="The merged results JSON.",
)
@click.option("--markdown", "markdown_path", type=click.Path(dir_okay=False), help="Also write the markdown report.")
@guard
def merge(results: tuple[str, ...], output: str, markdown_path: str | None) -> None:
    """Join the results of every shard of a run (`run --shard I/N`) into one report and gate it."""
    from evalkit.engine import merge_and_save  # imported per command: --help and light commands stay fast

    report = merge_and_save(list(results), Path(output), markdown_path=markdown_path)
    sys.exit(summarise(report, Path(output)))
