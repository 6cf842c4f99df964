"""The Action's comparison with the pull request's base commit: find (or fetch) the base,
run the same suites there through `evalkit.engine.base_ref`, compare, and decide what fails the step
(`gate`). When there is no base to compare with, say why; the thresholds decide then."""

from __future__ import annotations

import base64
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from evalkit.action.inputs import Inputs, read_input, selectors
from evalkit.action.redact import redact, redact_file, redact_text
from evalkit.action.sandbox import run_worker
from evalkit.action.saved_base import relative_suite_paths, reuse, run_options
from evalkit.compare import Comparison, compare_reports
from evalkit.compare.flaky import FlakyIndex
from evalkit.compare.load import load_results
from evalkit.engine.base_ref import Git, worktree
from evalkit.errors import EvalkitError, UsageError
from evalkit.exit_codes import passed_or_failed
from evalkit.github.api import GitHubAPI
from evalkit.github.event import Event
from evalkit.render.comment import clean
from evalkit.render.compare import detailed_cases, render_comparison
from evalkit.results.report import Report

GATES = ("thresholds", "regressions", "both")


@dataclass(frozen=True)
class Settings:
    gate: str = "both"
    baseline: str = "auto"  # auto: the PR's base commit; none; or any git ref

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> "Settings":
        gate = (read_input(env, "gate") or "both").lower()
        if gate not in GATES:
            raise UsageError(f"invalid input: gate: {gate!r} is not one of {', '.join(GATES)}")
        return cls(gate=gate, baseline=read_input(env, "baseline") or "auto")


@dataclass
class BaseResult:
    """The comparison, or why there is none (None and None: not asked for)."""

    comparison: Comparison | None = None
    why_none: str | None = None
    gate: str = "both"
    report: Report | None = None  # the base's own Report: the HTML page shows its outputs beside head's

    def lead(self, threshold_code: int, head: Report | None = None) -> str:
        """Markdown put before the report in the comment: the comparison, or why there is none. Its
        headline is ❌ whenever the step fails (`threshold_code`: the thresholds' exit code); with
        `head` it quotes each failing case's answer where it explains the case."""
        if self.comparison is not None:
            gate_failed = self.exit_code(threshold_code) != 0
            return render_comparison(self.comparison, clean=clean, gate_failed=gate_failed, head=head) + "\n---\n\n"
        if self.why_none:
            return (
                f"> ℹ️ **No comparison with the base branch:** {clean(self.why_none)}. The thresholds below decide.\n\n"
            )
        return ""

    def exit_code(self, threshold_code: int) -> int:
        """What fails the step: the thresholds, regressions against the base, or either."""
        if self.comparison is None:
            return threshold_code  # nothing to compare with: today's threshold gate
        regressed = passed_or_failed(bool(self.comparison.regressed))
        return {"thresholds": threshold_code, "regressions": regressed}.get(self.gate, max(threshold_code, regressed))

    def detailed(self) -> list[str]:
        """The cases (`suite/case`) the lead explains: the report after it leaves their details out."""
        return detailed_cases(self.comparison) if self.comparison is not None else []

    def outputs(self) -> dict[str, str]:
        cmp = self.comparison
        return {"regressed": str(cmp.regressed) if cmp else "", "fixed": str(cmp.fixed) if cmp else ""}


def base_ref(settings: Settings, event: Event) -> tuple[str | None, str | None]:
    """(ref to compare with, why none)."""
    if settings.baseline.lower() == "none":
        return None, None
    if settings.baseline.lower() != "auto":
        return settings.baseline, None
    if not event.is_pull_request:
        return None, None
    if not event.base_sha:
        return None, "the pull request event names no base commit"
    return event.base_sha, None


def ensure_commit(git: Git, ref: str, token: str) -> str | None:
    """Why `ref` cannot be had, or None once it is in the repository (fetched with the token if
    the checkout lacks it, as a shallow checkout does)."""
    if git.commit(ref):
        return None
    auth = {}
    if token:
        basic = base64.b64encode(f"x-access-token:{token}".encode()).decode()
        # Through the environment, not argv: the token never shows in a process list.
        auth = {
            "GIT_CONFIG_COUNT": "1",
            "GIT_CONFIG_KEY_0": "http.extraheader",
            "GIT_CONFIG_VALUE_0": f"AUTHORIZATION: basic {basic}",
        }
    done = git("fetch", "--no-tags", "--depth=1", "origin", ref, check=False, env=auth)
    if done.returncode == 0 and git.commit(ref):
        return None
    shallow = git("rev-parse", "--is-shallow-repository", check=False).stdout.strip() == "true"
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    return (
        f"the base commit {ref[:12]} is not in this {'shallow ' if shallow else ''}checkout and fetching it "
        f"failed ({lines[-1].strip() if lines else 'no message'}); check out with `fetch-depth: 0`, or set "
        "`baseline: none`"
    )


def compare_with_base(
    settings: Settings,
    event: Event,
    workspace: Path,
    rels: Sequence[str],
    head: Report,
    *,
    inputs: Inputs,
    out_dir: Path,
    secrets: Sequence[str],
    env: Mapping[str, str],
    python: str | None = None,
    api: GitHubAPI | None = None,
    watch: Mapping[str, Sequence[str]] | None = None,
    flaky: FlakyIndex | None = None,
) -> BaseResult:
    """Run `rels` on the base with the head's options and cache (or reuse the results a default-branch
    run saved for the base commit, when `reuse_base` is on and they hash the same: `api`, `watch`),
    and compare `head` with it; a base that cannot be had or run gives the reason instead (never an
    exception). `flaky`: the cases the history knows to be flaky on the default branch."""
    ref, why = base_ref(settings, event)
    if ref is None:
        return BaseResult(why_none=why, gate=settings.gate)
    try:
        git = Git.of(workspace, safe=True)
    except UsageError:
        return BaseResult(why_none="the workspace is not a git checkout (run actions/checkout first)")
    missing = ensure_commit(git, ref, inputs.github_token)
    if missing:
        return BaseResult(why_none=missing)
    commit = git.commit(ref)
    if inputs.reuse_base and commit and watch is not None:
        saved, note = reuse(api, event, git, commit, rels, watch=watch, options=run_options(inputs))
        print(f"evalkit: {note}")
        if saved is not None:
            saved = redact(saved, secrets)
            saved.save(out_dir / "base.json")
            missing_here = [r for r in rels if r not in {s.path for s in saved.suites}]
            result = compared(
                saved,
                head,
                event,
                ref,
                commit,
                missing_suites=missing_here,
                settings=settings,
                out_dir=out_dir,
                flaky=flaky,
            )
            if result.comparison is not None:
                result.comparison.notes.append(
                    f"the base's results were saved by the default branch's run of "
                    f"{commit[:12]}: no model was called for the base"
                )
            return result
    print(f"evalkit: running the same suites on the base {ref[:12]} to compare")
    out = out_dir / "base.json"
    try:
        commit, missing_suites = _run_base_in_worker(
            git, ref, rels, inputs, workspace, out=out, env=env, secrets=secrets, python=python
        )
    except (UsageError, EvalkitError) as exc:
        return BaseResult(why_none=redact_text(str(exc), secrets))
    base_report = redact(load_results(out), secrets)
    base_report.save(out)
    redact_file(out.with_suffix(".jsonl"), secrets)
    return compared(
        base_report,
        head,
        event,
        ref,
        commit,
        missing_suites=missing_suites,
        settings=settings,
        out_dir=out_dir,
        flaky=flaky,
    )


def compared(
    base_report: Report,
    head: Report,
    event: Event,
    ref: str,
    commit: str,
    *,
    missing_suites: Sequence[str],
    settings: Settings,
    out_dir: Path,
    flaky: FlakyIndex | None = None,
) -> BaseResult:
    """Compare `head` with the base's Report (run here, or merged from the shards' base runs); `flaky`:
    the history's flaky cases, whose flips read "flaky on main" instead of a regression."""
    label = "the base branch" + (f" ({event.base_ref})" if event.base_ref and ref == event.base_sha else f" ({ref})")
    cmp = compare_reports(base_report, head, base_label=f"{label} {commit[:12]}", head_label="this change", flaky=flaky)
    cmp.notes += [f"{rel} does not exist on the base: its cases are all new" for rel in missing_suites]
    (out_dir / "comparison.json").write_text(cmp.model_dump_json(indent=2), encoding="utf-8")
    print(
        f"evalkit: {cmp.sentence()} (base {base_report.usage.calls} requests made, "
        f"{base_report.usage.cache_hits} from the cache)"
    )
    return BaseResult(comparison=cmp, gate=settings.gate, report=base_report)


def _run_base_in_worker(
    git: Git,
    ref: str,
    rels: Sequence[str],
    inputs: Inputs,
    workspace: Path,
    *,
    out: Path,
    env: Mapping[str, str],
    secrets: Sequence[str],
    python: str | None,
    shard: str | None = None,
) -> tuple[str, list[str]]:
    """Run the suites as they are on `ref` (only `shard`'s share, if given) in the same secret-free
    worker as the head's run (the base branch's code is target code too: it never sees the key),
    sharing the response cache. Returns the commit and the suites that do not exist on the base;
    the saved Report names its suite files relative to the repository root (the worktree is gone)."""
    commit = git.commit(ref)
    if commit is None:
        raise UsageError(f"the base {ref} is not a commit of this checkout")
    with worktree(git, commit) as tree:
        present = [r for r in rels if (tree / r).exists()]
        missing = [r for r in rels if not (tree / r).exists()]
        out.unlink(missing_ok=True)
        if not present:
            Report(verdict="skipped", shard=shard).save(out)
            return commit, missing
        job = {
            "kind": "run",
            "suites": [{"path": str(tree / r), "target": None} for r in present],
            "options": {
                "model": inputs.model,
                "judge_model": inputs.judge_model,
                "rubric_threshold": inputs.rubric_threshold,
                "agreement_threshold": inputs.agreement_threshold,
                "shard": shard,
                "inconclusive": inputs.inconclusive,
                "cases": selectors(inputs),
                "max_cost": inputs.max_cost,
            },
            "results": str(out),
            "jsonl": str(out.with_suffix(".jsonl")),
            "concurrency": inputs.concurrency,
            "cache_dir": str(workspace / inputs.working_directory / inputs.cache_dir) if inputs.cache_dir else None,
        }
        where = tree / inputs.working_directory  # the team's code runs where it runs on head
        run_worker(
            job,
            env=env,
            secrets=secrets,
            credential=inputs.credential,
            python=python,
            cwd=where if where.is_dir() else tree,
        )
        relative_suite_paths(out, tree)
    return commit, missing
