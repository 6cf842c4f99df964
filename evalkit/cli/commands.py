"""The `evalkit` command: one subcommand a verb; errors become exit codes in evalkit.cli.exit_codes."""

from __future__ import annotations

import json
import os
import sys
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from evalkit.cli.exit_codes import ExitCodes
from evalkit.cli.exit_codes import guard as _guard
from evalkit.cli.history_options import history_options, read_flaky_cases
from evalkit.cli.named_suites import load_named as _load
from evalkit.cli.named_suites import suite_paths as _suite_paths
from evalkit.cli.terminal import planned_cases, summarise
from evalkit.cli.terminal import progress_printer as _progress_printer
from evalkit.errors import UsageError
from evalkit.limits import DEFAULT_CONCURRENCY

if TYPE_CHECKING:  # the commands import the engine when they run, so `--help` stays quick
    from evalkit.suite.model import Inconclusive


@click.group(cls=ExitCodes, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="evalkit")
@click.pass_context
def main(ctx: click.Context) -> None:
    """Tell whether a change to prompts or agents made an LLM product's answers worse.

    Suites and option defaults come from evalkit.yml (or [tool.evalkit] in pyproject.toml) when the
    command line names none.
    """
    if ctx.invoked_subcommand != "action":  # the Action masks and redacts with GitHub's `***` itself
        from evalkit._runtime.redaction import labelled, protect  # the key, *_TOKEN, *_KEY...: out of every output

        protect(labelled(os.environ))  # from the environment evalkit started with, before any user code
        # This process holds the key; the user code it starts (same user) must not read it from its
        # memory or environment, nor forge the response cache's entries (sealed with a key derived from it).
        from evalkit._runtime.out_of_reach import keep_out_of_reach
        from evalkit.llm.cache import seal_from

        keep_out_of_reach(os.environ)
        seal_from(os.environ)
    if ctx.invoked_subcommand not in PROJECT_COMMANDS:
        return
    from evalkit.cli.project import load_project

    project = _guard(load_project)()  # a broken evalkit.yml is a one-line usage error, before any command
    ctx.obj = project
    if project is not None and ctx.default_map is None:
        ctx.default_map = project.default_map()
    if project is not None:  # before any suite loads: workers start with this sys.path too
        for folder in reversed(project.python_path()):
            if str(folder) not in sys.path:
                sys.path.insert(0, str(folder))


# The commands that read suites: evalkit.yml gives them their suites and option defaults.
PROJECT_COMMANDS = frozenset({"validate", "list", "plan", "selftest", "calibrate", "mutate", "run"})


paths_argument = click.argument("paths", nargs=-1, type=click.Path())


tag_option = click.option("--tag", "tags", multiple=True, help="Only cases with this tag (repeatable), e.g. pr.")


@main.command()
@paths_argument
@click.option("--target", help="module:function for suites that name no target (as `run --target`).")
@_guard
def validate(paths: tuple[str, ...], target: str | None) -> None:
    """Check suite files; report every problem at once."""
    from evalkit.engine import check_models, preflight  # imported per command: light commands stay fast

    # Exactly what `run` checks before its first model call, a suite without a target included.
    suites = preflight(_load(paths), target=target, need_target=True)
    warnings = check_models(suites)
    for suite in suites:
        click.echo(f"ok  {suite.path}  ({suite.name}: {len(suite.cases)} cases)")
    for warning in warnings:
        click.echo(f"warning: {warning}", err=True)


@main.command("list")
@paths_argument
@tag_option
@click.option(
    "--changed-since",
    "changed_since",
    metavar="REF",
    help="Instead: each suite the Action would consider, and whether it would run for the diff "
    "between REF and the working tree (git diff --name-only REF), and why.",
)
@_guard
def list_cases(paths: tuple[str, ...], tags: tuple[str, ...], changed_since: str | None) -> None:
    """List suites, their cases and repeats."""
    from evalkit.suite.model import selectors  # imported per command: --help and light commands stay fast

    if changed_since is not None:
        from evalkit.cli.changed import changed_since_lines

        if paths or tags:
            raise UsageError("--changed-since lists the suites the Action would consider: name no paths or tags")
        project = click.get_current_context().find_root().obj
        for line in changed_since_lines(project.root if project is not None else Path.cwd(), changed_since):
            click.echo(line)
        return
    for suite in _load(paths):
        target = suite.target.describe() if suite.target else "(no target: pass --target)"
        click.echo(f"{suite.name}  {suite.path}  target={target}  watch={','.join(suite.watch) or '-'}")
        for case in suite.select(selectors((), tags)):
            extras = [f"×{case.repeats}"] if case.repeats > 1 else []
            extras += [f"#{t}" for t in case.tags]
            extras += [
                f"{sum(1 for i in case.items if i.required)} checks",
                f"{sum(1 for i in case.items if not i.required)} rubric items",
            ]
            if case.skip:
                extras.append(f"skip: {case.skip}")
            click.echo(f"  {case.id}  ({', '.join(extras)})")


@main.command()
@paths_argument
@click.option("--model", help="Model for the targets' calls.")
@click.option("--judge-model", help="Model for the judge and extraction.")
@click.option("--repeat", type=click.IntRange(1, 100), help="Repeat every case N times.")
@click.option("--case", "cases", multiple=True, help="Only cases whose id matches this glob.")
@tag_option
@click.option(
    "--results",
    type=click.Path(exists=True, dir_okay=False),
    help="A previous run's results: count callable targets' calls as measured there.",
)
@click.option("--cache-dir", type=click.Path(file_okay=False), help="Response cache folder (cached requests are free).")
@click.option("--no-cache", is_flag=True, help="Plan as if nothing were cached.")
@click.option(
    "--estimate-tokens",
    is_flag=True,
    help="Estimate input tokens (4 characters a token) even with "
    "ANTHROPIC_API_KEY set, instead of counting them with the API's token counting endpoint.",
)
@_guard
def plan(
    paths: tuple[str, ...],
    model: str | None,
    judge_model: str | None,
    repeat: int | None,
    cases: tuple[str, ...],
    *,
    tags: tuple[str, ...],
    results: str | None,
    cache_dir: str | None,
    no_cache: bool,
    estimate_tokens: bool,
) -> None:
    """Count the model calls a run would make and estimate tokens and dollars (no model call; with a key,
    input tokens are counted by the API's token counting endpoint)."""
    from evalkit.engine import plan_calls  # imported per command: --help and light commands stay fast
    from evalkit.suite.model import selectors

    click.echo(
        plan_calls(
            _load(paths),
            model=model,
            judge_model=judge_model,
            repeat=repeat,
            cases=selectors(cases, tags),
            results=results,
            cache_dir=cache_dir,
            no_cache=no_cache,
            count_tokens=not estimate_tokens,
        ).render()
    )


@main.command()
@paths_argument
@_guard
def selftest(paths: tuple[str, ...]) -> None:
    """Check the code-decided items on the suites' gold outputs, offline (exit 1 on a disagreement)."""
    from evalkit.engine.selftest import selftest_all  # imported per command: --help and light commands stay fast

    sys.exit(selftest_all(_load(paths), echo=click.echo))


@main.command()
@paths_argument
@click.option("--repeats", type=click.IntRange(1, 20), default=3, show_default=True, help="Samples per gold output.")
@click.option("--judge-model", help="Judge and extraction model (overrides the suite).")
@click.option("--no-cache", is_flag=True, help="Call the model even when a cached reply exists.")
@_guard
def calibrate(paths: tuple[str, ...], repeats: int, judge_model: str | None, no_cache: bool) -> None:
    """Measure the judge and extraction on the gold labels, save the figures (exit 1 under the bar)."""
    from evalkit.engine import calibrate_and_save  # imported per command: light commands stay fast

    sys.exit(calibrate_and_save(_suite_paths(paths)[0], repeats, judge_model, no_cache, click.echo))


@main.command()
@click.option("--output", "-o", type=click.Path(dir_okay=False), help="Write the JSON Schema here.")
def schema(output: str | None) -> None:
    """Print the JSON Schema of suite files (for editor autocompletion)."""
    from evalkit.suite.schema import suite_json_schema  # imported per command: --help and light commands stay fast

    text = json.dumps(suite_json_schema(), indent=2)
    if output:
        Path(output).write_text(text + "\n", encoding="utf-8")
    else:
        click.echo(text)


@main.command()
@click.argument("paths", nargs=-1, type=click.Path())
@click.option("--target", help="module:function to run (for fixture lists that name none).")
@click.option("--case", "cases", multiple=True, help="Only cases whose id matches this glob (repeatable).")
@tag_option
@click.option(
    "--model",
    "models",
    multiple=True,
    help="Model for the targets' calls (overrides the suite); twice or more runs the cases once per "
    "model, side by side.",
)
@click.option("--judge-model", help="Model for the judge and extraction (overrides the suite).")
@click.option("--repeat", type=click.IntRange(1, 100), help="Repeat every case N times.")
@click.option(
    "--concurrency",
    type=click.IntRange(1, 256),
    default=DEFAULT_CONCURRENCY,
    show_default=True,
    help="Model calls in flight at once, shared by targets and the judge.",
)
@click.option("--rubric-threshold", type=click.FloatRange(0, 1), help="Minimum rubric pass rate per case.")
@click.option("--agreement-threshold", type=click.FloatRange(0, 1), help="Minimum field agreement per case.")
@click.option(
    "--output",
    "-o",
    type=click.Path(dir_okay=False),
    help="Results JSON (default .evalkit/runs/<time>.json); finished cases stream to <output>l.",
)
@click.option("--no-cache", is_flag=True, help="Call the model even when a cached reply exists.")
@click.option("--cache-dir", type=click.Path(file_okay=False), help="Response cache folder.")
@click.option("--markdown", "markdown_path", type=click.Path(dir_okay=False), help="Also write the markdown report.")
@click.option("--shard", help="Run only share I of N (e.g. 2/3) of the cases; join with `evalkit merge`.")
@click.option("--baseline", help="A git ref: run the same suites on it first, then compare head with it.")
@click.option(
    "--gate",
    type=click.Choice(["thresholds", "regressions", "both"]),
    default="both",
    show_default=True,
    help="With --baseline: fail on the thresholds, on regressions against the base, or on either.",
)
@click.option("--html", "html_path", type=click.Path(dir_okay=False), help="Also write the HTML report.")
@click.option("--inconclusive", type=click.Choice(["fail", "warn", "pass"]), help="What an inconclusive case does.")
@click.option(
    "--batch",
    is_flag=True,
    help="Send prompt-target, judge and extraction calls as Message Batches "
    "(half price, may take hours; an interrupted run resumes them).",
)
@click.option(
    "--resume",
    type=click.Path(dir_okay=False),
    help="Complete the stopped run in this JSONL (its cases not yet finished only).",
)
@click.option(
    "--max-cost",
    metavar="USD",
    help="A budget in US dollars: stop sending model calls before the run "
    "passes it; cases not started are reported 'not run: budget' and the run fails (exit 1).",
)
@history_options
@_guard
def run(
    paths: tuple[str, ...],
    target: str | None,
    cases: tuple[str, ...],
    tags: tuple[str, ...],
    models: tuple[str, ...],
    *,
    judge_model: str | None,
    repeat: int | None,
    concurrency: int,
    rubric_threshold: float | None,
    agreement_threshold: float | None,
    output: str | None,
    no_cache: bool,
    cache_dir: str | None,
    markdown_path: str | None,
    shard: str | None,
    baseline: str | None,
    gate: str,
    html_path: str | None,
    inconclusive: Inconclusive | None,
    batch: bool,
    resume: str | None,
    max_cost: str | None,
    history: str | None,
    history_branch: str,
) -> None:
    """Run suites and apply the gates (exit 0 pass, 1 a gate failed, 2 usage error)."""
    # imported per command: --help and light commands stay fast
    from evalkit.cli.side_by_side import against_base, models_side_by_side
    from evalkit.engine import anthropic_provider, make_client
    from evalkit.engine.per_model_runs import models_to_compare
    from evalkit.llm.batching import batch_run
    from evalkit.llm.budget import parse_max_cost
    from evalkit.run.options import RunOptions
    from evalkit.run.sharding import parse_shard
    from evalkit.suite.model import selectors

    budget = parse_max_cost(max_cost) if max_cost is not None else None  # a bad amount: one line, exit 2
    started_env = dict(os.environ)  # before plugins are imported: user code cannot redirect the client
    if not resume:
        suites = _load(paths)  # the paths named, else the project's (evalkit.yml)
        paths = paths or tuple(str(suite.path) for suite in suites)
    else:
        suites = _load(paths) if paths else []
    share = parse_shard(shard) if shard is not None else None
    if target and ":" not in target:
        raise UsageError(f"--target {target!r} is not of the form module:function")
    compared = models_to_compare(suites, list(models))
    if compared and baseline:
        raise UsageError("--baseline compares one model with itself across commits; drop the second --model")
    if history and not baseline and not html_path:
        raise UsageError(
            "--history reads flaky cases for a comparison and draws the HTML report's charts: give "
            "--baseline REF or --html PATH too (or record this run with `evalkit history record`)"
        )
    provider = anthropic_provider(max_connections=max(concurrency, 8), env=started_env)

    def new_client() -> Any:
        client = make_client(provider, concurrency=concurrency, cache_dir=cache_dir, no_cache=no_cache)
        return batch_run(client, out, suites, target, _note) if batch else client

    out = Path(output) if output else Path(".evalkit/runs") / f"{datetime.now():%Y%m%d-%H%M%S}.json"
    model = models[0] if len(models) == 1 else None
    options = RunOptions(
        target=target,
        cases=selectors(cases, tags),
        model=model,
        judge_model=judge_model,
        repeat=repeat,
        rubric_threshold=rubric_threshold,
        agreement_threshold=agreement_threshold,
        jsonl_path=out.with_suffix(out.suffix + "l"),
        shard=share,
        inconclusive=inconclusive,
        max_cost=budget,
    )
    if resume:  # the stopped run's suites and options, from its JSONL
        from evalkit.engine.resume import finished_cases, resume_run

        suites, options, out = resume_run(Path(resume), paths, options, output, comparing=bool(compared or baseline))
    left = planned_cases(suites, options) * max(len(compared), 1) - (finished_cases(Path(resume)) if resume else 0)
    options.on_case = _progress_printer(left)
    if compared:
        sys.exit(
            models_side_by_side(
                suites, compared, new_client, options, out, markdown_path=markdown_path, html_path=html_path
            )
        )
    if baseline:
        from evalkit.engine.base_ref import base_spec, run_base

        spec = base_spec(options, concurrency=concurrency, cache_dir=cache_dir, no_cache=no_cache, shard=shard)
        flaky = read_flaky_cases(history, history_branch)  # a bad history file stops the run before any call
        base = run_base(baseline, paths, spec, out.with_name(out.stem + ".base.json"))
        code = execute(suites, new_client(), options, out, markdown_path)
        sys.exit(
            against_base(
                base,
                out,
                markdown_path,
                gate,
                code,
                html_path=html_path,
                flaky=flaky,
                history=(history, history_branch),
            )
        )
    if history:
        read_flaky_cases(history, history_branch)  # a bad history file stops the run before any call
    code = execute(suites, new_client(), options, out, markdown_path, html_path=html_path)
    if history and html_path and Path(html_path).exists():
        from evalkit.cli.history_page import redraw

        redraw(out, html_path, history, history_branch)
    sys.exit(code)


def _note(message: str) -> None:
    click.echo(f"evalkit: {message}", err=True)


def execute(
    suites: list[Any], client: Any, options: Any, out: Path, markdown_path: str | None, *, html_path: str | None = None
) -> int:
    """Run and save through the engine, then print the summary. Returns the exit code."""
    from evalkit import engine  # imported per command: --help and light commands stay fast
    from evalkit._runtime import exit_guard

    before = exit_guard.file_state(out)
    try:
        result = engine.run_and_save(suites, client, options, out, markdown_path=markdown_path, html_path=html_path)
    except KeyboardInterrupt as exc:  # Ctrl-C or SIGTERM: 130 or 143
        from evalkit.engine.resume import report_stopped

        return report_stopped(exc, options.jsonl_path, click.echo)
    return exit_guard.checked(summarise(result, out), out, before, options.jsonl_path, click.echo)


@main.command()
@click.option("--all", "show_all", is_flag=True, help="Also list retired models.")
@click.option("--cache-dir", type=click.Path(file_okay=False), help="Where the API's answer is kept for a day.")
@_guard
def models(show_all: bool, cache_dir: str | None) -> None:
    """List models: end of life, prices, how evalkit asks each for a verdict, its thinking default,
    sampling parameters, Legacy, and where each fact came from."""
    from evalkit.engine import lifecycle_table  # imported per command: light commands stay fast
    from evalkit.engine.model_listing import how_asked, sdk_models, table_note
    from evalkit.llm.capabilities import CapabilityTable
    from evalkit.llm.model_lifecycle import known_models, models_table

    table = lifecycle_table(cache_dir)
    capabilities = CapabilityTable(table)
    listed = known_models(table, sdk_models(), asked=lambda m: how_asked(capabilities.of(m)))
    click.echo(models_table(listed, include_retired=show_all), nl=False)
    click.echo(table_note(table))
    if table.note:
        click.echo(f"note: {table.note}", err=True)


@main.command()
@click.argument("folder", default=".", type=click.Path(file_okay=False))
@click.option("--target", help="Your own function (module:function) for the suite to run, instead of a stub.")
@_guard
def init(folder: str, target: str | None) -> None:
    """Write a first suite, evalkit.yml and a workflow into FOLDER, then check them as `validate` does."""
    from evalkit.cli.scaffold import init_project
    from evalkit.engine import load_suites, preflight  # imported per command: --help and light commands stay fast

    made = init_project(Path(folder), target)
    for path in made.written:
        click.echo(f"wrote {path}")
    for path in made.kept:
        click.echo(f"kept  {path} (it exists; evalkit init never overwrites)")
    for suite in preflight(load_suites([made.suite]), need_target=True):
        click.echo(f"ok    {suite.path}  ({suite.name}: {len(suite.cases)} cases; watch: {', '.join(suite.watch)})")
    if made.note:
        click.echo(made.note)
    click.echo(
        "next: `evalkit plan` (cost, no calls), then `evalkit run` with ANTHROPIC_API_KEY set — or offline, "
        "against `python -m evalkit.testing.fake_anthropic`"
    )


@main.command()
@click.option("--output-dir", type=click.Path(file_okay=False), default=".evalkit/demo", show_default=True)
@_guard
def demo(output_dir: str) -> None:
    """Run the bundled suites against a local fake of the model API with scripted replies (no key)."""
    from evalkit.cli.demo import run_demo  # imported per command: --help and light commands stay fast

    sys.exit(run_demo(Path(output_dir), execute))


from evalkit.cli.history import history as _history  # noqa: E402 - the group is declared in its own module

main.add_command(_history)

from evalkit.cli.mutate import mutate as _mutate  # noqa: E402 - declared in its own module

main.add_command(_mutate)

from evalkit.cli.results_commands import compare, merge, report  # noqa: E402 - declared in their own module

main.add_command(report)
main.add_command(compare)
main.add_command(merge)


@main.command("action")
def action() -> None:
    """Run the GitHub Action on this Python, in a plain step (reads INPUT_<NAME> and GITHUB_* variables)."""
    from evalkit.action.__main__ import main as action_main  # the Action's entrypoint, unchanged

    sys.exit(action_main())
