"""A matrix of shard jobs (`shard: I/N`) and a final `merge` job that posts the one comment."""

from __future__ import annotations

import json
import shutil

import pytest

from evalkit.testing.fake_anthropic import FakeAnthropicServer
from tests.action.test_action_entrypoint import action, github, greet_script, marked, repo  # noqa: F401 - fixtures


@pytest.mark.slow
def test_shard_jobs_do_not_comment_and_the_merge_job_posts_one(action, repo, github):  # noqa: F811
    github.set_pr_files(12, [{"filename": "prompts/greet.txt"}])
    script = greet_script(reply_bob="Go away.", verdict_bob="fail", reason_bob="rude")
    shards = []
    for i in (1, 2):
        with FakeAnthropicServer(script) as fake_llm:
            run = action(
                repo,
                "pull_request_opened.json",
                "pull_request",
                github=github,
                anthropic=fake_llm,
                inputs={"shard": f"{i}/2"},
            )
        assert run.code in (0, 1), run.log
        assert "no comment from this job" in run.log
        results = json.loads(run.file("results_path").read_text())
        assert results["shard"] == f"{i}/2"
        shards.append(run)
        # the workflow downloads every shard's artifact into the merge job's workspace
        target = repo / "shards" / str(i) / "results.json"
        target.parent.mkdir(parents=True)
        shutil.copy(run.file("results_path"), target)
    assert sorted(r.code for r in shards) == [0, 1]  # ada's share passes, bob's fails
    assert not marked(github, 12)
    merged = action(
        repo,
        "pull_request_opened.json",
        "pull_request",
        github=github,
        inputs={"merge": "shards/*/results.json", "anthropic_api_key": ""},
    )
    assert merged.code == 1, merged.log
    ours = marked(github, 12)
    assert len(ours) == 1
    assert "ada" in ours[0]["body"] and "bob" in ours[0]["body"]
    assert merged.outputs["verdict"] == "fail"
    report = json.loads(merged.file("results_path").read_text())
    assert [c["id"] for c in report["suites"][0]["cases"]] == ["ada", "bob"] and report["shard"] is None


def test_merge_with_no_matching_file_exits_2(action, repo, github):  # noqa: F811
    run = action(
        repo, "pull_request_opened.json", "pull_request", github=github, inputs={"merge": "shards/*/results.json"}
    )
    assert run.code == 2 and "matches no file" in run.log
