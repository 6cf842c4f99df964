"""One sticky PR comment per marker: found on any page, edited in place, never duplicated."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from evalkit.github.api import GitHubAPI, GitHubAPIError

BOT_LOGIN = "github-actions[bot]"


@dataclass(frozen=True)
class CommentResult:
    """What `upsert_comment` did; on "fallback" write the job summary instead."""

    action: Literal["created", "updated", "fallback"]
    id: int | None = None
    url: str | None = None
    reason: str = ""


def find_sticky(
    comments: Iterable[Mapping[str, Any]], mark: str, author: str | None = BOT_LOGIN
) -> Mapping[str, Any] | None:
    """The newest comment that starts with `mark` and is ours (login `author`, or any bot if None)."""
    ours = [c for c in comments if _is_ours(c, mark, author)]
    return max(ours, key=lambda c: (str(c.get("created_at", "")), int(c.get("id", 0))), default=None)


def upsert_comment(
    api: GitHubAPI,
    owner: str,
    repo: str,
    number: int,
    body: str,
    *,
    marker: str,
    author: str | None = BOT_LOGIN,
) -> CommentResult:
    """Edit our marked comment on PR `number`, or create it; API failures return "fallback".

    `body` is the finished comment (`evalkit.render.comment` adds the marker and cuts it to
    GitHub's limit); a body that does not start with `marker` is refused."""
    if not body.startswith(marker):
        raise ValueError("the comment body must start with its marker (render it with evalkit.render.comment)")
    text = body
    base = f"/repos/{owner}/{repo}/issues"
    try:
        existing = find_sticky(api.paginate(f"{base}/{number}/comments", {"per_page": 100}), marker, author)
        if existing is not None:
            data = api.patch(f"{base}/comments/{existing['id']}", {"body": text})
            return CommentResult("updated", data.get("id"), data.get("html_url"), "edited the sticky comment")
        data = api.post(f"{base}/{number}/comments", {"body": text})
        return CommentResult("created", data.get("id"), data.get("html_url"), "no sticky comment yet")
    except GitHubAPIError as exc:
        # The comment is a convenience: never fail the job over it, let the caller use the summary.
        return CommentResult("fallback", reason=_fallback_reason(exc))


def _is_ours(comment: Mapping[str, Any], mark: str, author: str | None) -> bool:
    body = comment.get("body")
    user = comment.get("user")
    if not isinstance(body, str) or not body.startswith(mark) or not isinstance(user, Mapping):
        return False
    if author is None:
        return user.get("type") == "Bot"
    return user.get("login") == author


def _fallback_reason(exc: GitHubAPIError) -> str:
    if exc.status == 403:
        return ("the token cannot write comments (403; fork and Dependabot PRs get a read-only token, "
                "or the job lacks `pull-requests: write`): " + exc.message)
    return f"could not update the PR comment: {exc}"
