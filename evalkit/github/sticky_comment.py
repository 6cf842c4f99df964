"""One sticky PR comment per marker and author: found on any page, edited in place, and
converged to one when two runs overlap.

The author is the token's own identity: `GET /user` answers for a personal or user token;
an installation token (GITHUB_TOKEN, a GitHub App) cannot call it, and then the comment is
any bot's. Overlapping runs can both create: each re-lists after creating, keeps the oldest
marked comment of its author, and deletes its own newer one."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from evalkit.github.api import GitHubAPI, GitHubAPIError

BOT_LOGIN = "github-actions[bot]"


@dataclass(frozen=True)
class CommentResult:
    """What `upsert_comment` did; on "fallback" write the job summary instead."""

    action: Literal["created", "updated", "unchanged", "fallback"]
    id: int | None = None
    url: str | None = None
    reason: str = ""


def find_sticky(
    comments: Iterable[Mapping[str, Any]], mark: str, author: str | None = BOT_LOGIN
) -> Mapping[str, Any] | None:
    """The newest comment that starts with `mark` and is ours (login `author`, or any bot if None)."""
    ours = [c for c in comments if _is_ours(c, mark, author)]
    return max(ours, key=lambda c: (str(c.get("created_at", "")), int(c.get("id", 0))), default=None)


def token_identity(api: GitHubAPI) -> str | None:
    """The login behind the token (`GET /user`), or None for an installation token, which
    cannot call it (GITHUB_TOKEN, a GitHub App: the comment is then a bot's)."""
    try:
        data = api.get("/user")
    except GitHubAPIError as exc:
        if exc.status in (401, 403, 404):
            return None
        raise
    login = data.get("login") if isinstance(data, Mapping) else None
    return login if isinstance(login, str) and login else None


def upsert_comment(
    api: GitHubAPI,
    owner: str,
    repo: str,
    number: int,
    body: str,
    *,
    marker: str,
    author: str | None | Literal["token"] = "token",
    create: bool = True,
) -> CommentResult:
    """Edit our marked comment on PR `number`, or create it (unless `create` is false: then only
    an existing one is brought up to date); API failures return "fallback".

    `author` "token" asks GitHub who the token is; a login matches exactly, None any bot.
    `body` is the finished comment (`evalkit.render.comment` adds the marker and cuts it to
    GitHub's limit); a body that does not start with `marker` is refused."""
    if not body.startswith(marker):
        raise ValueError("the comment body must start with its marker (render it with evalkit.render.comment)")
    base = f"/repos/{owner}/{repo}/issues"
    try:
        if author == "token":
            author = token_identity(api)
        existing = find_sticky(_list(api, base, number), marker, author)
        if existing is not None:
            data = api.patch(f"{base}/comments/{existing['id']}", {"body": body})
            return CommentResult("updated", data.get("id"), data.get("html_url"), "edited the sticky comment")
        if not create:
            return CommentResult("unchanged", reason="no sticky comment to bring up to date")
        data = api.post(f"{base}/{number}/comments", {"body": body})
        return _converge(api, base, number, body, marker, created=data)
    except GitHubAPIError as exc:
        # The comment is a convenience: never fail the job over it, let the caller use the summary.
        return CommentResult("fallback", reason=_fallback_reason(exc))


def _list(api: GitHubAPI, base: str, number: int) -> Iterable[Mapping[str, Any]]:
    return api.paginate(f"{base}/{number}/comments", {"per_page": 100})


def _converge(
    api: GitHubAPI, base: str, number: int, body: str, marker: str, *, created: Mapping[str, Any]
) -> CommentResult:
    """After creating: if an overlapping run created one too, keep the oldest and delete ours."""
    user = created.get("user")
    login = user.get("login") if isinstance(user, Mapping) else None
    ours = sorted(
        (c for c in _list(api, base, number) if _is_ours(c, marker, login)), key=lambda c: int(c.get("id", 0))
    )
    if not ours or ours[0].get("id") == created.get("id"):
        return CommentResult("created", created.get("id"), created.get("html_url"), "no sticky comment yet")
    keep = ours[0]
    data = api.patch(f"{base}/comments/{keep['id']}", {"body": body})
    api.request("DELETE", f"{base}/comments/{created['id']}")
    return CommentResult(
        "updated",
        data.get("id"),
        data.get("html_url"),
        "another run created the comment at the same time: kept that one, deleted ours",
    )


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
        return (
            "the token cannot write comments (403; fork and Dependabot PRs get a read-only token, "
            "or the job lacks `pull-requests: write`): " + exc.message
        )
    return f"could not update the PR comment: {exc}"
