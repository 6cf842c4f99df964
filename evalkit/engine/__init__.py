"""The one engine behind the CLI, the pytest plugin and the Action: load suites, build the
client, run, and save results."""

from __future__ import annotations

import asyncio
import os
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Mapping

from evalkit._runtime import gc_pause
from evalkit._runtime.atomic_write import probe_writable, write_atomic
from evalkit._runtime.lazy_exports import lazy_exports
from evalkit._runtime.signals import run_stoppable
from evalkit.engine import merging
from evalkit.engine.preflight import plan_problems, preflight
from evalkit.errors import MissingKeyError, OutputError, SuiteError, UsageError
from evalkit.exit_codes import passed_or_failed
from evalkit.limits import DEFAULT_CONCURRENCY
from evalkit.llm.cache import ResponseCache, default_cache_dir
from evalkit.llm.capabilities import CapabilityTable
from evalkit.llm.client import ModelClient, RetryPolicy
from evalkit.llm.model_lifecycle import LifecycleTable
from evalkit.llm.providers.interface import Provider
from evalkit.llm.providers.lazy import LazyProvider
from evalkit.render.html import write_html
from evalkit.render.markdown import render_markdown
from evalkit.results.reader import load_report, write_report
from evalkit.results.report import Report
from evalkit.run.model_fit import fit_warnings, refuse_unfit
from evalkit.run.options import RunOptions
from evalkit.run.runner import Runner
from evalkit.suite.files import resolve_suite_paths
from evalkit.suite.loader import load_suite, refuse_duplicate_names
from evalkit.suite.model import Suite

if TYPE_CHECKING:
    from evalkit.engine.planning import Estimate
    from evalkit.suite.calibration import Calibration

# The calls every front door makes (the CLI, the pytest plugin, the Action), and what other rooms use of
# the room's modules (planning, preflight, merging, selftest, calibrate, per-model runs, base refs, resume,
# the client agent code gets).
__all__ = [
    "Git",
    "MutateOptions",
    "NO_KEY_MESSAGE",
    "anthropic_deprecations",
    "anthropic_provider",
    "api_key_set",
    "base_spec",
    "calibrate",
    "calibrate_and_save",
    "check_gold",
    "check_models",
    "finished_cases",
    "get_client",
    "how_asked",
    "lifecycle_table",
    "load_suites",
    "make_client",
    "merge_and_save",
    "model_path",
    "models_to_compare",
    "mutate",
    "plan_calls",
    "preflight",
    "report_stopped",
    "response_cache",
    "resume_run",
    "run",
    "run_and_save",
    "run_base",
    "run_per_model",
    "sdk_models",
    "selftest_all",
    "table_note",
    "worktree",
    "writable",
]

# The names other rooms use from this room's modules, each loaded with its module on first use.
__getattr__ = lazy_exports(
    __name__,
    {
        "MutateOptions": "evalkit.engine.mutate",
        "mutate": "evalkit.engine.mutate",
        "Git": "evalkit.engine.base_ref",
        "base_spec": "evalkit.engine.base_ref",
        "check_gold": "evalkit.engine.selftest",
        "finished_cases": "evalkit.engine.resume",
        "get_client": "evalkit.engine.agent_client",
        "how_asked": "evalkit.engine.model_listing",
        "model_path": "evalkit.engine.per_model_runs",
        "models_to_compare": "evalkit.engine.per_model_runs",
        "report_stopped": "evalkit.engine.resume",
        "resume_run": "evalkit.engine.resume",
        "run_base": "evalkit.engine.base_ref",
        "run_per_model": "evalkit.engine.per_model_runs",
        "sdk_models": "evalkit.engine.model_listing",
        "selftest_all": "evalkit.engine.selftest",
        "table_note": "evalkit.engine.model_listing",
        "worktree": "evalkit.engine.base_ref",
    },
)[0]

NO_KEY_MESSAGE = (
    "No ANTHROPIC_API_KEY: set it (export ANTHROPIC_API_KEY=...), "
    "or run `evalkit demo` to see evalkit work with scripted replies"
)


def load_suites(paths: list[str | Path]) -> list[Suite]:
    """Load every path (a file, or every suite file of a folder), each file once; problems of all
    files are reported together in one SuiteError; two suites of one name are a UsageError."""
    suites, errors = [], []
    seen: set[Path] = set()
    with gc_pause.paused():
        for path in paths:
            try:
                files = resolve_suite_paths(path)
            except SuiteError as exc:
                errors.append(exc)
                continue
            for file in files:
                if file.resolve() in seen:  # a folder and a file in it, both named
                    continue
                seen.add(file.resolve())
                try:
                    suites.append(load_suite(file))
                except SuiteError as exc:
                    errors.append(exc)
    if errors:
        raise SuiteError.merge(errors, f"{len(errors)} suite files")
    refuse_duplicate_names(suites)
    return suites


def api_key_set() -> bool:
    return bool(os.environ.get("ANTHROPIC_API_KEY", "").strip())


def anthropic_provider(*, max_connections: int = 100, env: Mapping[str, str] | None = None) -> LazyProvider:
    """The real provider; raises MissingKeyError (exit 2) without a key. `env`: the environment as the
    command started, before user code ran (else the current one)."""
    env = os.environ if env is None else env
    # Read from the environment the command started with: a plugin or target that rewrites
    # ANTHROPIC_BASE_URL (or the key) must not redirect the judge's requests, key and all.
    api_key = (env.get("ANTHROPIC_API_KEY") or "").strip()
    if not api_key:
        raise MissingKeyError(NO_KEY_MESSAGE)
    base_url = (env.get("ANTHROPIC_BASE_URL") or "").strip() or None

    def build() -> Provider:
        from evalkit.llm.providers.anthropic import AnthropicProvider  # anthropic loads only when a run needs it

        return AnthropicProvider(api_key=api_key, base_url=base_url, max_connections=max_connections)

    # Built on the first request the cache cannot answer: a fully cached run never imports anthropic.
    lazy = LazyProvider(build, "anthropic")
    lazy.credentials = (api_key, base_url)  # the model lifecycle is asked with the same ones
    return lazy


def anthropic_deprecations(cache_dir: str | Path | None = None) -> dict[str, str]:
    """Model id to end-of-life date for the models Anthropic deprecated: the API's answer when a key is
    set (kept a day beside the response cache), else evalkit's own dated table."""
    return lifecycle_table(cache_dir).end_of_life()


def lifecycle_table(
    cache_dir: str | Path | None = None, credentials: tuple[str, str | None] | None = None
) -> LifecycleTable:
    """The lifecycle source of a run: the API (with a key: `credentials`, else the environment's) over
    evalkit's table."""
    fetch = None
    if credentials is None and api_key_set():
        credentials = (os.environ["ANTHROPIC_API_KEY"].strip(), os.environ.get("ANTHROPIC_BASE_URL") or None)
    if credentials is not None:
        api_key, base_url = credentials

        def fetch() -> dict[str, dict[str, Any]]:
            from evalkit.llm.providers.anthropic import fetch_lifecycles  # anthropic loads only when asked

            return fetch_lifecycles(api_key=api_key, base_url=base_url)

    return LifecycleTable(Path(cache_dir) if cache_dir else default_cache_dir(), fetch)


def response_cache(*, no_cache: bool, cache_dir: str | Path | None) -> ResponseCache | None:
    """The response cache a run or a plan uses: `cache_dir`, else the default folder; None with `no_cache`."""
    return None if no_cache else ResponseCache(Path(cache_dir) if cache_dir else default_cache_dir())


def make_client(
    provider: Provider,
    *,
    concurrency: int = DEFAULT_CONCURRENCY,
    cache_dir: str | Path | None = None,
    no_cache: bool = False,
    retry: RetryPolicy = RetryPolicy(),
    deprecated: Callable[[], dict[str, str]] | None = anthropic_deprecations,
) -> ModelClient:
    cache = response_cache(no_cache=no_cache, cache_dir=cache_dir)
    # One table of the API's answer (or evalkit's own) for the lifecycles and the capabilities; it
    # reads its sources once, on first use.
    table = lifecycle_table(cache_dir, getattr(provider, "credentials", None))
    if deprecated is anthropic_deprecations:
        deprecated = table.end_of_life
    return ModelClient(
        provider,
        concurrency=concurrency,
        cache=cache,
        retry=retry,
        deprecated=_once(deprecated) if deprecated else None,
        capabilities=CapabilityTable(table),
    )


def _once(fn: Callable[[], dict[str, str]]) -> Callable[[], dict[str, str]]:
    memo: list[dict[str, str]] = []

    def call() -> dict[str, str]:
        if not memo:
            memo.append(fn())
        return memo[0]

    return call


async def run_async(suites: list[Suite], client: ModelClient, options: RunOptions | None = None) -> Report:
    try:
        return _finished(client, await Runner(client, options).run(suites))
    finally:
        await client.provider.aclose()


def run(suites: list[Suite], client: ModelClient, options: RunOptions | None = None) -> Report:
    """Run `suites` to a Report (blocking; SIGTERM stops it as Ctrl-C does)."""
    return run_stoppable(run_async(suites, client, options))


async def _run_summary(suites: list[Suite], client: ModelClient, options: RunOptions) -> Report:
    try:
        return _finished(client, await Runner(client, options).run_summary(suites))
    finally:
        await client.provider.aclose()


def _finished(client: ModelClient, report: Report) -> Report:
    if client.batcher is not None:
        client.batcher.finished()  # the run completed: no batch is left to resume
    return report


def calibrate(
    suites: list[Suite], client: ModelClient, *, judge_model: str | None = None, repeats: int = 3
) -> list[Calibration]:
    """Measure each suite's judge and extraction on its gold outputs (blocking)."""
    from evalkit.engine.judge_calibration import calibrate as measure  # only this command needs it

    async def all_suites() -> list[Calibration]:
        try:
            return list(
                await asyncio.gather(
                    *(measure(client, s, s.tier_models(None, judge_model)["low"], repeats) for s in suites)
                )
            )
        finally:
            await client.provider.aclose()

    return asyncio.run(all_suites())


def calibrate_and_save(
    paths: list[str | Path], repeats: int, judge_model: str | None, no_cache: bool, echo: Callable[[str], None]
) -> int:
    """`evalkit calibrate`: measure, print and save each suite's figures; 1 when any is under the bar."""
    from evalkit.engine.judge_calibration import describe  # only this command needs it
    from evalkit.suite.calibration import save_calibration

    suites = [s for s in load_suites(paths) if s.gold]
    if not suites:
        raise UsageError(
            "no gold outputs in these suites: add `gold:` entries first (see docs/judge-and-calibration.md)"
        )
    results = calibrate(
        suites, make_client(anthropic_provider(), no_cache=no_cache), judge_model=judge_model, repeats=repeats
    )
    for suite, result in zip(suites, results):
        echo("\n".join(describe(result)) + f"\n  saved {save_calibration(suite, result)}")
    return passed_or_failed(any(r.below or r.short for r in results))


def run_and_save(
    suites: list[Suite],
    client: ModelClient,
    options: RunOptions,
    out: Path,
    *,
    markdown_path: str | Path | None = None,
    html_path: str | Path | None = None,
    finish: Callable[[Report], Report] | None = None,
) -> Report:
    """Run, let `finish` amend the Report (the Action redacts secrets), then write the results JSON
    to `out` and, if asked, the markdown and HTML reports. Every front door that saves results calls this.
    Configuration problems raise SuiteError (exit 2) before any model is called.

    The cases stream to the JSONL (`<out>l` unless options name one) and the results JSON is
    assembled from it; the Report returned has them only if a rendering or `finish` needed them
    (else it is the run's summary: verdicts, counts per suite, totals)."""
    preflight(suites, target=options.target, cases=options.cases, need_target=True)
    if options.jsonl_path is None:
        options = replace(options, jsonl_path=out.with_suffix(out.suffix + "l"))
    writable([out, options.jsonl_path, markdown_path, html_path])
    summary = run_stoppable(_run_summary(suites, client, options))
    jsonl = options.jsonl_path
    assert jsonl is not None
    try:
        if finish is None and not markdown_path and not html_path:
            return write_report(jsonl, out, summary)
        report = load_report(jsonl)
        if finish is not None:
            report = finish(report)
        report.save(out)
    except OutputError as exc:  # every case is in the JSONL: say so, and how to have the rest
        raise OutputError(
            f"{exc}; every case of the run is in {jsonl} (`evalkit report {jsonl} --format json "
            f"-o {out}` writes the results again)"
        ) from None
    try:
        if markdown_path:
            write_atomic(markdown_path, render_markdown(report))
        if html_path:
            write_html(report, html_path)
    except OutputError as exc:
        raise OutputError(f"{exc}; the results are in {out} (`evalkit report {out}` renders them again)") from None
    return report


def writable(paths: list[str | Path | None]) -> None:
    """Create the folders the outputs go in and make sure a file can be written there, or raise
    UsageError (exit 2) before any model call: an output under a path that is a file, an output
    that is a folder, a read-only file system, no permission, no space at all."""
    probed: set[Path] = set()
    for path in [Path(p) for p in paths if p]:
        blocker = next((p for p in path.parents if p.exists() and not p.is_dir()), None)
        if blocker is not None:
            raise UsageError(f"cannot write {path}: {blocker} is a file, not a folder")
        if path.is_dir():
            raise UsageError(f"cannot write {path}: it is a folder")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise UsageError(f"cannot write {path}: {exc.strerror or exc}") from None
        problem = probe_writable(path.parent) if path.parent not in probed else None
        probed.add(path.parent)
        if problem is None and path.exists() and not os.access(path, os.W_OK):  # the JSONL is written in place
            problem = "Permission denied"
        if problem:
            raise UsageError(f"cannot write {path}: {problem} (nothing was run)")


def plan_calls(
    suites: list[Suite],
    *,
    results: str | None = None,
    cache_dir: str | Path | None = None,
    no_cache: bool = False,
    count_tokens: bool = True,
    **options: Any,
) -> Estimate:
    """`evalkit plan`: the calls a run would make, with the response cache a run would use and,
    when given, a previous run's results (callable targets' calls as measured there). With a key
    (and `count_tokens`), input tokens come from the API's token counting endpoint (no model call)."""
    from evalkit.compare import load_results  # only this command needs it
    from evalkit.engine.planning import estimate

    # What a run's preflight refuses without importing user code, refused here the same way (one function).
    plan_problems(suites, cases=options.get("cases"))
    cache = response_cache(no_cache=no_cache, cache_dir=cache_dir)
    previous = load_results(results) if results else None
    counter = None
    if count_tokens and api_key_set():
        from evalkit.llm.providers.token_count import token_counter  # loads anthropic: only a plan with a key

        counter = token_counter(
            os.environ["ANTHROPIC_API_KEY"].strip(), (os.environ.get("ANTHROPIC_BASE_URL") or "").strip() or None
        )
    # The judge's route as the run picks it (evalkit.scoring.structured): its requests' cache keys. A
    # setting a model would refuse is refused here as a run refuses it, before anything is counted.
    table = lifecycle_table(cache_dir)
    warnings = check_models(suites, model=options.get("model"), judge_model=options.get("judge_model"), table=table)
    planned = estimate(
        suites,
        cache=cache,
        previous=previous,
        previous_path=results,
        count_tokens=counter,
        capabilities=CapabilityTable(table),
        **options,
    )
    planned.warnings = warnings
    return planned


def check_models(
    suites: list[Suite],
    *,
    model: str | None = None,
    judge_model: str | None = None,
    cache_dir: str | Path | None = None,
    table: LifecycleTable | None = None,
) -> list[str]:
    """What `validate` and `plan` say of the models before any call: raises as a run would for a setting
    a model refuses or a judge model evalkit cannot ask; returns the warnings (deprecated and Legacy
    models, a thinking target's small max_tokens)."""
    table = table or lifecycle_table(cache_dir)
    capabilities = CapabilityTable(table).of
    refuse_unfit(suites, model, judge_model, capabilities)
    return fit_warnings(suites, model, judge_model, capabilities, table.end_of_life())


def merge_and_save(result_paths: list[str], out: Path, *, markdown_path: str | Path | None = None) -> Report:
    """Join every shard's results into one Report (checks across cases computed over all cases),
    save it to `out` and, if asked, the markdown report."""
    shards = merging.load_shard_reports(result_paths)
    merging.check_complete(shards)
    reports = [r for _, r in shards]
    report = merging.merge_reports(reports, load_suites(list(merging.suite_paths(reports))))
    out.parent.mkdir(parents=True, exist_ok=True)
    report.save(out)
    if markdown_path:
        write_atomic(markdown_path, render_markdown(report))
    return report
