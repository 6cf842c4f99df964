"""`comment_mode`, `summary` and the count outputs, through the entrypoint against the fakes: a
mode may hold back a new comment, never leave an old one stale."""

from __future__ import annotations

import pytest
from test_action_entrypoint import action, github, greet_script, marked, repo  # noqa: F401 - fixtures

from evalkit.testing.fake_anthropic import FakeAnthropicServer

PR = "pull_request_opened.json"


def run(action, repo, github, *, red: bool = False, **inputs: str):
    """One run; red: Bob's greeting is judged rude (each side its own response cache)."""
    github.set_pr_files(12, [{"filename": "prompts/greet.txt"}])
    inputs.setdefault("cache_dir", ".cache-red" if red else ".cache-green")
    script = greet_script(verdict_bob="fail", reason_bob="rude") if red else greet_script()
    with FakeAnthropicServer(script) as fake_llm:
        return action(repo, PR, "pull_request", github=github, anthropic=fake_llm, inputs=inputs)


@pytest.mark.slow
def test_failures_mode_holds_back_a_green_comment_and_updates_a_red_one_to_green(action, repo, github):
    green = run(action, repo, github, comment_mode="failures")
    assert green.code == 0, green.log
    assert marked(github, 12) == [] and green.outputs["comment_id"] == ""
    assert (green.outputs["passed"], green.outputs["failed"], green.outputs["errors"]) == ("2", "0", "0")
    assert "All gates passed" in green.summary  # the results are still in the summary

    red = run(action, repo, github, red=True, comment_mode="failures")
    assert red.code == 1, red.log
    comments = marked(github, 12)
    assert len(comments) == 1 and "❌" in comments[0]["body"]
    assert (red.outputs["passed"], red.outputs["failed"]) == ("1", "1")
    assert red.outputs["comment_id"] == str(comments[0]["id"])

    fixed = run(action, repo, github, comment_mode="failures")
    assert fixed.code == 0
    comments = marked(github, 12)
    assert len(comments) == 1 and "All gates passed" in comments[0]["body"]  # not left red


@pytest.mark.slow
def test_changes_mode_comments_on_a_failure_but_not_on_an_unchanged_green(action, repo, github):
    green = run(action, repo, github, comment_mode="changes", baseline="none")
    assert green.code == 0 and marked(github, 12) == []
    red = run(action, repo, github, red=True, comment_mode="changes", baseline="none")
    assert red.code == 1 and len(marked(github, 12)) == 1


@pytest.mark.slow
def test_off_writes_no_comment_even_when_red_and_comment_false_is_off(action, repo, github):
    for inputs in ({"comment_mode": "off"}, {"comment": "false"}):
        red = run(action, repo, github, red=True, **inputs)
        assert red.code == 1, red.log
        assert marked(github, 12) == [] and red.outputs["comment_id"] == ""
        assert "❌" in red.summary


@pytest.mark.slow
def test_summary_false_leaves_the_job_summary_empty_and_still_comments(action, repo, github):
    quiet = run(action, repo, github, summary="false")
    assert quiet.code == 0, quiet.log
    assert quiet.summary == ""
    assert len(marked(github, 12)) == 1


def test_a_bad_comment_mode_or_a_contradiction_is_a_clear_error(action, repo, github):
    bad = run(action, repo, github, comment_mode="sometimes")
    assert bad.code == 2 and "comment_mode: 'sometimes' is not one of always, changes, failures, off" in bad.log
    assert bad.outputs["verdict"] == "error" and bad.outputs["passed"] == ""
    both = run(action, repo, github, comment="false", comment_mode="always")
    assert both.code == 2 and "comment: false with comment_mode: always" in both.log
