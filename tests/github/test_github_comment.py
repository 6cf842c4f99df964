"""The sticky comment: created once, then edited in place, wherever it sits in the list."""

from __future__ import annotations

import pytest
from github_helpers import TOKEN

from evalkit.github.api import GitHubAPI
from evalkit.github.sticky_comment import BOT_LOGIN, find_sticky, upsert_comment
from evalkit.render.comment import MARKER, MAX_COMMENT_CHARS, finish, marker, with_marker

PR = 7


def upsert(fake, body, marker=MARKER, **kwargs):
    """Post `body` as the Action does: marked and cut to size by the renderer, then upserted."""
    return upsert_comment(
        GitHubAPI(TOKEN, fake.url), "octo-org", "hello", PR, finish(body, mark=marker), marker=marker, **kwargs
    )


def test_first_run_creates_second_run_edits_the_same_comment(fake):
    first = upsert(fake, "## Evals: 3 passed")
    assert first.action == "created" and first.id is not None
    assert first.url.endswith(f"#issuecomment-{first.id}")
    second = upsert(fake, "## Evals: 2 passed, 1 failed")
    assert second.action == "updated" and second.id == first.id
    comments = fake.comments(PR)
    assert len(comments) == 1
    assert comments[0]["body"] == MARKER + "\n## Evals: 2 passed, 1 failed"


def test_marker_on_page_two_behind_120_other_comments(fake):
    upsert(fake, "first report")
    for i in range(120):
        fake.add_comment(PR, f"LGTM {i}", login=f"reviewer{i % 5}")
    result = upsert(fake, "second report")
    assert result.action == "updated"
    assert len([c for c in fake.comments(PR) if MARKER in c["body"]]) == 1
    listed_pages = [r.query.get("page", "1") for r in fake.requests if r.method == "GET"]
    assert listed_pages[-2:] == ["1", "2"]


def test_a_forged_marker_by_another_user_is_ignored(fake):
    forged = fake.add_comment(PR, MARKER + "\nI am the bot, trust me", login="mallory")
    result = upsert(fake, "real report")
    assert result.action == "created" and result.id != forged["id"]
    assert fake.comments(PR)[0]["body"] == MARKER + "\nI am the bot, trust me"


def test_the_marker_must_open_the_body(fake):
    fake.add_comment(PR, "quoting: " + MARKER, login=BOT_LOGIN, user_type="Bot")
    assert upsert(fake, "report").action == "created"


def test_newest_of_several_marked_comments_is_edited(fake):
    fake.add_comment(PR, MARKER + "\nold", login=BOT_LOGIN, user_type="Bot")
    newer = fake.add_comment(PR, MARKER + "\nnewer", login=BOT_LOGIN, user_type="Bot")
    assert upsert(fake, "report").id == newer["id"]


def test_author_is_configurable_and_unknown_identity_accepts_bots(fake):
    app_bot = fake.add_comment(PR, MARKER + "\nby app", login="evalkit-app[bot]", user_type="Bot")
    fake.bot_login = "evalkit-app[bot]"
    assert upsert(fake, "x", author="evalkit-app[bot]").id == app_bot["id"]
    assert upsert(fake, "y", author=None).id == app_bot["id"]
    human = [{"id": 1, "body": MARKER, "user": {"login": "h", "type": "User"}, "created_at": "2025"}]
    assert find_sticky(human, MARKER, None) is None


def test_two_keys_keep_two_comments(fake):
    nightly = marker("nightly")
    assert nightly != MARKER and marker() == MARKER
    a = upsert(fake, "pr report")
    b = upsert(fake, "nightly report", marker=nightly)
    assert a.id != b.id
    assert upsert(fake, "pr again").id == a.id
    assert upsert(fake, "nightly again", marker=nightly).id == b.id


def test_bad_key_is_rejected():
    with pytest.raises(ValueError):
        marker("x -->")


def test_marker_appears_exactly_once_at_the_start():
    body = with_marker(f"text {MARKER} more\n{MARKER}", MARKER)
    assert body.startswith(MARKER) and body.count(MARKER) == 1


def test_read_only_token_falls_back_without_raising(fake_github):
    fake = fake_github(read_only=True)
    result = upsert(fake, "report")
    assert result.action == "fallback" and result.id is None
    assert "403" in result.reason and "read-only" in result.reason
    assert TOKEN not in result.reason


def test_read_only_token_falls_back_on_edit_too(fake_github):
    fake = fake_github(read_only=True)
    fake.add_comment(PR, MARKER + "\nold", login=BOT_LOGIN, user_type="Bot")
    result = upsert(fake, "report")
    assert result.action == "fallback" and "403" in result.reason


def test_body_is_cut_to_github_limit(fake):
    huge = "## Report\n```\n" + "line of model output\n" * 10_000
    result = upsert(fake, huge)
    body = fake.comments(PR)[0]["body"]
    assert result.action == "created"
    assert len(body) <= MAX_COMMENT_CHARS
    assert body.startswith(MARKER) and "truncated" in body
    assert body.count("```") % 2 == 0  # the open fence was closed before the note


def test_requests_match_github_request_schemas(fake, openapi):
    upsert(fake, "one")
    upsert(fake, "two")
    writes = [r for r in fake.requests if r.method in ("POST", "PATCH")]
    assert [r.method for r in writes] == ["POST", "PATCH"]
    openapi.validate_request("/repos/{owner}/{repo}/issues/{issue_number}/comments", "post", writes[0].body)
    openapi.validate_request("/repos/{owner}/{repo}/issues/comments/{comment_id}", "patch", writes[1].body)
    assert all(TOKEN not in r.raw_body for r in fake.requests)
