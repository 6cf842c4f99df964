"""One completed check run on a commit: a conclusion, a title, a markdown summary and annotations
on files and lines, within the limits GitHub's REST API sets (`POST /repos/{o}/{r}/check-runs`).

GitHub takes at most 50 annotations a request and appends those of each update
(`PATCH .../check-runs/{id}`) to the ones the run has: the first 50 go with the run, the rest in
updates of 50. The summary holds at most 65,535 characters; an annotation's title 255, its message
and raw details 64 KB. Creating one needs the job's `permissions: checks: write` (a fork's read-only
token, a classic personal access token and a job without it get 403); a failure never raises: the caller
gets the reason and warns."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from evalkit.github.api import GitHubAPI, GitHubAPIError
from evalkit.render.sanitize import truncate_markdown

MAX_SUMMARY_CHARS = 65_535
MAX_ANNOTATIONS_PER_REQUEST = 50
MAX_ANNOTATION_TITLE_CHARS = 255
MAX_ANNOTATION_BYTES = 64 * 1024  # of a message or raw details ("64 KB" in GitHub's schema)
MAX_TITLE_CHARS = 1_000  # GitHub documents no limit on output.title; one line is all a title needs
SUMMARY_CUT_NOTE = (
    "*… cut to fit GitHub's 65,535 characters of a check run's summary; the sticky comment, "
    "the job summary and `results.json` have the whole report.*"
)
Conclusion = Literal["success", "failure", "neutral", "cancelled", "skipped", "timed_out", "action_required"]
Level = Literal["notice", "warning", "failure"]


@dataclass(frozen=True)
class Annotation:
    """A note on lines of a file (a path relative to the repository root); fitted to GitHub's
    limits when sent."""

    path: str
    start_line: int
    level: Level
    message: str
    title: str = ""
    raw_details: str = ""
    end_line: int | None = None

    def payload(self) -> dict[str, Any]:
        """The annotation as the API takes it."""
        start = max(1, self.start_line)
        data: dict[str, Any] = {
            "path": self.path,
            "start_line": start,
            "end_line": max(start, self.end_line or start),
            "annotation_level": self.level,
            "message": fit_bytes(self.message or self.title or "-", MAX_ANNOTATION_BYTES),
        }
        if self.title:
            data["title"] = fit_chars(" ".join(self.title.split()), MAX_ANNOTATION_TITLE_CHARS)
        if self.raw_details:
            data["raw_details"] = fit_bytes(self.raw_details, MAX_ANNOTATION_BYTES)
        return data


@dataclass(frozen=True)
class CheckRunResult:
    """What `create_check_run` did: "created" (all annotations sent), "partial" (created, some
    annotations lost: `reason`), or "failed" (no check run: `reason`, and `status` GitHub's answer)."""

    action: Literal["created", "partial", "failed"]
    id: int | None = None
    url: str | None = None
    reason: str = ""
    status: int = 0
    annotations: int = 0  # how many GitHub took


def create_check_run(
    api: GitHubAPI,
    owner: str,
    repo: str,
    *,
    name: str,
    head_sha: str,
    conclusion: Conclusion,
    title: str,
    summary: str,
    annotations: Sequence[Annotation] = (),
    details_url: str | None = None,
) -> CheckRunResult:
    """Create a completed check run on `head_sha` with the first 50 annotations, then send the rest in
    updates of 50 (the verdict is set by the first request, so a failed update loses annotations only)."""
    output = {"title": fit_chars(" ".join(title.split()) or name, MAX_TITLE_CHARS), "summary": fit_summary(summary)}
    batches = [
        [a.payload() for a in annotations[i : i + MAX_ANNOTATIONS_PER_REQUEST]]
        for i in range(0, len(annotations), MAX_ANNOTATIONS_PER_REQUEST)
    ]
    body: dict[str, Any] = {
        "name": name,
        "head_sha": head_sha,
        "status": "completed",
        "conclusion": conclusion,
        "output": {**output, **({"annotations": batches[0]} if batches else {})},
    }
    if details_url:
        body["details_url"] = details_url
    base = f"/repos/{owner}/{repo}/check-runs"
    try:
        created = api.post(base, body)
    except GitHubAPIError as exc:
        return CheckRunResult("failed", reason=failure_reason(exc), status=exc.status)
    run_id = created.get("id") if isinstance(created, dict) else None
    url = created.get("html_url") if isinstance(created, dict) else None
    sent = len(batches[0]) if batches else 0
    for batch in batches[1:]:
        try:
            api.patch(f"{base}/{run_id}", {"output": {**output, "annotations": batch}})
        except GitHubAPIError as exc:
            return CheckRunResult(
                "partial",
                run_id,
                url,
                f"{len(annotations) - sent} of {len(annotations)} annotations not added: {exc}",
                exc.status,
                sent,
            )
        sent += len(batch)
    return CheckRunResult("created", run_id, url, annotations=sent)


def fit_summary(summary: str, limit: int = MAX_SUMMARY_CHARS) -> str:
    """`summary` within `limit` characters: cut at a line (an open code fence closed), with a note
    saying where the rest is."""
    return truncate_markdown(summary, limit, SUMMARY_CUT_NOTE)


def fit_chars(text: str, limit: int) -> str:
    """`text` within `limit` characters, ending in "…" when cut."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def fit_bytes(text: str, limit: int) -> str:
    """`text` within `limit` bytes of UTF-8, ending in "…" when cut (never half a character)."""
    raw = text.encode("utf-8")
    if len(raw) <= limit:
        return text
    return raw[: limit - len("…".encode())].decode("utf-8", errors="ignore") + "…"


def failure_reason(exc: GitHubAPIError) -> str:
    """Why no check run was made, and what to do about it."""
    if exc.status == 403:
        return (
            "the token cannot create check runs (403): add `permissions: checks: write` to the job "
            "(fork pull requests get a read-only token; a classic personal access token cannot create them)"
        )
    return f"could not create the check run: {exc}"
