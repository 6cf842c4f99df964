"""The REST client: headers, Link pagination, errors that never carry the token."""

from __future__ import annotations

import pytest
from github_helpers import TOKEN

from evalkit.github.api import GitHubAPI, GitHubAPIError, next_link

COMMENTS = "/repos/octo-org/hello/issues/7/comments"


def test_sends_the_documented_headers(fake):
    GitHubAPI(TOKEN, fake.url).get(COMMENTS)
    headers = {k.lower(): v for k, v in fake.requests[-1].headers.items()}
    assert headers["authorization"] == f"Bearer {TOKEN}"
    assert headers["accept"] == "application/vnd.github+json"
    assert headers["x-github-api-version"] == "2022-11-28"


def test_api_url_comes_from_the_environment(monkeypatch):
    monkeypatch.setenv("GITHUB_API_URL", "https://ghe.example.com/api/v3/")
    assert GitHubAPI("t").api_url == "https://ghe.example.com/api/v3"
    monkeypatch.delenv("GITHUB_API_URL")
    assert GitHubAPI("t").api_url == "https://api.github.com"


def test_paginate_follows_next_links_to_the_last_page(fake):
    for i in range(250):
        fake.add_comment(7, f"comment {i}")
    bodies = [c["body"] for c in GitHubAPI(TOKEN, fake.url).paginate(COMMENTS, {"per_page": 100})]
    assert bodies == [f"comment {i}" for i in range(250)]
    pages = [r.query.get("page", "1") for r in fake.requests]
    assert pages == ["1", "2", "3"]


def test_next_link_parsing():
    header = (
        '<https://api.github.com/x?page=1>; rel="prev", '
        '<https://api.github.com/x?page=3>; rel="next", <https://api.github.com/x?page=9>; rel="last"'
    )
    assert next_link(header) == "https://api.github.com/x?page=3"
    assert next_link('<https://api.github.com/x?page=9>; rel="last"') is None
    assert next_link(None) is None


def test_error_carries_status_and_github_message_but_never_the_token(fake_github):
    fake = fake_github(token="the-right-one")
    api = GitHubAPI(TOKEN, fake.url)
    with pytest.raises(GitHubAPIError) as info:
        api.get(COMMENTS)
    assert info.value.status == 401
    assert "Bad credentials" in str(info.value)
    assert TOKEN not in str(info.value) and TOKEN not in repr(info.value)
    assert TOKEN not in repr(api)


def test_token_is_scrubbed_even_if_echoed_back(fake):
    api = GitHubAPI(TOKEN, fake.url)
    with pytest.raises(GitHubAPIError) as info:
        api.get(f"/repos/octo-org/{TOKEN}/nothing-here")
    assert info.value.status == 404
    assert TOKEN not in str(info.value)


def test_unreachable_server_is_status_zero(refusing_url):
    with pytest.raises(GitHubAPIError) as info:
        GitHubAPI(TOKEN, refusing_url, timeout=2).get(COMMENTS)
    assert info.value.status == 0
    assert TOKEN not in str(info.value)


def test_refuses_to_follow_a_link_to_another_host(fake):
    api = GitHubAPI(TOKEN, fake.url)
    with pytest.raises(GitHubAPIError, match="refusing"):
        api.get("https://evil.example/steal")
    assert fake.requests == []


def test_the_token_never_appears_in_a_request_body(fake):
    api = GitHubAPI(TOKEN, fake.url)
    api.post(COMMENTS, {"body": "hello"})
    assert all(TOKEN not in r.raw_body for r in fake.requests)
