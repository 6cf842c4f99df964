"""A check run through the REST client against the loopback GitHub: one run, its annotations in
requests of 50, everything within GitHub's limits, and a missing permission as a reason, not a raise."""

from __future__ import annotations

from github_helpers import TOKEN

from evalkit.github.api import GitHubAPI
from evalkit.github.check_run import (
    MAX_SUMMARY_CHARS,
    SUMMARY_CUT_NOTE,
    Annotation,
    create_check_run,
    fit_summary,
)

CREATE = "/repos/{owner}/{repo}/check-runs"
UPDATE = "/repos/{owner}/{repo}/check-runs/{check_run_id}"
SHA = "2" * 40


def create(fake, annotations=(), summary="## ❌ evalkit: A gate failed\n\nreport", **kwargs):
    return create_check_run(
        GitHubAPI(TOKEN, fake.url, backoff=0),
        "octo-org",
        "hello",
        name="evalkit",
        head_sha=SHA,
        conclusion=kwargs.pop("conclusion", "failure"),
        title="A gate failed",
        summary=summary,
        annotations=annotations,
        **kwargs,
    )


def failing(n):
    return [Annotation("evals/a.suite.yml", i + 1, "failure", f"case c{i}: rude", title=f"c{i} fail") for i in range(n)]


def test_one_completed_run_with_its_annotations_in_requests_of_50(fake, openapi):
    result = create(fake, failing(120), details_url="https://github.com/octo-org/hello/actions/runs/1")
    assert result.action == "created" and result.annotations == 120
    [run] = fake.check_runs()
    assert (run["name"], run["head_sha"], run["status"], run["conclusion"]) == ("evalkit", SHA, "completed", "failure")
    assert result.id == run["id"] and result.url == run["html_url"]
    assert [n["start_line"] for n in run["annotations"]] == list(range(1, 121))
    assert run["details_url"] == "https://github.com/octo-org/hello/actions/runs/1"
    writes = [r for r in fake.requests if r.method in ("POST", "PATCH")]
    assert [(r.method, len(r.body["output"]["annotations"])) for r in writes] == [
        ("POST", 50),
        ("PATCH", 50),
        ("PATCH", 20),
    ]
    openapi.validate_request(CREATE, "post", writes[0].body)
    for patch in writes[1:]:
        assert patch.path == f"/repos/octo-org/hello/check-runs/{run['id']}"
        openapi.validate_request(UPDATE, "patch", patch.body)
        assert patch.body["output"]["title"] == writes[0].body["output"]["title"]  # GitHub needs both each time


def test_without_failures_a_single_request_and_no_annotations_key(fake):
    result = create(fake, conclusion="success")
    assert result.action == "created" and result.annotations == 0
    [write] = [r for r in fake.requests if r.method == "POST"]
    assert "annotations" not in write.body["output"] and fake.check_runs()[0]["conclusion"] == "success"


def test_oversized_parts_are_fitted_to_githubs_limits(fake, openapi):
    huge = Annotation("evals/a.suite.yml", 0, "warning", "é" * 70_000, title="t" * 400, raw_details="x" * 70_000)
    result = create(fake, [huge], summary="line\n" * 20_000)
    assert result.action == "created"  # the fake refuses anything over the limits with 422
    [run] = fake.check_runs()
    [note] = run["annotations"]
    assert note["start_line"] == note["end_line"] == 1
    assert len(note["title"]) == 255 and note["title"].endswith("…")
    assert len(note["message"].encode()) <= 64 * 1024 and len(note["raw_details"].encode()) <= 64 * 1024
    assert len(run["output"]["summary"]) <= MAX_SUMMARY_CHARS and run["output"]["summary"].endswith(SUMMARY_CUT_NOTE)
    openapi.validate_request(CREATE, "post", [r for r in fake.requests if r.method == "POST"][0].body)


def test_a_cut_summary_closes_its_code_fence_and_says_where_the_rest_is():
    fitted = fit_summary("## head\n```text\n" + "x\n" * 40_000 + "```\n")
    assert len(fitted) <= MAX_SUMMARY_CHARS and fitted.endswith(SUMMARY_CUT_NOTE)
    assert fitted.count("```") % 2 == 0
    assert fit_summary("short") == "short"


def test_403_is_a_reason_naming_the_permission_not_an_exception(openapi, fake_github):
    fake = fake_github(token=TOKEN, checks_write=False)
    result = create(fake, failing(3))
    assert result.action == "failed" and result.status == 403
    assert "permissions: checks: write" in result.reason and fake.check_runs() == []


def test_a_failed_update_keeps_the_run_and_says_how_many_annotations_were_lost(fake):
    fake.faults.append((422, {"message": "Validation Failed"}, {}))  # answer to the first request only
    assert create(fake, failing(3)).action == "failed"
    original = fake.handle

    def refuse_updates(method, path, query, body):
        if method == "PATCH":
            return 422, {"message": "Validation Failed", "documentation_url": "x", "status": "422"}, {}
        return original(method, path, query, body)

    fake.handle = refuse_updates
    result = create(fake, failing(75))
    assert result.action == "partial" and result.annotations == 50
    assert "25 of 75 annotations not added" in result.reason
    assert fake.check_runs()[0]["conclusion"] == "failure"
