"""Decisions taken before any suite is loaded: what a missing API key means on this run, and
whether this run would hand a fork's code the repository's secrets."""

from __future__ import annotations

import subprocess
from collections.abc import Mapping
from pathlib import Path

from evalkit.github.event import Event

DEPENDABOT = "dependabot[bot]"


def is_dependabot(event: Event, env: Mapping[str, str]) -> bool:
    """Dependabot's runs get no Actions secrets (only Dependabot secrets)."""
    pr_user = event.payload.get("pull_request", {}).get("user", {}) if event.is_pull_request else {}
    return DEPENDABOT in (env.get("GITHUB_ACTOR", ""), pr_user.get("login") if isinstance(pr_user, Mapping) else "")


def missing_key_action(on_missing_key: str | None, event: Event, env: Mapping[str, str]) -> str:
    """ "skip" or "fail" without an API key: the input, else skip where GitHub withholds secrets
    (fork and Dependabot pull requests), fail where a missing key is a misconfiguration."""
    if on_missing_key:
        return on_missing_key
    return "skip" if event.is_fork or is_dependabot(event, env) else "fail"


def fork_head_refusal(event: Event, workspace: Path, allowed: bool) -> str | None:
    """Why this run must not go on, or None: under `pull_request_target` the job has the base
    repository's secrets and a write token, so running a fork's checked-out code is a "pwn
    request". The checkout is the fork's head when HEAD is the PR's head commit, or unknown."""
    if allowed or event.name != "pull_request_target" or not event.is_fork:
        return None
    head_sha = ((event.payload.get("pull_request") or {}).get("head") or {}).get("sha")
    checked_out = _head(workspace)
    if checked_out is not None and checked_out != head_sha:
        return None  # the base branch's code (pull_request_target's default checkout): safe
    what = "the pull request's head" if checked_out else "code that may be the pull request's head"
    return (
        f"refusing to run: this pull_request_target run from a fork has checked out {what}, and it would "
        "run that code with this repository's secrets and a write token. Run the evals on `pull_request` "
        "(forks get no secrets, so they are skipped), or set `allow_pull_request_target_fork: true` "
        "if you have reviewed that code."
    )


def _head(workspace: Path) -> str | None:
    try:
        proc = subprocess.run(
            ["git", "-C", str(workspace), "rev-parse", "HEAD"], capture_output=True, text=True, timeout=30, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return proc.stdout.strip() if proc.returncode == 0 and proc.stdout.strip() else None
