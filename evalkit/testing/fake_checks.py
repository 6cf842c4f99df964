"""The check-runs endpoints of the loopback GitHub fake (`evalkit.testing.fake_github`): create, update
and list annotations, refusing what GitHub's published description refuses.

The rules, from GitHub's OpenAPI description (@octokit/openapi 23.0.2, `checks/create`,
`checks/update`, `checks/list-annotations`): `name` and `head_sha` are required; `status` is one of
queued, in_progress, completed; a `conclusion` is required with `status: completed` or a
`completed_at`, and `stale` is GitHub's own; `output` needs `title` and `summary`, a summary or text
holds at most 65,535 characters; at most 50 annotations a request, each with `path`, `start_line`
(from 1), `end_line`, `annotation_level` (notice, warning, failure) and `message`; a title of at
most 255 characters, a message or raw details of at most 64 KB; columns only on one line; at most
three actions. Each update appends its annotations to the run's. A refusal is 422, as GitHub answers
a request its schema does not allow."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

STATUSES = ("queued", "in_progress", "completed")
CONCLUSIONS = ("action_required", "cancelled", "failure", "neutral", "success", "skipped", "timed_out")
LEVELS = ("notice", "warning", "failure")
MAX_TEXT_CHARS = 65_535
MAX_ANNOTATIONS = 50
MAX_TITLE_CHARS = 255
MAX_DETAIL_BYTES = 64 * 1024
MAX_ACTIONS = 3
_DATE_TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)\Z")
_STAMP = "2025-01-01T00:00:00Z"


def request_problems(body: Any, *, create: bool) -> list[str]:
    """What GitHub would refuse in a create (`create`) or update request's body; [] when none."""
    if not isinstance(body, Mapping):
        return ["the body is not a JSON object"]
    problems: list[str] = []
    if create:
        problems += [f"`{key}` is required" for key in ("name", "head_sha") if key not in body]
    for key in ("name", "head_sha", "details_url", "external_id"):
        if key in body and not isinstance(body[key], str):
            problems.append(f"`{key}` is not a string")
    if "name" in body and isinstance(body["name"], str) and not body["name"].strip():
        problems.append("`name` is empty")
    status, conclusion = body.get("status"), body.get("conclusion")
    if "status" in body and status not in STATUSES:
        problems.append(f"`status` {status!r} is not one of {', '.join(STATUSES)}")
    if conclusion == "stale":
        problems.append("`conclusion` stale can only be set by GitHub")
    elif "conclusion" in body and conclusion not in CONCLUSIONS:
        problems.append(f"`conclusion` {conclusion!r} is not one of {', '.join(CONCLUSIONS)}")
    if (status == "completed" or "completed_at" in body) and "conclusion" not in body:
        problems.append("`conclusion` is required with `status: completed` or `completed_at`")
    for key in ("started_at", "completed_at"):
        if key in body and not (isinstance(body[key], str) and _DATE_TIME.match(body[key])):
            problems.append(f"`{key}` is not an ISO 8601 timestamp")
    if "output" in body:
        problems += _output_problems(body["output"])
    if "actions" in body:
        problems += _actions_problems(body["actions"])
    return problems


def _output_problems(output: Any) -> list[str]:
    if not isinstance(output, Mapping):
        return ["`output` is not an object"]
    problems = [f"`output.{key}` is required" for key in ("title", "summary") if key not in output]
    for key in ("title", "summary", "text"):
        if key in output and not isinstance(output[key], str):
            problems.append(f"`output.{key}` is not a string")
        elif key != "title" and key in output and len(output[key]) > MAX_TEXT_CHARS:
            problems.append(f"`output.{key}` is longer than {MAX_TEXT_CHARS} characters")
    notes = output.get("annotations", [])
    if not isinstance(notes, list):
        return problems + ["`output.annotations` is not an array"]
    if len(notes) > MAX_ANNOTATIONS:
        problems.append(f"`output.annotations` has {len(notes)} items; at most {MAX_ANNOTATIONS} a request")
    for i, note in enumerate(notes):
        problems += [f"`output.annotations[{i}]`: {p}" for p in _annotation_problems(note)]
    for i, image in enumerate(output.get("images") or []):
        if not isinstance(image, Mapping) or not all(isinstance(image.get(k), str) for k in ("alt", "image_url")):
            problems.append(f"`output.images[{i}]` needs `alt` and `image_url`")
    return problems


def _annotation_problems(note: Any) -> list[str]:
    if not isinstance(note, Mapping):
        return ["not an object"]
    problems = [
        f"`{key}` is required"
        for key in ("path", "start_line", "end_line", "annotation_level", "message")
        if key not in note
    ]
    for key in ("path", "message", "title", "raw_details"):
        if key in note and not isinstance(note[key], str):
            problems.append(f"`{key}` is not a string")
    for key in ("start_line", "end_line", "start_column", "end_column"):
        if key in note and not _integer(note[key]):
            problems.append(f"`{key}` is not an integer")
    if _integer(note.get("start_line")) and note["start_line"] < 1:
        problems.append("`start_line` starts at 1")
    if "annotation_level" in note and note["annotation_level"] not in LEVELS:
        problems.append(f"`annotation_level` {note['annotation_level']!r} is not one of {', '.join(LEVELS)}")
    if isinstance(note.get("title"), str) and len(note["title"]) > MAX_TITLE_CHARS:
        problems.append(f"`title` is longer than {MAX_TITLE_CHARS} characters")
    for key in ("message", "raw_details"):
        if isinstance(note.get(key), str) and len(note[key].encode("utf-8")) > MAX_DETAIL_BYTES:
            problems.append(f"`{key}` is larger than 64 KB")
    if ("start_column" in note or "end_column" in note) and note.get("start_line") != note.get("end_line"):
        problems.append("`start_column` and `end_column` only on one line (start_line == end_line)")
    return problems


def _actions_problems(actions: Any) -> list[str]:
    if not isinstance(actions, list):
        return ["`actions` is not an array"]
    problems = [f"`actions` has {len(actions)} items; at most {MAX_ACTIONS}"] if len(actions) > MAX_ACTIONS else []
    limits = {"label": 20, "description": 40, "identifier": 20}
    for i, action in enumerate(actions):
        if not isinstance(action, Mapping) or not all(
            isinstance(action.get(k), str) and len(action[k]) <= n for k, n in limits.items()
        ):
            problems.append(f"`actions[{i}]` needs a label (20), description (40) and identifier (20)")
    return problems


def _integer(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


class CheckRuns:
    """The check runs the fake holds, with their annotations (not thread-safe: the fake locks)."""

    def __init__(self, app_owner: Mapping[str, Any]):
        self.app = {**_ACTIONS_APP, "owner": dict(app_owner)}  # the account that owns the GitHub Actions app
        self.runs: dict[int, dict[str, Any]] = {}
        self.notes: dict[int, list[dict[str, Any]]] = {}

    def create(self, run_id: int, body: Mapping[str, Any], *, owner: str, repo: str, api: str) -> dict[str, Any]:
        """Store a new run from a valid create request; its JSON as GitHub answers it."""
        self.runs[run_id] = {
            "id": run_id,
            "owner": owner,
            "repo": repo,
            "name": body["name"],
            "head_sha": body["head_sha"],
            "status": "queued",
            "conclusion": None,
            "details_url": None,
            "external_id": None,
            "started_at": _STAMP,
            "completed_at": None,
            "output": {"title": None, "summary": None, "text": None},
            "api": api,
        }
        self.notes[run_id] = []
        return self.update(run_id, body)

    def update(self, run_id: int, body: Mapping[str, Any]) -> dict[str, Any]:
        """Apply a valid create or update request (annotations appended); the run's JSON."""
        run = self.runs[run_id]
        for key in ("name", "details_url", "external_id", "started_at", "status"):
            if key in body:
                run[key] = body[key]
        if "conclusion" in body:  # GitHub: a conclusion completes the run
            run.update(conclusion=body["conclusion"], status="completed", completed_at=body.get("completed_at", _STAMP))
        output = body.get("output")
        if isinstance(output, Mapping):
            run["output"].update({k: output[k] for k in ("title", "summary", "text") if k in output})
            self.notes[run_id] += [dict(note) for note in output.get("annotations", [])]
        return self.view(run_id)

    def view(self, run_id: int) -> dict[str, Any]:
        """The run as the API shows it."""
        run = self.runs[run_id]
        api, slug = run["api"], f"{run['owner']}/{run['repo']}"
        return {
            "id": run_id,
            "node_id": f"CR_kwDO{run_id:08d}",
            "head_sha": run["head_sha"],
            "name": run["name"],
            "external_id": run["external_id"],
            "url": f"{api}/repos/{slug}/check-runs/{run_id}",
            "html_url": f"https://github.com/{slug}/runs/{run_id}",
            "details_url": run["details_url"],
            "status": run["status"],
            "conclusion": run["conclusion"],
            "started_at": run["started_at"],
            "completed_at": run["completed_at"],
            "output": {
                **run["output"],
                "annotations_count": len(self.notes[run_id]),
                "annotations_url": f"{api}/repos/{slug}/check-runs/{run_id}/annotations",
            },
            "check_suite": {"id": 5000 + run_id},
            "app": self.app,
            "pull_requests": [],
        }

    def annotations(self, run_id: int) -> list[dict[str, Any]]:
        """The run's annotations as `GET .../annotations` lists them."""
        run = self.runs[run_id]
        return [
            {
                "path": n["path"],
                "start_line": n["start_line"],
                "end_line": n["end_line"],
                "start_column": n.get("start_column"),
                "end_column": n.get("end_column"),
                "annotation_level": n["annotation_level"],
                "title": n.get("title"),
                "message": n["message"],
                "raw_details": n.get("raw_details"),
                "blob_href": f"https://github.com/{run['owner']}/{run['repo']}/blob/{run['head_sha']}/{n['path']}",
            }
            for n in self.notes[run_id]
        ]


# The GitHub Actions app, which owns the check runs a job's GITHUB_TOKEN creates.
_ACTIONS_APP: dict[str, Any] = {
    "id": 15368,
    "slug": "github-actions",
    "node_id": "MDM6QXBwMTUzNjg=",
    "name": "GitHub Actions",
    "description": "Automate your workflow from idea to production",
    "external_url": "https://help.github.com/en/actions",
    "html_url": "https://github.com/apps/github-actions",
    "created_at": "2018-07-30T09:30:17Z",
    "updated_at": "2019-12-10T19:04:12Z",
    "permissions": {"checks": "write", "contents": "write", "metadata": "read"},
    "events": ["check_run", "check_suite"],
}
