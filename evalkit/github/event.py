"""The runner's environment and event payload, read into one frozen `Event`."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from evalkit.errors import UsageError

PULL_REQUEST_EVENTS = ("pull_request", "pull_request_target")
ZERO_SHA = "0" * 40


@dataclass(frozen=True)
class Event:
    """What the workflow run is about: repository, PR or push range, inputs, run URL."""

    name: str
    owner: str
    repo: str
    pr_number: int | None = None
    is_fork: bool = False
    before: str | None = None
    after: str | None = None
    sha: str | None = None
    base_ref: str | None = None
    base_sha: str | None = None  # the pull request's base commit (what the PR is compared with)
    # The commit a check run belongs to: a PR's head (GITHUB_SHA is the test merge commit there,
    # which the PR never shows), a push's last commit, else the run's commit.
    head_sha: str | None = None
    default_branch: str | None = None
    inputs: Mapping[str, Any] = field(default_factory=dict, hash=False)
    run_url: str | None = None
    payload: Mapping[str, Any] = field(default_factory=dict, compare=False, hash=False, repr=False)

    @property
    def full_name(self) -> str:
        """`owner/repo`."""
        return f"{self.owner}/{self.repo}"

    @property
    def is_pull_request(self) -> bool:
        """True for pull_request and pull_request_target events with a PR number."""
        return self.name in PULL_REQUEST_EVENTS and self.pr_number is not None


def load_event(environ: Mapping[str, str] | None = None) -> Event:
    """Read `GITHUB_*` variables and the event JSON at `GITHUB_EVENT_PATH`."""
    env = os.environ if environ is None else environ
    repository = env.get("GITHUB_REPOSITORY", "")
    if "/" not in repository:
        raise UsageError("GITHUB_REPOSITORY is not set to owner/repo: run inside GitHub Actions or set it")
    owner, repo = repository.split("/", 1)
    payload = _read_payload(env.get("GITHUB_EVENT_PATH"))
    name = env.get("GITHUB_EVENT_NAME", "")
    pr = payload.get("pull_request") if name in PULL_REQUEST_EVENTS else None
    pr = pr if isinstance(pr, dict) else None
    server = env.get("GITHUB_SERVER_URL", "https://github.com").rstrip("/")
    run_id = env.get("GITHUB_RUN_ID")
    inputs = payload.get("inputs") if name == "workflow_dispatch" else None
    return Event(
        name=name,
        owner=owner,
        repo=repo,
        pr_number=_pr_number(payload, pr),
        is_fork=_is_fork(pr),
        before=payload.get("before") if name == "push" else None,
        after=(payload.get("after") or env.get("GITHUB_SHA")) if name == "push" else None,
        sha=env.get("GITHUB_SHA") or None,
        base_ref=env.get("GITHUB_BASE_REF") or _dig(pr, "base", "ref"),
        base_sha=_dig(pr, "base", "sha"),
        head_sha=_dig(pr, "head", "sha") if pr is not None else _push_head(payload, name) or env.get("GITHUB_SHA"),
        default_branch=_dig(payload, "repository", "default_branch"),
        inputs=MappingProxyType(dict(inputs or {})),
        run_url=f"{server}/{repository}/actions/runs/{run_id}" if run_id else None,
        payload=MappingProxyType(payload),
    )


def _push_head(payload: Mapping[str, Any], name: str) -> str | None:
    after = payload.get("after") if name == "push" else None
    return after if isinstance(after, str) and after and after != ZERO_SHA else None


def _read_payload(path: str | None) -> dict[str, Any]:
    if not path:
        return {}
    try:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        raise UsageError(f"GITHUB_EVENT_PATH={path} is not a readable JSON file: {exc}") from exc
    return data if isinstance(data, dict) else {}


def _pr_number(payload: Mapping[str, Any], pr: Mapping[str, Any] | None) -> int | None:
    if pr is None:
        return None
    number = pr.get("number", payload.get("number"))
    return number if isinstance(number, int) else None


def _is_fork(pr: Mapping[str, Any] | None) -> bool:
    if pr is None:
        return False
    head = _dig(pr, "head", "repo", "full_name")
    base = _dig(pr, "base", "repo", "full_name")
    # A deleted fork leaves head.repo null: treat it as a fork (read-only token, no secrets).
    return head is None or head != base


def _dig(data: Any, *keys: str) -> Any:
    for key in keys:
        if not isinstance(data, Mapping):
            return None
        data = data.get(key)
    return data
