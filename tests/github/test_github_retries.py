"""GitHub API calls are retried with backoff on 5xx and rate limits, honouring retry-after."""

from __future__ import annotations

import pytest
from github_helpers import TOKEN

from evalkit.github.api import GitHubAPI, GitHubAPIError
from evalkit.github.sticky_comment import upsert_comment
from evalkit.render.comment import MARKER, finish
from evalkit.testing.fake_github import FakeGitHub


def _api(fake: FakeGitHub, waits: list[float]) -> GitHubAPI:
    return GitHubAPI(TOKEN, fake.url, backoff=0.5, sleep=waits.append)


def test_5xx_backs_off_exponentially_then_succeeds(fake):
    waits: list[float] = []
    fake.fail_next(502, "Bad Gateway", times=2)
    assert _api(fake, waits).get("/repos/o/r/issues/5/comments") == []
    assert waits == [0.5, 1.0]


def test_secondary_rate_limit_waits_as_told(fake):
    waits: list[float] = []
    fake.fail_next(403, "You have exceeded a secondary rate limit", {"Retry-After": "7"})
    fake.fail_next(429, "Too many requests", {"Retry-After": "2"})
    assert _api(fake, waits).get("/repos/o/r/issues/5/comments") == []
    assert waits == [7.0, 2.0]


def test_plain_403_and_404_are_not_retried_and_too_long_a_wait_gives_up(fake):
    waits: list[float] = []
    fake.fail_next(403, "Resource not accessible by integration")
    with pytest.raises(GitHubAPIError) as info:
        _api(fake, waits).get("/repos/o/r/issues/5/comments")
    assert info.value.status == 403 and waits == []
    fake.fail_next(403, "API rate limit exceeded", {"Retry-After": "3600"})
    with pytest.raises(GitHubAPIError):
        _api(fake, waits).get("/repos/o/r/issues/5/comments")
    assert waits == []


def test_gives_up_after_four_attempts(fake):
    waits: list[float] = []
    fake.fail_next(500, times=5)
    with pytest.raises(GitHubAPIError) as info:
        _api(fake, waits).get("/repos/o/r/issues/5/comments")
    assert info.value.status == 500 and len(waits) == 3


def test_a_personal_token_finds_its_own_comment_and_ignores_the_bots(fake_github):
    fake = fake_github(token=TOKEN, user_login="octocat")
    fake.add_comment(7, MARKER + "\nbot's", login="github-actions[bot]", user_type="Bot")
    api = GitHubAPI(TOKEN, fake.url)
    first = upsert_comment(api, "octo-org", "hello", 7, finish("one"), marker=MARKER)
    second = upsert_comment(api, "octo-org", "hello", 7, finish("two"), marker=MARKER)
    bodies = [c["body"] for c in fake.comments(7)]
    assert first.action == "created" and second.action == "updated" and second.id == first.id
    assert bodies == [MARKER + "\nbot's", MARKER + "\ntwo"]


def test_update_only_does_not_create(fake):
    api = GitHubAPI(TOKEN, fake.url)
    result = upsert_comment(api, "octo-org", "hello", 7, finish("skip"), marker=MARKER, create=False)
    assert result.action == "unchanged" and fake.comments(7) == []
