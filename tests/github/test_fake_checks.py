"""The fake's check-runs endpoints answer as GitHub's OpenAPI description says, and refuse what it
refuses: a fake that took any check run would prove nothing about the Action's."""

from __future__ import annotations

import jsonschema
import pytest
from github_helpers import TOKEN
from test_fake_github import call

from evalkit.testing.fake_github import FakeGitHub

CREATE = "/repos/{owner}/{repo}/check-runs"
UPDATE = "/repos/{owner}/{repo}/check-runs/{check_run_id}"
NOTES = "/repos/{owner}/{repo}/check-runs/{check_run_id}/annotations"
SHA = "2" * 40


def note(i: int = 0, **extra):
    return {
        "path": "evals/a.suite.yml",
        "start_line": i + 1,
        "end_line": i + 1,
        "annotation_level": "failure",
        "message": f"case c{i} failed",
        **extra,
    }


def run(**extra):
    return {
        "name": "evalkit",
        "head_sha": SHA,
        "status": "completed",
        "conclusion": "failure",
        "output": {"title": "A gate failed", "summary": "## report"},
        **extra,
    }


def test_create_update_and_list_match_the_schemas_and_updates_append_annotations(fake, openapi):
    body = run(output={"title": "t", "summary": "s", "annotations": [note(i) for i in range(50)]})
    openapi.validate_request(CREATE, "post", body)  # the test's own request is one GitHub takes
    status, created, _ = call(fake, "POST", "/repos/octo-org/hello/check-runs", body)
    assert status == 201, created
    openapi.validate_response(CREATE, "post", 201, created)
    assert (created["status"], created["conclusion"], created["output"]["annotations_count"]) == (
        "completed",
        "failure",
        50,
    )
    more = {"output": {"title": "t", "summary": "s", "annotations": [note(i) for i in range(50, 70)]}}
    status, updated, _ = call(fake, "PATCH", f"/repos/octo-org/hello/check-runs/{created['id']}", more)
    assert status == 200 and updated["output"]["annotations_count"] == 70
    openapi.validate_response(UPDATE, "patch", 200, updated)
    status, listed, headers = call(
        fake, "GET", f"/repos/octo-org/hello/check-runs/{created['id']}/annotations?per_page=100"
    )
    assert status == 200 and [n["start_line"] for n in listed] == list(range(1, 71))
    openapi.validate_response(NOTES, "get", 200, listed)
    assert fake.check_runs()[0]["annotations"] == listed


def test_a_conclusion_completes_a_run_created_without_status(fake):
    status, created, _ = call(
        fake, "POST", "/repos/o/r/check-runs", {"name": "x", "head_sha": SHA, "conclusion": "success"}
    )
    assert status == 201 and created["status"] == "completed"


@pytest.mark.parametrize(
    "body, why",
    [
        (run(output={"title": "t", "summary": "s", "annotations": [note(i) for i in range(51)]}), "at most 50"),
        ({k: v for k, v in run().items() if k != "name"}, "`name` is required"),
        ({k: v for k, v in run().items() if k != "head_sha"}, "`head_sha` is required"),
        ({k: v for k, v in run().items() if k != "conclusion"}, "`conclusion` is required"),
        (run(conclusion="passed"), "is not one of"),
        (run(conclusion="stale"), "only be set by GitHub"),
        (run(status="done"), "`status` 'done'"),
        (run(output={"title": "t"}), "`output.summary` is required"),
        (run(output={"summary": "s"}), "`output.title` is required"),
        (run(output={"title": "t", "summary": "x" * 65_536}), "longer than 65535"),
        (run(output={"title": "t", "summary": "s", "annotations": [note(annotation_level="error")]}), "'error'"),
        (
            run(
                output={
                    "title": "t",
                    "summary": "s",
                    "annotations": [{"path": "a", "start_line": 1, "end_line": 1, "annotation_level": "failure"}],
                }
            ),
            "`message` is required",
        ),
        (run(output={"title": "t", "summary": "s", "annotations": [note(start_line=0)]}), "starts at 1"),
        (run(output={"title": "t", "summary": "s", "annotations": [note(title="t" * 256)]}), "255"),
        (run(output={"title": "t", "summary": "s", "annotations": [note(message="é" * 40_000)]}), "64 KB"),
        (run(output={"title": "t", "summary": "s", "annotations": [note(end_line=3, start_column=1)]}), "one line"),
        (run(completed_at="yesterday"), "ISO 8601"),
        (run(actions=[{"label": "l", "description": "d", "identifier": "i"}] * 4), "at most 3"),
    ],
)
def test_refuses_what_github_refuses_with_422(fake, openapi, body, why):
    status, error, _ = call(fake, "POST", "/repos/o/r/check-runs", body)
    assert status == 422 and why in error["message"], error
    assert fake.check_runs() == []
    if why not in (
        "`conclusion` is required",
        "only be set by GitHub",
        "starts at 1",
        "255",
        "64 KB",
        "one line",
        "ISO 8601",
    ):  # the rules GitHub states in prose, not in the schema's keywords
        with pytest.raises(jsonschema.ValidationError):
            openapi.validate_request(CREATE, "post", body)


def test_an_update_needs_a_conclusion_to_complete_and_a_known_run(fake, openapi):
    _, created, _ = call(fake, "POST", "/repos/o/r/check-runs", {"name": "x", "head_sha": SHA})
    status, error, _ = call(fake, "PATCH", f"/repos/o/r/check-runs/{created['id']}", {"status": "completed"})
    assert status == 422 and "`conclusion` is required" in error["message"]
    with pytest.raises(jsonschema.ValidationError):
        openapi.validate_request(UPDATE, "patch", {"status": "completed"})
    status, _, _ = call(fake, "PATCH", "/repos/o/r/check-runs/999999", {"conclusion": "success"})
    assert status == 404


@pytest.mark.parametrize(
    "options, message",
    [
        ({"checks_write": False}, "Resource not accessible by integration"),
        ({"read_only": True}, "Resource not accessible by integration"),  # a fork's pull request
        ({"user_login": "octocat"}, "personal access token"),
    ],
)
def test_a_token_without_checks_write_gets_403(openapi, options, message):
    with FakeGitHub(token=TOKEN, **options) as fake:
        status, error, _ = call(fake, "POST", "/repos/o/r/check-runs", run())
    assert status == 403 and message in error["message"]
    assert fake.check_runs() == []
