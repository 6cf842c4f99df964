"""The worker the Action runs user code in (`python -m evalkit.action.worker JOB.json`): it
loads the suites and runs them through the one engine (`run_and_save`), with no secret in
reach (see evalkit/action/sandbox.py). The model is reached through the parent's loopback
proxy, named by ANTHROPIC_BASE_URL with a placeholder ANTHROPIC_API_KEY.

Two jobs, as JSON: {"kind": "index", "root", "entries"} loads the repository's suites (which
imports their plugins: user code) and answers with the suite files, their watch globs and the
ones `entries` name; {"kind": "run", "suites": [{"path", "target"}], "options": {...},
"results", "jsonl", "concurrency", "cache_dir"} runs them; when `options.compare_models` names two
or more models (or the suites' own `compare_models` lists them), once per model, each to
`results.<model>.json`, with `results` the first model's, and the answer names the models. The answer (JSON at "answer") has
"problems" when a suite file cannot be loaded, "usage_error" for an entry that names no suite; its exit
code says which (WorkerExit in evalkit/exit_codes.py).
"""

from __future__ import annotations

import json
import os
import sys
import traceback
from dataclasses import replace
from pathlib import Path
from typing import Any

from evalkit._runtime import exit_guard
from evalkit._runtime.out_of_reach import mark_non_dumpable
from evalkit.action.discovery import load_repo_suites, select_named
from evalkit.action.sandbox import SEAL_FD_VARIABLE
from evalkit.engine import anthropic_deprecations, make_client, run_and_save
from evalkit.engine.per_model_runs import model_path, models_to_compare, run_per_model
from evalkit.errors import EvalkitError, RefusedRequest, SuiteError, UsageError, safe_str
from evalkit.exit_codes import WorkerExit
from evalkit.limits import DEFAULT_CONCURRENCY
from evalkit.llm.batching import batch_run
from evalkit.llm.cache import use_seal
from evalkit.results.report import Report
from evalkit.run.options import RunOptions
from evalkit.run.sharding import parse_shard
from evalkit.suite.loader import load_suite
from evalkit.suite.model import Suite, Target, describe_selection


def index_job(job: dict[str, Any]) -> dict[str, Any]:
    """The repository's suite files (path, rel, target, watch globs) and those `entries` name."""
    repo = load_repo_suites(job["root"], job.get("project"))
    selected = select_named(repo, job["entries"]) if job.get("entries") else None
    watch = repo.watch_map()
    return {
        "source": repo.source,
        "selected": selected,
        "refs": [{"path": str(r.path), "rel": r.rel, "target": r.target, "watch": watch[r.rel]} for r in repo.refs],
    }


def run_job(job: dict[str, Any]) -> dict[str, Any]:
    """Load the job's suites and run them to `job["results"]` (and its JSONL); the answer."""
    # anthropic is imported only in the worker that calls the model.
    from evalkit.llm.providers.anthropic import AnthropicProvider

    suites = _load(job["suites"])
    opts = job.get("options", {})
    options = RunOptions(
        model=opts.get("model"),
        judge_model=opts.get("judge_model"),
        rubric_threshold=opts.get("rubric_threshold"),
        agreement_threshold=opts.get("agreement_threshold"),
        jsonl_path=Path(job["jsonl"]) if job.get("jsonl") else None,
        shard=parse_shard(opts["shard"]) if opts.get("shard") else None,
        inconclusive=opts.get("inconclusive"),
        cases=list(opts.get("cases") or []),
        max_cost=opts.get("max_cost"),
    )
    results = Path(job["results"])
    if options.cases and not any(s.select(options.cases) for s in suites):
        # A pull request that touches only suites without the `tags` input's tags: nothing to run, not an error.
        _say(
            f"no case of {', '.join(s.name for s in suites)} has the tags {describe_selection(options.cases)}: "
            f"nothing to run"
        )
        Report(verdict="skipped").save(results)
        return {}
    concurrency = int(job.get("concurrency", DEFAULT_CONCURRENCY))
    # The key and base URL come from the environment: the proxy's placeholder and address.
    provider = AnthropicProvider(max_connections=max(concurrency, 8))
    cli_models = list(opts.get("compare_models") or []) or ([options.model] if options.model else [])
    compared = models_to_compare(suites, cli_models)

    def new_client() -> Any:
        lifecycle = job.get("lifecycle")  # asked by the parent, which holds the key the API wants
        client = make_client(
            provider,
            concurrency=concurrency,
            cache_dir=job.get("cache_dir"),
            deprecated=(lambda: dict(lifecycle)) if lifecycle is not None else anthropic_deprecations,
        )
        return batch_run(client, results, suites, None, _say) if opts.get("batch") else client

    if not compared:
        run_and_save(suites, new_client(), options, results)
        return {}
    runs = run_per_model(suites, compared, new_client, replace(options, model=None))
    for model, report in runs:
        report.save(model_path(results, model))
    runs[0][1].save(results)
    return {"models": compared}


def _say(message: str) -> None:
    print(f"evalkit: {message}", flush=True)


def _load(entries: list[dict[str, Any]]) -> list[Suite]:
    suites, errors = [], []
    for entry in entries:
        try:
            suite = load_suite(entry["path"])
        except SuiteError as exc:
            errors.append(exc)
            continue
        if entry.get("target"):
            suite.target = Target(function=entry["target"])
        suites.append(suite)
    if errors:
        raise SuiteError.merge(errors, f"{len(errors)} suite file(s)")
    return suites


def take_seal() -> None:
    """Read the cache's seal key from the descriptor the entrypoint passed (then closed), and make
    this process, which holds it, unreadable by the user code it starts (evalkit/llm/cache.py)."""
    fd = os.environ.pop(SEAL_FD_VARIABLE, "")
    mark_non_dumpable()
    if not fd.isdigit():
        return
    try:
        with os.fdopen(int(fd), "rb") as pipe:
            data = pipe.read(200).strip()
        use_seal(bytes.fromhex(data.decode("ascii")) if data else None)
    except (OSError, ValueError):
        pass


def main(argv: list[str]) -> int:
    take_seal()
    job = json.loads(Path(argv[0]).read_text(encoding="utf-8"))
    # User code imported here (plugins, targets) that calls os._exit ends this worker with 2 and a
    # message, never with a silent 0; its calls run in processes of their own (evalkit/run/user_code.py).
    exit_guard.arm()
    answer: dict[str, Any] = {}
    code = WorkerExit.DONE
    try:
        if job["kind"] == "index":
            answer = index_job(job)
        elif job["kind"] == "run":
            answer = run_job(job)
        else:
            raise ValueError(f"unknown worker job {job['kind']!r}")
    except UsageError as exc:
        answer, code = {"usage_error": str(exc)}, WorkerExit.USAGE_ERROR
    except RefusedRequest as exc:  # evalkit's own request shape: its fault (the Action exits 3)
        answer, code = {"refused": str(exc)}, WorkerExit.FAILED
    except SuiteError as exc:
        answer = {
            "path": exc.path,
            "text": str(exc),
            "problems": [
                {"message": p.message, "file": p.file, "line": p.line, "case_id": p.case_id} for p in exc.problems
            ],
        }
        code = WorkerExit.SUITE_ERROR
    except EvalkitError as exc:  # a full disk, an unreadable cache...: the run did not finish
        answer, code = {"error": str(exc)}, WorkerExit.FAILED
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as exc:  # evalkit's own bug: the traceback goes to the log, the answer says so
        try:
            traceback.print_exc()
        except Exception:  # noqa: BLE001 - an exception whose str() raises
            pass
        answer, code = {"internal_error": f"{type(exc).__name__}: {safe_str(exc)}"}, WorkerExit.FAILED
    Path(job["answer"]).write_text(json.dumps({**answer, "done": True}), encoding="utf-8")
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
