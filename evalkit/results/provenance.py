"""Where a Report came from: evalkit's version, the workspace's git commit, a hash of every file
that shapes the requests (suite files, fixture lists, prompt templates), the options and the
models called. Two reports are comparable when this says what differed between them."""

from __future__ import annotations

import hashlib
import subprocess
from importlib import metadata
from pathlib import Path
from typing import Any, Iterable

from pydantic import BaseModel, Field

# Templates a callable target may render itself (pace_ai renders prompts/*.j2): the loader cannot
# know which, so every template file under the suite's folder is hashed.
TEMPLATE_SUFFIXES = (".j2", ".jinja", ".jinja2")
MAX_HASHED_FILES = 500


class Provenance(BaseModel):
    evalkit_version: str = ""
    git_commit: str | None = None
    git_dirty: bool | None = None
    files: dict[str, str] = Field(default_factory=dict, description="Path to sha256 of the files a run rendered.")
    options: dict[str, Any] = Field(default_factory=dict)
    models_called: list[str] = Field(default_factory=list)


def evalkit_version() -> str:
    try:
        return metadata.version("evalkit")
    except metadata.PackageNotFoundError:
        return "unknown"


def git_state(where: Path) -> tuple[str | None, bool | None]:
    """(commit, dirty) of the git work tree holding `where`; (None, None) outside one."""

    def git(*args: str) -> str | None:
        try:
            done = subprocess.run(["git", *args], cwd=where, capture_output=True, text=True, timeout=10)
        except (OSError, subprocess.SubprocessError):
            return None
        return done.stdout if done.returncode == 0 else None

    commit = git("rev-parse", "HEAD")
    if commit is None:
        return None, None
    status = git("status", "--porcelain", "--untracked-files=no")
    return commit.strip(), (bool(status.strip()) if status is not None else None)


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def suite_files(suites: Iterable[Any]) -> list[Path]:
    """The suite files, the files their cases come from, and the prompt templates beside them."""
    found: dict[Path, None] = {}
    for suite in suites:
        found[Path(suite.path)] = None
        # The cases' files as given first: a suite of 20,000 cases names a handful of files.
        for file in dict.fromkeys(case.file for case in suite.cases if case.file):
            found[Path(file)] = None
        target = suite.target
        if target is not None and target.template_name:
            found[Path(suite.dir) / target.template_name] = None
        for path in sorted(Path(suite.dir).rglob("*")):
            if path.suffix in TEMPLATE_SUFFIXES and ".venv" not in path.parts:
                found[path] = None
    return [p for p in found if p.is_file()][:MAX_HASHED_FILES]


def _label(path: Path, root: Path | None) -> str:
    path = path.resolve()
    if root is not None:
        try:
            return path.relative_to(root).as_posix()
        except ValueError:
            pass
    return path.as_posix()


def collect(suites: list[Any], options: dict[str, Any], models_called: Iterable[str]) -> Provenance:
    """Provenance of a run of `suites` made now, from the current working directory's git state."""
    first = Path(suites[0].path).resolve().parent if suites else Path.cwd()
    commit, dirty = git_state(first)
    # Relative to the repository (or to the first suite's folder outside one), so the same file
    # in two worktrees of one repository has one name.
    root = _git_root(first) or first
    files = {_label(p, root): sha256(p) for p in suite_files(suites)}
    return Provenance(
        evalkit_version=evalkit_version(),
        git_commit=commit,
        git_dirty=dirty,
        files=files,
        options={k: v for k, v in options.items() if v not in (None, [], {})},
        models_called=sorted(models_called),
    )


def _git_root(where: Path) -> Path | None:
    try:
        done = subprocess.run(
            ["git", "rev-parse", "--show-toplevel"], cwd=where, capture_output=True, text=True, timeout=10
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return Path(done.stdout.strip()).resolve() if done.returncode == 0 else None
