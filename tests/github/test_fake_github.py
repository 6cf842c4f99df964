"""The loopback fake answers as GitHub documents, so tests against it cannot drift from the API."""

from __future__ import annotations

import json
import urllib.error
import urllib.request

import jsonschema
import pytest
from github_helpers import TOKEN

from evalkit.testing.fake_github import FakeGitHub

LIST = "/repos/{owner}/{repo}/issues/{issue_number}/comments"
UPDATE = "/repos/{owner}/{repo}/issues/comments/{comment_id}"
FILES = "/repos/{owner}/{repo}/pulls/{pull_number}/files"


def call(fake, method, path, body=None, token=TOKEN):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(
        fake.url + path, data=data, method=method, headers={"Authorization": f"Bearer {token}"}
    )
    try:
        with urllib.request.urlopen(req, timeout=60) as resp:
            return resp.status, json.loads(resp.read()), dict(resp.headers.items())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read()), dict(exc.headers.items())


def test_comment_list_create_update_match_the_schemas(fake, openapi):
    fake.add_comment(5, "hello", login="octocat")
    status, created, headers = call(fake, "POST", "/repos/o/r/issues/5/comments", {"body": "hi"})
    assert status == 201 and headers["Location"] == created["url"]
    openapi.validate_response(LIST, "post", 201, created)
    status, updated, _ = call(fake, "PATCH", f"/repos/o/r/issues/comments/{created['id']}", {"body": "edited"})
    assert status == 200 and updated["body"] == "edited"
    openapi.validate_response(UPDATE, "patch", 200, updated)
    status, listed, _ = call(fake, "GET", "/repos/o/r/issues/5/comments")
    assert status == 200 and [c["body"] for c in listed] == ["hello", "edited"]
    openapi.validate_response(LIST, "get", 200, listed)
    assert listed[1]["user"]["type"] == "Bot" and listed[1]["user"]["login"] == "github-actions[bot]"


def test_pagination_headers(fake):
    for i in range(7):
        fake.add_comment(5, str(i))
    status, page, headers = call(fake, "GET", "/repos/o/r/issues/5/comments?per_page=3&page=2")
    assert [c["body"] for c in page] == ["3", "4", "5"]
    link = headers["Link"]
    assert 'page=3>; rel="next"' in link and 'page=3>; rel="last"' in link
    assert 'page=1>; rel="first"' in link and 'page=1>; rel="prev"' in link
    _, last, headers = call(fake, "GET", "/repos/o/r/issues/5/comments?per_page=3&page=3")
    assert [c["body"] for c in last] == ["6"] and 'rel="next"' not in headers["Link"]


def test_pr_files_match_the_schema_and_stop_at_3000(fake, openapi):
    fake.set_pr_files(
        9,
        [{"filename": "a.py", "status": "renamed", "previous_filename": "b.py"}]
        + [{"filename": f"f{i}", "status": "added"} for i in range(3100)],
    )
    status, files, _ = call(fake, "GET", "/repos/o/r/pulls/9/files?per_page=100")
    assert status == 200 and len(files) == 100
    openapi.validate_response(FILES, "get", 200, files)
    _, last, headers = call(fake, "GET", "/repos/o/r/pulls/9/files?per_page=100&page=30")
    assert len(last) == 100 and 'rel="next"' not in headers.get("Link", "")


def test_errors_match_the_schemas(openapi):
    with FakeGitHub(read_only=True, fail_files=True) as fake:
        status, error, _ = call(fake, "POST", "/repos/o/r/issues/5/comments", {"body": "x"})
        assert status == 403
        openapi.validate_response(LIST, "post", 403, error)
        status, error, _ = call(fake, "GET", "/repos/o/r/pulls/9/files")
        assert status == 500
        openapi.validate_response(FILES, "get", 500, error)


def test_strict_validation_catches_an_invented_field(fake, openapi):
    comment = fake.add_comment(5, "x")
    with pytest.raises(jsonschema.ValidationError):
        openapi.validate_response(LIST, "get", 200, [{**comment, "invented": 1}])
    with pytest.raises(jsonschema.ValidationError):
        openapi.validate_response(LIST, "get", 200, [{k: v for k, v in comment.items() if k != "node_id"}])


def test_wrong_token_is_401_and_requests_are_recorded(fake):
    status, error, _ = call(fake, "GET", "/repos/o/r/issues/5/comments", token="nope")
    assert status == 401 and error["message"] == "Bad credentials"
    rec = fake.requests[-1]
    assert (rec.method, rec.path, rec.headers["Authorization"]) == (
        "GET",
        "/repos/o/r/issues/5/comments",
        "Bearer nope",
    )


def test_bad_request_bodies_are_rejected(fake):
    assert call(fake, "POST", "/repos/o/r/issues/5/comments", {"text": "x"})[0] == 422
    assert call(fake, "PATCH", "/repos/o/r/issues/comments/999999", {"body": "x"})[0] == 404
    assert call(fake, "GET", "/repos/o/r/nothing")[0] == 404


def test_user_endpoint_answers_a_personal_token_with_a_documented_user(openapi):
    with FakeGitHub(token=TOKEN, user_login="octocat") as fake:
        status, user, _ = call(fake, "GET", "/user")
        assert status == 200 and user["login"] == "octocat" and user["type"] == "User"
        _, created, _ = call(fake, "POST", "/repos/o/r/issues/5/comments", {"body": "hi"})
    # GET /user returns a superset of the simple-user a comment's `user` documents.
    user_schema = openapi.operation(LIST, "get")["responses"]["200"]["content"]["application/json"]["schema"]
    user_schema = user_schema["items"]["properties"]["user"]
    from github_helpers import to_jsonschema

    jsonschema.Draft4Validator(to_jsonschema(user_schema, strict=True)).validate(user)
    assert created["user"] == user
    openapi.validate_response(LIST, "post", 201, created)


def test_user_endpoint_refuses_an_installation_token(fake):
    status, body, _ = call(fake, "GET", "/user")
    assert status == 403 and body["message"] == "Resource not accessible by integration"


def test_delete_comment_and_injected_faults(fake):
    created = fake.add_comment(5, "x", login="github-actions[bot]", user_type="Bot")
    req = urllib.request.Request(
        f"{fake.url}/repos/o/r/issues/comments/{created['id']}",
        method="DELETE",
        headers={"Authorization": f"Bearer {TOKEN}"},
    )
    with urllib.request.urlopen(req, timeout=60) as resp:
        assert resp.status == 204 and resp.read() == b""
    assert fake.comments(5) == []
    fake.fail_next(403, "You have exceeded a secondary rate limit", {"Retry-After": "3"})
    status, body, headers = call(fake, "GET", "/repos/o/r/issues/5/comments")
    assert status == 403 and headers["Retry-After"] == "3" and "secondary rate limit" in body["message"]
    assert call(fake, "GET", "/repos/o/r/issues/5/comments")[0] == 200
