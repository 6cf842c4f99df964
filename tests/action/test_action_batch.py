"""The `batch` input: the Action's calls go as Message Batches, through the worker's key proxy."""

from __future__ import annotations

import json

import pytest

from tests.action.test_action_entrypoint import KEY, action, github, greet_script, repo  # noqa: F401 - fixtures


@pytest.mark.slow
def test_the_batch_input_sends_targets_and_judge_as_batches_all_through_the_key_proxy(
    action,
    repo,  # noqa: F811
    github,  # noqa: F811
    fake_anthropic,
):
    github.set_pr_files(12, [{"filename": "prompts/greet.txt"}])
    fake_llm = fake_anthropic(greet_script())
    run = action(
        repo, "pull_request_opened.json", "pull_request", github=github, anthropic=fake_llm, inputs={"batch": "true"}
    )
    calls = list(fake_llm.batches.calls)
    creates = fake_llm.batches.creates
    assert run.code == 0, run.log
    assert "Message Batch msgbatch_" in run.log
    assert creates >= 2  # the targets' wave, then the judge's
    # Results too are read through the proxy (which holds the key): the batch's absolute
    # results_url was pointed back at it.
    assert any(path.endswith("/results") for _, path, _ in calls)
    assert {key for _, _, key in calls} == {KEY}, calls[:3]
    report = json.loads(run.file("results_path").read_text())
    assert [c["verdict"] for c in report["suites"][0]["cases"]] == ["pass", "pass"]
    assert report["usage"]["calls"] >= 4
