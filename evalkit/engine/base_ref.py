"""Run the same suites on another git ref: check the ref out into a temporary worktree, run
`evalkit run` there in a process of its own (the base's agent modules must not mix with the
head's in one interpreter), with the head's options and the same response cache, so a request
that did not change is answered from the cache instead of being made twice."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evalkit.compare.load import load_results
from evalkit.errors import UsageError
from evalkit.exit_codes import ExitCode, passed_or_failed
from evalkit.llm.cache import default_cache_dir
from evalkit.llm.providers.interface import Provider
from evalkit.results.report import Report
from evalkit.run.options import RunOptions

# The base side runs in a child process with the head's evalkit (the engine is held fixed; only
# the repository's files differ). Its spec, the key included, travels on stdin, never in argv
# or the child's environment, so the base's agent code cannot read the key from os.environ.
_CHILD = [sys.executable, "-c", "import sys; from evalkit.engine.base_ref import child_main; sys.exit(child_main())"]


@dataclass
class Git:
    """git in one repository; `safe` trusts a checkout owned by another user (the Action's)."""

    root: Path
    safe: bool = False

    def __call__(
        self, *args: str, check: bool = True, env: Mapping[str, str] | None = None
    ) -> subprocess.CompletedProcess[str]:
        config = ["-c", "safe.directory=*"] if self.safe else []
        done = subprocess.run(
            ["git", *config, *args],
            cwd=self.root,
            capture_output=True,
            text=True,
            timeout=600,
            env=None if env is None else {**os.environ, **env},
        )
        if check and done.returncode != 0:
            raise UsageError(
                f"git {' '.join(args)} failed: {_last_line(done.stderr) or f'exit code {done.returncode}'}"
            )
        return done

    @classmethod
    def of(cls, where: Path, *, safe: bool = False) -> "Git":
        """The repository holding `where`; UsageError outside one."""
        probe = cls(where if where.is_dir() else where.parent, safe)
        done = probe("rev-parse", "--show-toplevel", check=False)
        if done.returncode != 0:
            raise UsageError(
                f"--baseline needs a git repository: {where} is not in one "
                f"({_last_line(done.stderr) or f'exit code {done.returncode}'})"
            )
        return cls(Path(done.stdout.strip()).resolve(), safe)

    def commit(self, ref: str) -> str | None:
        done = self("rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}", check=False)
        return done.stdout.strip() if done.returncode == 0 and done.stdout.strip() else None


@dataclass
class BaseRun:
    ref: str
    commit: str
    report: Report
    results_path: Path
    missing: list[str]  # suite paths that do not exist on the base (new on head)


@contextlib.contextmanager
def worktree(git: Git, commit: str) -> Iterator[Path]:
    """A detached checkout of `commit` in a temporary folder, removed afterwards."""
    with tempfile.TemporaryDirectory(prefix="evalkit-base-") as tmp:
        path = Path(tmp) / "base"
        git("worktree", "add", "--detach", "--quiet", str(path), commit)
        try:
            yield path
        finally:
            git("worktree", "remove", "--force", str(path), check=False)
            git("worktree", "prune", check=False)


def run_base(
    ref: str,
    paths: Sequence[str | Path],
    spec: Mapping[str, Any],
    out: Path,
    *,
    env: Mapping[str, str] | None = None,
    git: Git | None = None,
    cwd: Path | None = None,
) -> BaseRun:
    """Run `paths` as they are on `ref`, with `spec` (see `base_spec`), into `out`. Relative paths
    (`paths`, `out`) are the user's: resolved against `cwd` here, before the child runs elsewhere."""
    cwd = (cwd or Path.cwd()).resolve()
    out = cwd / out  # the child's working folder is inside the temporary worktree, deleted after it
    git = git or Git.of(cwd)
    commit = git.commit(ref)
    if commit is None:
        raise UsageError(f"--baseline {ref}: no such commit in {git.root} (fetch it first)")
    rels = [_relative(Path(p), cwd, git.root) for p in paths]
    with worktree(git, commit) as tree:
        present = [r for r in rels if (tree / r).exists()]
        missing = [r for r in rels if not (tree / r).exists()]
        out.parent.mkdir(parents=True, exist_ok=True)
        out.unlink(missing_ok=True)
        if not present:
            report = Report(verdict="skipped")
            report.save(out)
            return BaseRun(ref, commit, report, out, missing)
        where = tree / cwd.relative_to(git.root) if cwd.is_relative_to(git.root) else tree
        child = dict(spec, paths=[str(tree / r) for r in present], out=str(out))
        done = subprocess.run(
            _CHILD,
            cwd=where if where.is_dir() else tree,
            input=json.dumps(child),
            capture_output=True,
            text=True,
            env=dict(os.environ if env is None else env),
        )
        if done.returncode not in (ExitCode.PASSED, ExitCode.GATE_FAILED) or not out.exists():
            raise UsageError(f"the run on {ref} ({commit[:12]}) failed: {_failure(done, out)}")
    return BaseRun(ref, commit, load_results(out), out, missing)


def base_spec(
    options: RunOptions,
    *,
    concurrency: int,
    cache_dir: str | Path | None,
    no_cache: bool,
    shard: str | None = None,
    api_key: str | None = None,
) -> dict[str, Any]:
    """What the base side needs of the head's run: its options, and the same response cache."""
    return {
        "options": {
            "target": options.target,
            "cases": list(options.cases),
            "model": options.model,
            "judge_model": options.judge_model,
            "repeat": options.repeat,
            "rubric_threshold": options.rubric_threshold,
            "agreement_threshold": options.agreement_threshold,
            "max_cost": options.max_cost,
        },  # the base run has a budget of its own, the same
        "concurrency": concurrency,
        "no_cache": no_cache,
        "shard": shard,
        "api_key": api_key,
        "cache_dir": None if no_cache else str(Path(cache_dir or default_cache_dir()).resolve()),
    }


def child_main() -> int:
    """The base side's process: read the spec from stdin, run, save. Exit 0/1 verdict, 2 error."""
    from evalkit._runtime.redaction import labelled, protect
    from evalkit.engine import anthropic_provider, load_suites, make_client, run_and_save
    from evalkit.errors import EvalkitError
    from evalkit.run.sharding import parse_shard

    protect(labelled(os.environ))  # as the `evalkit` command that started this process does
    spec = json.loads(sys.stdin.read())
    from evalkit._runtime.out_of_reach import keep_out_of_reach
    from evalkit.llm.cache import seal_from

    credentials = {**os.environ, **({"ANTHROPIC_API_KEY": spec["api_key"]} if spec.get("api_key") else {})}
    keep_out_of_reach(credentials)  # as the `evalkit` command does: the key out of its workers' reach
    seal_from(credentials)
    out = Path(spec["out"])
    try:
        suites = load_suites(spec["paths"])
        if spec.get("api_key"):
            from evalkit.llm.providers.anthropic import AnthropicProvider  # only the child that runs needs it

            provider: Provider = AnthropicProvider(api_key=spec["api_key"], max_connections=max(spec["concurrency"], 8))
        else:
            provider = anthropic_provider(max_connections=max(spec["concurrency"], 8))
        client = make_client(
            provider,
            concurrency=spec["concurrency"],
            cache_dir=spec.get("cache_dir"),
            no_cache=spec.get("no_cache", False),
        )
        options = RunOptions(
            **spec["options"],
            jsonl_path=out.with_suffix(out.suffix + "l"),
            shard=parse_shard(spec["shard"]) if spec.get("shard") else None,
        )
        report = run_and_save(suites, client, options, out)
    except EvalkitError as exc:
        print("evalkit: " + " ".join(str(exc).split()), file=sys.stderr)  # one line: the parent quotes it
        return ExitCode.USAGE
    return passed_or_failed(report.verdict not in ("pass", "skipped"))


def _relative(path: Path, cwd: Path, root: Path) -> str:
    full = (cwd / path).resolve()
    if not full.is_relative_to(root):
        raise UsageError(f"--baseline: {path} is outside the repository {root}")
    return full.relative_to(root).as_posix()


def _failure(done: subprocess.CompletedProcess[str], out: Path) -> str:
    """Why the base side's process gave no results: its own last words, else what it did."""
    said = _last_line(done.stderr) or _last_line(done.stdout)
    if done.returncode < 0:
        what = f"killed by signal {-done.returncode}"
    elif done.returncode in (ExitCode.PASSED, ExitCode.GATE_FAILED):
        what = f"exit code {done.returncode}, but no results at {out}"
    else:
        what = f"exit code {done.returncode}"
    return f"{said} ({what})" if said else what


def _last_line(text: str) -> str:
    lines = [line for line in (text or "").strip().splitlines() if line.strip()]
    return lines[-1].strip() if lines else ""
