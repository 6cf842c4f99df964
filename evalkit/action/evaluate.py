"""The two jobs the worker does for the entrypoint (evalkit/action/sandbox.py): index the
repository's suites, and run the chosen ones to a Report in which no secret survives."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from evalkit.action.discovery import SuiteRef
from evalkit.action.inputs import Inputs, selectors
from evalkit.action.redact import redact, redact_file
from evalkit.action.sandbox import Unfinished, run_worker
from evalkit.engine.per_model_runs import model_path
from evalkit.results.report import Report


@dataclass
class RepoIndex:
    """The repository's suite files as the worker loaded them (the parent never imports them)."""

    root: Path
    source: str  # "evalkit.yml" or "discovered"
    refs: list[SuiteRef] = field(default_factory=list)
    watch: dict[str, list[str]] = field(default_factory=dict)
    selected: list[str] | None = None  # the suite files the `suites` input names, if it names any
    project: Path | None = None  # the working directory: where the team's code runs, cache_dir's base

    def watch_map(self) -> dict[str, list[str]]:
        """Suite file (relative) to its watch globs relative to the root."""
        return dict(self.watch)


def index_suites(
    root: Path,
    entries: Sequence[str],
    *,
    env: Mapping[str, str],
    secrets: Sequence[str],
    python: str | None = None,
    project: Path | None = None,
) -> RepoIndex:
    """Load the repository's suites in the worker (`project`: the working directory whose evalkit.yml
    is read); raises SuiteError / UsageError as loading does."""
    where = project or root
    answer = run_worker(
        {"kind": "index", "root": str(root), "project": str(where), "entries": list(entries)},
        env=env,
        secrets=secrets,
        credential=None,
        python=python,
        cwd=where,
    )
    refs = [SuiteRef(Path(r["path"]), r["rel"], r.get("target"), tuple(r.get("watch") or ())) for r in answer["refs"]]
    return RepoIndex(
        root,
        answer["source"],
        refs,
        {r["rel"]: list(r.get("watch") or []) for r in answer["refs"]},
        answer.get("selected"),
        where,
    )


ModelRuns = list[tuple[str, Report]]


def evaluate(
    inputs: Inputs,
    repo: RepoIndex,
    rels: Sequence[str],
    *,
    out_dir: Path,
    env: Mapping[str, str],
    secrets: Sequence[str],
    run_url: str | None,
    python: str | None = None,
) -> tuple[Report, ModelRuns]:
    """Run the suites `rels` of `repo` to `out_dir/results.json` (and `results.jsonl`). A
    model-against-model run (`compare_models`, the input's or the suites') also gives each
    model's Report, in order; `results.json` is then the first model's."""
    refs = {ref.rel: ref for ref in repo.refs}
    jsonl, results = out_dir / "results.jsonl", out_dir / "results.json"
    for stale in (jsonl, results):
        stale.unlink(missing_ok=True)
    job = {
        "kind": "run",
        "suites": [{"path": str(refs[rel].path), "target": refs[rel].target} for rel in rels],
        "options": {
            "model": inputs.model,
            "judge_model": inputs.judge_model,
            "rubric_threshold": inputs.rubric_threshold,
            "agreement_threshold": inputs.agreement_threshold,
            "shard": inputs.shard,
            "inconclusive": inputs.inconclusive,
            "max_cost": inputs.max_cost,
            "compare_models": list(inputs.compare_models),
            "batch": inputs.batch,
            "cases": selectors(inputs),
        },
        "results": str(results),
        "jsonl": str(jsonl),
        "concurrency": inputs.concurrency,
        "cache_dir": str((repo.project or repo.root) / inputs.cache_dir) if inputs.cache_dir else None,
    }
    answer = run_worker(
        job, env=env, secrets=secrets, credential=inputs.credential, python=python, cwd=repo.project or repo.root
    )
    for path in [results, *(model_path(results, model) for model in answer.get("models") or [])]:
        if not path.is_file():  # the worker said it finished: this is evalkit's own fault
            raise Unfinished(f"the run ended without writing its results ({path.name})", internal=True)
    # Belt and braces: a target or model that echoes a secret (which the worker should never
    # have) does not get it into the results, the comment, the summary or the log.
    runs = [(model, _redacted(model_path(results, model), secrets, run_url)) for model in answer.get("models") or []]
    for model, _ in runs:
        redact_file(model_path(jsonl, model), secrets)
    report = _redacted(results, secrets, run_url)
    redact_file(jsonl, secrets)
    return report, runs


def _redacted(path: Path, secrets: Sequence[str], run_url: str | None) -> Report:
    try:
        loaded = Report.load(path)
    except (OSError, ValueError) as exc:
        raise Unfinished(
            f"the run's results ({path.name}) cannot be read: {type(exc).__name__}: "
            f"{str(exc).splitlines()[0] if str(exc) else ''}",
            internal=True,
        ) from None
    report = redact(loaded, secrets).model_copy(update={"run_url": run_url})
    report.save(path)
    return report
