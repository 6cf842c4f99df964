"""A sharded pull-request run compares with the base too: each `shard: I/N` job runs its share on
the base commit and saves it beside its results; the `merge` job joins the base parts, compares
with the merged head and leads the comment with it, as an unsharded run does. Run as the runner
runs the entrypoint, against the loopback GitHub and Messages-API fakes."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from evalkit.render.comment import MARKER
from evalkit.testing.fake_anthropic import FakeAnthropicServer
from tests.action.test_action_baseline import POLITE, TERSE, git, github, pr_event, script, two_commits  # noqa: F401
from tests.action.test_action_entrypoint import action, marked  # noqa: F401 - fixtures

SHARDS = 2


def run_shards(
    action,
    repo: Path,
    event: dict,
    github,
    inputs: dict[str, str] | None = None,  # noqa: F811
    bob_polite: str = "Hello Bob!",
    fields: dict | None = None,
) -> list:
    """Every shard job, each with the results folder downloaded into `shards/I/` as the README's
    matrix workflow does."""
    runs = []
    for i in range(1, SHARDS + 1):
        replies = script(bob_polite=bob_polite)
        if fields is not None:
            replies.tool_reply("record_fields", fields)
        with FakeAnthropicServer(replies) as fake_llm:
            run = action(
                repo,
                event,
                "pull_request",
                github=github,
                anthropic=fake_llm,
                inputs={"shard": f"{i}/{SHARDS}", **(inputs or {})},
            )
        assert run.code in (0, 1), run.log
        shutil.copytree(run.results, repo / "shards" / str(i))
        runs.append(run)
    return runs


def merge(action, repo: Path, event: dict, github, inputs: dict[str, str] | None = None):  # noqa: F811
    return action(
        repo,
        event,
        "pull_request",
        github=github,
        inputs={"merge": "shards/*/results.json", "anthropic_api_key": "", **(inputs or {})},
    )


def categories(comparison: dict) -> dict[str, str]:
    return {f"{s['name']}/{c['id']}": c["change"] for s in comparison["suites"] for c in s["cases"]}


@pytest.mark.slow
def test_the_merge_comment_leads_with_the_comparison_an_unsharded_run_gives(action, tmp_path, github, fake_anthropic):  # noqa: F811
    repo = tmp_path / "repo"
    base, _ = two_commits(repo, POLITE, TERSE)
    event = pr_event(base)
    shards = run_shards(action, repo, event, github)
    for run in shards:
        assert (run.results / "base.json").is_file(), run.log
        saved = json.loads((run.results / "base.json").read_text())
        assert saved["shard"] == json.loads(run.file("results_path").read_text())["shard"]
        # named relative to the repository root: the shard's worktree of the base is gone
        assert [s["path"] for s in saved["suites"]] == ["evals/greet.suite.yml"]
        assert not (run.results / "comparison.json").exists()
    assert not marked(github, 12)
    assert len(git(repo, "worktree", "list").splitlines()) == 1

    merged = merge(action, repo, event, github)
    assert merged.code == 1, merged.log
    body = marked(github, 12)[0]["body"]
    first = body[len(MARKER) :].lstrip("\n").splitlines()[0]
    assert first == "## ❌ evalkit: 1 case now fails (it passed on the base branch): 1 case got worse, 0 got better"
    assert body.index("got worse") < body.index("A gate failed")
    assert "the base branch (main)" in body and "greet/bob" in body
    assert merged.outputs["regressed"] == "1" and merged.outputs["fixed"] == "0"
    assert "1 case got worse" in merged.summary
    assert len(git(repo, "worktree", "list").splitlines()) == 1
    sharded = json.loads((merged.results / "comparison.json").read_text())
    merged_base = json.loads((merged.results / "base.json").read_text())
    assert [c["id"] for c in merged_base["suites"][0]["cases"]] == ["ada", "bob"] and merged_base["shard"] is None

    # the same pull request, unsharded: the same categories case by case
    shutil.rmtree(repo / "shards")
    fake_llm = fake_anthropic(script())
    whole = action(repo, event, "pull_request", github=github, anthropic=fake_llm)
    assert whole.code == 1, whole.log
    unsharded = json.loads((whole.results / "comparison.json").read_text())
    assert categories(sharded) == categories(unsharded) == {"greet/ada": "still passing", "greet/bob": "regressed"}
    assert [(s["name"], s["base"]["passed"], s["head"]["passed"]) for s in sharded["suites"]] == [
        (s["name"], s["base"]["passed"], s["head"]["passed"]) for s in unsharded["suites"]
    ]


@pytest.mark.slow
def test_gate_regressions_decides_the_merge_job_as_it_does_an_unsharded_run(action, tmp_path, github):  # noqa: F811
    repo = tmp_path / "repo"
    base, _ = two_commits(repo, POLITE, POLITE.replace("Greets people by name.", "Greets people."))
    event = pr_event(base)
    run_shards(action, repo, event, github, bob_polite="Go away.")  # bob fails on the base and on head
    lenient = merge(action, repo, event, github, inputs={"gate": "regressions"})
    strict = merge(action, repo, event, github)
    assert lenient.code == 0, lenient.log
    assert strict.code == 1, strict.log  # `both` (the default) still fails on the thresholds
    assert "0 cases got worse, 0 got better, 1 was already failing on the base branch" in marked(github, 12)[0]["body"]
    assert lenient.outputs["regressed"] == "0" and lenient.outputs["verdict"] == "fail"


@pytest.mark.slow
def test_a_shard_without_base_results_is_named_and_the_thresholds_decide(action, tmp_path, github):  # noqa: F811
    repo = tmp_path / "repo"
    base, _ = two_commits(repo, POLITE, TERSE)
    event = pr_event(base)
    run_shards(action, repo, event, github)
    (repo / "shards" / "2" / "base.json").unlink()  # e.g. a workflow that uploads results.json only
    merged = merge(action, repo, event, github, inputs={"gate": "regressions"})
    assert merged.code == 1, merged.log  # no comparison: the thresholds decide, even under gate: regressions
    body = marked(github, 12)[0]["body"]
    assert (
        "No comparison with the base branch:** no base results beside shards/2/results.json (upload the "
        "shard's whole results folder"
    ) in body
    assert "A gate failed" in body and "got worse" not in body
    assert merged.outputs["regressed"] == "" and merged.outputs["verdict"] == "fail"


@pytest.mark.slow
def test_shards_that_could_not_have_the_base_say_why_in_the_merge_comment(action, tmp_path, github):  # noqa: F811
    origin = tmp_path / "origin"
    base, _ = two_commits(origin, POLITE, TERSE)
    repo = tmp_path / "repo"
    subprocess.run(["git", "clone", "-q", "--depth", "1", f"file://{origin}", str(repo)], check=True)
    shutil.rmtree(origin)  # the remote is gone: every shard's fetch of the base fails
    event = pr_event(base)
    shards = run_shards(action, repo, event, github)
    for run in shards:
        assert not (run.results / "base.json").exists()
        assert "not in this shallow checkout" in json.loads((run.results / "base-unavailable.json").read_text())["why"]
    merged = merge(action, repo, event, github)
    assert merged.code == 1, merged.log
    body = marked(github, 12)[0]["body"]
    assert (
        f"No comparison with the base branch:** shard 1/2, 2/2: the base commit {base[:12]} is not in this "
        "shallow checkout and fetching it failed"
    ) in body
    assert "A gate failed" in body and merged.outputs["regressed"] == ""


ACROSS = """\
fields:
  letters: {type: number}
compare:
  - {id: same_length, left: {case: ada, field: letters}, op: "==", right: {case: bob, field: letters}}
cases:
"""


@pytest.mark.slow
def test_checks_across_cases_of_the_base_come_from_the_base_commits_suite_file(action, tmp_path, github):  # noqa: F811
    repo = tmp_path / "repo"
    # only the base's suite file has the check across cases: the merge job must read it from the base commit
    base, _ = two_commits(repo, POLITE.replace("cases:\n", ACROSS), TERSE)
    event = pr_event(base)
    shards = run_shards(action, repo, event, github, fields={"letters": 10})
    for run in shards:  # a shard holds one of the two cases: the check waits for the merge
        assert json.loads((run.results / "base.json").read_text())["suites"][0]["comparisons"] == []
    merged = merge(action, repo, event, github)
    assert merged.code == 1, merged.log
    suite = json.loads((merged.results / "base.json").read_text())["suites"][0]
    assert suite["path"] == "evals/greet.suite.yml"
    assert [(c["id"], c["status"]) for c in suite["comparisons"]] == [("same_length", "pass")]
    assert "1 case got worse" in marked(github, 12)[0]["body"]


@pytest.mark.slow
def test_the_merge_job_fetches_the_base_commit_its_shallow_checkout_lacks(action, tmp_path, github):  # noqa: F811
    origin = tmp_path / "origin"
    base, _ = two_commits(origin, POLITE, TERSE)
    repo = tmp_path / "repo"

    def fresh_shallow_checkout() -> None:  # each job of a workflow starts from its own checkout
        shutil.rmtree(repo, ignore_errors=True)
        subprocess.run(["git", "clone", "-q", "--depth", "1", f"file://{origin}", str(repo)], check=True)

    fresh_shallow_checkout()
    event = pr_event(base)
    run_shards(action, repo, event, github)
    downloaded = tmp_path / "downloaded"
    shutil.copytree(repo / "shards", downloaded)
    fresh_shallow_checkout()
    shutil.copytree(downloaded, repo / "shards")
    lacks = subprocess.run(["git", "cat-file", "-e", f"{base}^{{commit}}"], cwd=repo, capture_output=True)
    assert lacks.returncode != 0  # the merge job's checkout lacks the base commit: it fetches it
    merged = merge(action, repo, event, github)
    assert merged.code == 1, merged.log
    assert (
        marked(github, 12)[0]["body"][len(MARKER) :]
        .lstrip("\n")
        .startswith("## ❌ evalkit: 1 case now fails (it passed on the base branch): 1 case got worse")
    )
