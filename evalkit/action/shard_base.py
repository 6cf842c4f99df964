"""The comparison with the base commit for a sharded run (`shard: I/N` jobs, then a `merge` job).

Each shard job runs its own share of the cases (the same `--shard I/N`) on the base commit, in
the same secret-free worker and with the same response cache as an unsharded run's base side,
and saves it beside its results as `base.json`, its suite files named relative to the repository
root (each job's worktree of the base has a path of its own), or `base-unavailable.json` saying
why it has none. The merge job joins the base parts as it joins the head's (evalkit/engine/merging.py),
loading the base's suite files from a worktree of the base commit (checks across cases need
them), and compares; if any shard has no base part, the comment says why and the thresholds decide.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path

from pydantic import ValidationError

from evalkit.action.baseline import BaseResult, Settings, _run_base_in_worker, base_ref, compared, ensure_commit
from evalkit.action.inputs import Inputs
from evalkit.action.redact import redact, redact_file, redact_text
from evalkit.compare.flaky import FlakyIndex
from evalkit.engine import load_suites, merging
from evalkit.engine.base_ref import Git, worktree
from evalkit.errors import EvalkitError, UsageError
from evalkit.github.event import Event
from evalkit.results.report import Report

BASE_FILE = "base.json"
UNAVAILABLE_FILE = "base-unavailable.json"
NOT_A_CHECKOUT = "the workspace is not a git checkout (run actions/checkout first)"


def save_shard_base(
    settings: Settings,
    event: Event,
    workspace: Path,
    rels: Sequence[str],
    inputs: Inputs,
    *,
    out_dir: Path,
    secrets: Sequence[str],
    env: Mapping[str, str],
    python: str | None,
) -> None:
    """Run this shard's share of `rels` on the base into `out_dir/base.json`, or say why not in
    `out_dir/base-unavailable.json` (nothing when no comparison is asked for)."""
    for stale in (out_dir / BASE_FILE, out_dir / UNAVAILABLE_FILE):
        stale.unlink(missing_ok=True)
    ref, why = base_ref(settings, event)
    if ref is None:
        if why:
            _unavailable(out_dir, inputs.shard, why)
        return
    try:
        git = Git.of(workspace, safe=True)
    except UsageError:
        return _unavailable(out_dir, inputs.shard, NOT_A_CHECKOUT)
    missing = ensure_commit(git, ref, inputs.github_token)
    if missing:
        return _unavailable(out_dir, inputs.shard, missing)
    print(f"evalkit: running shard {inputs.shard} of the same suites on the base {ref[:12]} (the merge job compares)")
    out = out_dir / BASE_FILE
    try:
        _run_base_in_worker(
            git, ref, rels, inputs, workspace, out=out, env=env, secrets=secrets, python=python, shard=inputs.shard
        )
        report = redact(Report.load(out), secrets)
    except (EvalkitError, ValidationError, ValueError, OSError) as exc:
        out.unlink(missing_ok=True)
        return _unavailable(out_dir, inputs.shard, redact_text(" ".join(str(exc).split()), secrets))
    report.save(out)
    redact_file(out.with_suffix(".jsonl"), secrets)
    print(
        f"evalkit: base results of shard {inputs.shard} saved beside the results ({BASE_FILE}; base "
        f"{report.usage.calls} requests made, {report.usage.cache_hits} from the cache)"
    )


def merged_comparison(
    settings: Settings,
    event: Event,
    workspace: Path,
    files: Sequence[Path],
    head: Report,
    *,
    inputs: Inputs,
    out_dir: Path,
    flaky: FlakyIndex | None = None,
) -> BaseResult:
    """Join the base parts saved beside each shard's results (`files`) and compare `head` (the
    merged head) with them; a missing part or a base that cannot be had gives the reason instead.
    `flaky`: the history's flaky cases, as for an unsharded run."""
    ref, why = base_ref(settings, event)
    if ref is None:
        return BaseResult(why_none=why, gate=settings.gate)
    parts, why = _base_parts(files, workspace)
    if why:
        return BaseResult(why_none=why, gate=settings.gate)
    commits = sorted({r.provenance.git_commit for r in parts if r.provenance and r.provenance.git_commit})
    if len(commits) > 1:
        return BaseResult(
            why_none="the shard jobs ran the base at different commits (" + ", ".join(c[:12] for c in commits) + ")",
            gate=settings.gate,
        )
    try:
        git = Git.of(workspace, safe=True)
    except UsageError:
        return BaseResult(why_none=NOT_A_CHECKOUT, gate=settings.gate)
    wanted = commits[0] if commits else ref
    missing = ensure_commit(git, wanted, inputs.github_token)
    commit = git.commit(wanted)
    if missing or commit is None:
        return BaseResult(why_none=missing or f"the base {wanted} is not a commit of this checkout", gate=settings.gate)
    try:
        base, absent = _merge_base(git, commit, parts, head, workspace)
    except EvalkitError as exc:
        return BaseResult(
            why_none="the shards' base results could not be merged: " + " ".join(str(exc).split()), gate=settings.gate
        )
    base.save(out_dir / BASE_FILE)
    print(f"evalkit: merged the base results of {len(parts)} shards ({commit[:12]})")
    return compared(
        base, head, event, ref, commit, missing_suites=absent, settings=settings, out_dir=out_dir, flaky=flaky
    )


def _merge_base(git: Git, commit: str, parts: list[Report], head: Report, workspace: Path) -> tuple[Report, list[str]]:
    """The base parts joined into one Report (suite files named relative to the repository root),
    and the head's suite files that do not exist on the base."""
    merging.check_complete([(f"the base results of shard {r.shard}", r) for r in parts])
    rels = merging.suite_paths(parts)
    with worktree(git, commit) as tree:
        suites = load_suites([tree / rel for rel in rels])  # in order: one Suite per file
        loaded = {rel: str(s.path) for rel, s in zip(rels, suites)}
        for part in parts:
            for suite in part.suites:
                suite.path = loaded[suite.path]
        base = merging.merge_reports(parts, suites) if rels else Report(verdict="skipped")
        absent = [rel for rel in _relative(head, workspace) if not (tree / rel).exists()]
    for suite in base.suites:
        suite.path = next(rel for rel, path in loaded.items() if path == suite.path)
    return base, absent


def _base_parts(files: Sequence[Path], workspace: Path) -> tuple[list[Report], str | None]:
    """The base part beside each shard's results, or why the comparison cannot be made."""
    parts: list[Report] = []
    whys: dict[str, list[str]] = {}
    for file in files:
        base, unavailable = file.parent / BASE_FILE, file.parent / UNAVAILABLE_FILE
        if base.is_file():
            try:
                parts.append(Report.load(base))
                continue
            except (ValidationError, ValueError, OSError):
                whys.setdefault(f"{_show(base, workspace)} is not an evalkit results file", []).append("")
                continue
        if unavailable.is_file():
            try:
                said = json.loads(unavailable.read_text(encoding="utf-8"))
                whys.setdefault(str(said["why"]), []).append(str(said.get("shard") or _show(file, workspace)))
                continue
            except (ValueError, KeyError, TypeError, OSError):
                pass
        whys.setdefault(
            f"no base results beside {_show(file, workspace)} (upload the shard's whole results folder, "
            f"{BASE_FILE} included: see the matrix workflow in docs/scale.md)",
            [],
        ).append("")
    if not whys:
        return parts, None
    said = []
    for why, shards in whys.items():
        named = [s for s in shards if s]
        said.append(f"shard {', '.join(named)}: {why}" if named else why)
    return parts, "; ".join(said)


def _relative(report: Report, workspace: Path) -> list[str]:
    rels = []
    for suite in report.suites:
        path = Path(suite.path)
        for root in (workspace, workspace.resolve()):
            if path.is_absolute() and path.is_relative_to(root):
                rels.append(path.relative_to(root).as_posix())
                break
        else:
            rels.append(path.as_posix())
    return rels


def _unavailable(out_dir: Path, shard: str | None, why: str) -> None:
    print(f"evalkit: shard {shard}: no base results for the merge job to compare with: {why}")
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / UNAVAILABLE_FILE).write_text(json.dumps({"shard": shard, "why": why}) + "\n", encoding="utf-8")


def _show(path: Path, workspace: Path) -> str:
    try:
        return path.relative_to(workspace).as_posix()
    except ValueError:
        return path.as_posix()
