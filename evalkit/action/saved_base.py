"""Base results reused: a push to the default branch leaves its results for pull requests to
compare with, and a pull request whose base commit left them, for suites that hash the same,
compares with those instead of running the base again (paying only for the head).

The Action writes the folder (`results.json` and `keys.json`) and names the artifact; the workflow
uploads it with actions/upload-artifact (the REST API has no upload). A pull request finds it with
GET /repos/{owner}/{repo}/actions/artifacts?name=… (`actions: read`).

A suite's key is a hash of everything its results depend on that the commit does not already say
once evalkit's own version is fixed: the git blobs of the suite file, of its folder (prompts, case
files, its own code) and of every file its `watch` globs match (the target's code and prompts), and
the options that change models, judge settings and gates (model, judge_model, thresholds,
inconclusive, case selection, budget)."""

from __future__ import annotations

import hashlib
import json
import posixpath
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from evalkit.action.inputs import Inputs, selectors
from evalkit.engine.base_ref import Git
from evalkit.github.api import GitHubAPI, GitHubAPIError
from evalkit.github.artifacts import artifact_files, branch_artifacts
from evalkit.github.event import Event
from evalkit.github.globs import glob_match
from evalkit.llm.usage import Usage
from evalkit.results.provenance import evalkit_version
from evalkit.results.report import Report

ARTIFACT_PREFIX = "evalkit-base-"
FOLDER = "base-save"


def artifact_name(commit: str) -> str:
    return ARTIFACT_PREFIX + commit


def run_options(inputs: Inputs) -> dict[str, Any]:
    """The inputs that change what a run of the same files gives."""
    return {
        "model": inputs.model,
        "judge_model": inputs.judge_model,
        "rubric_threshold": inputs.rubric_threshold,
        "agreement_threshold": inputs.agreement_threshold,
        "inconclusive": inputs.inconclusive,
        "cases": selectors(inputs),
        "max_cost": inputs.max_cost,
    }


def suite_keys(git: Git, commit: str, watch: Mapping[str, Sequence[str]], options: Mapping[str, Any]) -> dict[str, str]:
    """Each suite file's key at `commit` (suites absent there get none)."""
    listing = git("ls-tree", "-r", "--full-tree", commit).stdout
    blobs: dict[str, str] = {}
    for line in listing.splitlines():
        meta, _, path = line.partition("\t")
        parts = meta.split()
        if len(parts) == 3 and parts[1] == "blob":
            blobs[path] = parts[2]
    keys = {}
    for rel, globs in watch.items():
        if rel not in blobs:
            continue
        folder = posixpath.dirname(rel)
        files = sorted(
            (p, b)
            for p, b in blobs.items()
            if p == rel
            or (folder and p.startswith(folder + "/"))
            or any(glob_match(g, p) for g in globs if not g.startswith("!"))
        )
        payload = json.dumps(
            {"suite": rel, "files": files, "options": dict(options), "evalkit": evalkit_version()},
            sort_keys=True,
            default=str,
        )
        keys[rel] = hashlib.sha256(payload.encode("utf-8")).hexdigest()
    return keys


def is_default_branch_push(event: Event) -> bool:
    ref = event.payload.get("ref") if isinstance(event.payload, Mapping) else None
    return event.name == "push" and bool(event.default_branch) and ref == f"refs/heads/{event.default_branch}"


def save(out_dir: Path, results: Path, workspace: Path, keys: Mapping[str, str], commit: str) -> Path:
    """Write the folder a default-branch run leaves for pull requests; returns it."""

    folder = out_dir / FOLDER
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "results.json").write_bytes(results.read_bytes())
    relative_suite_paths(folder / "results.json", workspace)
    (folder / "keys.json").write_text(json.dumps({"commit": commit, "suites": dict(keys)}, indent=2), encoding="utf-8")
    return folder


def saved_artifact(api: GitHubAPI, event: Event, commit: str) -> dict[str, Any] | None:
    """The base results the default branch's own runs saved for `commit`. Only theirs: a pull request's
    workflow can upload an artifact of the same name, and results it made up must never stand for the
    base (a regression would read as "already failing on the base")."""
    if not event.default_branch:
        return None
    found = branch_artifacts(api, event.owner, event.repo, artifact_name(commit), branch=event.default_branch)
    return found[0] if found else None


def reuse(
    api: GitHubAPI | None,
    event: Event,
    git: Git,
    commit: str,
    rels: Sequence[str],
    *,
    watch: Mapping[str, Sequence[str]],
    options: Mapping[str, Any],
) -> tuple[Report | None, str]:
    """(the base's saved Report narrowed to `rels`, or None; one line saying what happened)."""
    if api is None:
        return None, "no GitHub token to look up saved base results"
    wanted = {rel: key for rel, key in suite_keys(git, commit, {r: watch.get(r, []) for r in rels}, options).items()}
    if not wanted:
        return None, "no suite of this run exists on the base"
    try:
        artifact = saved_artifact(api, event, commit)
        if artifact is None:
            return None, (
                f"no saved results of the base {commit[:12]} from {event.default_branch or 'the default branch'}"
                f"'s own runs (artifact {artifact_name(commit)})"
            )
        files = artifact_files(api, event.owner, event.repo, artifact)
        saved_keys = json.loads(files["keys.json"])
        saved = Report.model_validate_json(files["results.json"])
    except (GitHubAPIError, KeyError, ValueError) as exc:
        return None, f"saved base results could not be read ({' '.join(str(exc).split())[:200]})"
    if saved_keys.get("commit") != commit:
        return None, "the saved base results name another commit"
    differ = [rel for rel, key in wanted.items() if saved_keys.get("suites", {}).get(rel) != key]
    if differ:
        return None, f"the saved base results hash differently for {', '.join(differ)} (files or options changed)"
    suites = [s for s in saved.suites if s.path in wanted]
    if {s.path for s in suites} != set(wanted):
        return None, "the saved base results lack a suite of this run"
    usage = Usage()
    for suite in suites:
        usage.add(suite.usage)
    return saved.model_copy(
        update={"suites": suites, "usage": usage}
    ), f"reused the results the default branch saved for {commit[:12]}: no base run, no base model call"


def relative_suite_paths(out: Path, root: Path) -> None:
    """Name the suite files of the Report at `out` relative to `root`, as every checkout of the
    repository names them (the shards' base parts, run in worktrees of their own, must join)."""
    if not out.is_file():
        return
    report = Report.load(out)
    for suite in report.suites:
        for prefix in {str(root).rstrip("/") + "/", str(root.resolve()).rstrip("/") + "/"}:
            suite.path = suite.path.removeprefix(prefix)
    report.save(out)
