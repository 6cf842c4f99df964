"""`evalkit mutate`: mutation testing of a suite's own checks, code and gold labels (evalkit.engine.mutate
does the work; this parses, prints and turns `--min-score` into the exit code)."""

from __future__ import annotations

import json
import sys

import click

from evalkit.cli.exit_codes import guard
from evalkit.cli.named_suites import load_named
from evalkit.exit_codes import passed_or_failed


@click.command("mutate")
@click.argument("paths", nargs=-1, type=click.Path())
@click.option(
    "--sample",
    type=click.IntRange(1),
    metavar="N",
    help="Measure a fixed, deterministic sample of about N mutants (default: all).",
)
@click.option("--seed", type=int, default=0, show_default=True, help="Another seed draws another sample.")
@click.option(
    "--timeout",
    type=click.FloatRange(0.1),
    default=30.0,
    show_default=True,
    help="Seconds one mutant's selftest may take; past it the mutant is killed by the timeout.",
)
@click.option(
    "--file",
    "files",
    multiple=True,
    metavar="GLOB",
    help="Only code mutants of files matching this glob (repeatable), e.g. '*/checks.py'.",
)
@click.option(
    "--min-score",
    type=click.FloatRange(0, 1),
    metavar="X",
    help="Exit 1 when under this share of mutants killed (0.8 = 80 %); without it, report only.",
)
@click.option(
    "--judge",
    is_flag=True,
    help="Ask the judge model about gold rewrites of items only the judge decides (needs a key).",
)
@click.option("--judge-model", help="With --judge: the judge model (overrides the suite).")
@click.option("--json", "as_json", is_flag=True, help="Print the results as JSON.")
@guard
def mutate(
    paths: tuple[str, ...],
    *,
    sample: int | None,
    seed: int,
    timeout: float,
    files: tuple[str, ...],
    min_score: float | None,
    judge: bool,
    judge_model: str | None,
    as_json: bool,
) -> None:
    """Mutate a suite's own code and gold outputs; report the mutants its selftest misses.

    Code mutants change one operator, constant or condition of the suite's checks, target and tools;
    gold rewrites remove what a judged item asks for from an output labelled pass. Each code mutant
    runs `selftest` in a child process. Offline: the model is asked only with --judge.
    """
    from evalkit.engine.mutate import MutateOptions
    from evalkit.engine.mutate import mutate as measure

    client = None
    if judge:
        from evalkit.engine import anthropic_provider, make_client

        client = make_client(anthropic_provider())
    options = MutateOptions(sample=sample, seed=seed, timeout=timeout, files=files, judge_model=judge_model)
    report = measure(load_named(paths), options, client=client)
    if as_json:
        click.echo(json.dumps(report.to_json(), indent=2, ensure_ascii=False))
    else:
        click.echo("\n".join(report.lines()))
    score = report.score
    sys.exit(passed_or_failed(min_score is not None and (score is None or score < min_score)))
