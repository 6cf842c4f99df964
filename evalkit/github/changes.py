"""Which files a run changed, and which suites watch them; unknown means every suite."""

from __future__ import annotations

import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from evalkit.errors import UsageError
from evalkit.github.api import GitHubAPI, GitHubAPIError
from evalkit.github.event import PULL_REQUEST_EVENTS, ZERO_SHA, Event
from evalkit.github.globs import first_match

PR_FILES_LIMIT = 3000  # GitHub lists at most this many files of a pull request


@dataclass(frozen=True)
class ChangedFiles:
    """Changed paths, or None when unknown (then every suite runs), and why."""

    paths: list[str] | None
    reason: str


def changed_files(event: Event, api: GitHubAPI | None, workspace: str = ".") -> ChangedFiles:
    """The files this event changed, from the PR files API or `git diff` of a push."""
    if event.name in PULL_REQUEST_EVENTS and event.pr_number is not None:
        return _pull_request_files(event, api)
    if event.name == "push":
        return _push_files(event, workspace)
    return ChangedFiles(None, f"{event.name or 'unknown'} event: running every suite")


def select_suites(
    watch_globs_by_suite: Mapping[str, Sequence[str]], changed: ChangedFiles
) -> tuple[list[str], dict[str, str]]:
    """Suites whose watch globs match a changed path (all when unknown), with a reason each."""
    selected: list[str] = []
    reasons: dict[str, str] = {}
    for suite, globs in watch_globs_by_suite.items():
        reason = _why_selected(list(globs), changed)
        if reason is None:
            reasons[suite] = "skipped: no changed file matches its watch globs"
        else:
            selected.append(suite)
            reasons[suite] = reason
    return selected, reasons


def _why_selected(globs: list[str], changed: ChangedFiles) -> str | None:
    if changed.paths is None:
        return f"changed files unknown ({changed.reason})"
    if not globs:
        return "no watch globs: always runs"
    try:
        hit = first_match(globs, changed.paths)
    except ValueError as exc:
        return f"runs because a watch glob is invalid: {exc}"
    return f"{hit[0]} matches {hit[1]}" if hit else None


def changed_since(workspace: str, ref: str) -> ChangedFiles:
    """The files changed between `ref` and the working tree (`git diff --name-only REF`), as a push
    lists them (both paths of a rename). A `ref` that is not a commit here is a one-line UsageError."""
    if ref.startswith("-") or _git(workspace, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}") is None:
        raise UsageError(f"--changed-since: {ref!r} is not a commit of the git repository at {workspace}")
    out = _git(workspace, "diff", "--name-only", "--no-renames", "-z", ref, "--")
    if out is None:
        raise UsageError(f"--changed-since: `git diff --name-only {ref}` failed in {workspace}")
    paths = [p for p in out.split("\0") if p]
    return ChangedFiles(paths, f"{len(paths)} file(s) changed since {ref}")


def git_toplevel(folder: str) -> str | None:
    """The top folder of the git work tree holding `folder`, or None outside one."""
    out = _git(folder, "rev-parse", "--show-toplevel")
    return out.strip() if out and out.strip() else None


def _pull_request_files(event: Event, api: GitHubAPI | None) -> ChangedFiles:
    if api is None:
        return ChangedFiles(None, "no GitHub token to list the PR's files: running every suite")
    path = f"/repos/{event.owner}/{event.repo}/pulls/{event.pr_number}/files"
    paths: dict[str, None] = {}  # ordered set
    count = 0
    try:
        for entry in api.paginate(path, {"per_page": 100}):
            count += 1
            # A rename touches both paths: a suite watching the old location must run too.
            for key in ("previous_filename", "filename"):
                name = entry.get(key)
                if isinstance(name, str):
                    paths[name] = None
    except GitHubAPIError as exc:
        return ChangedFiles(None, f"could not list the PR's files ({exc.message}): running every suite")
    if count >= PR_FILES_LIMIT:
        return ChangedFiles(
            None, f"the PR changes {PR_FILES_LIMIT:,}+ files, more than GitHub lists: running every suite"
        )
    return ChangedFiles(list(paths), f"{count} file(s) changed in PR #{event.pr_number}")


def _push_files(event: Event, workspace: str) -> ChangedFiles:
    after = event.after
    if not after or after == ZERO_SHA:
        return ChangedFiles(None, "push without a new commit: running every suite")
    before = event.before
    if not before or before == ZERO_SHA or not _is_commit(workspace, before):
        before, why = _merge_base(event, workspace, after)
        if before is None:
            return ChangedFiles(None, why)
    else:
        why = f"diff {before[:12]}..{after[:12]}"
    # -z: raw names (no quoting of unusual characters); --no-renames: both paths of a rename.
    out = _git(workspace, "diff", "--name-only", "--no-renames", "-z", f"{before}..{after}")
    if out is None:
        return ChangedFiles(None, f"git diff {before[:12]}..{after[:12]} failed: running every suite")
    return ChangedFiles([p for p in out.split("\0") if p], why)


def _merge_base(event: Event, workspace: str, after: str) -> tuple[str | None, str]:
    if not event.default_branch:
        return None, "push base unknown and no default branch in the event: running every suite"
    ref = f"origin/{event.default_branch}"
    base = _git(workspace, "merge-base", ref, after)
    if base is None or not base.strip():
        return None, (
            f"push base unknown and no merge-base with {ref} "
            "(shallow checkout? use fetch-depth: 0): running every suite"
        )
    return base.strip(), f"diff against merge-base with {ref}"


def _is_commit(workspace: str, sha: str) -> bool:
    return _git(workspace, "cat-file", "-e", f"{sha}^{{commit}}") is not None


def _git(workspace: str, *args: str) -> str | None:
    try:
        proc = subprocess.run(["git", *args], cwd=workspace, capture_output=True, text=True, timeout=60, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return proc.stdout if proc.returncode == 0 else None
