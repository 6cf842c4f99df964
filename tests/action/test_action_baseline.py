"""The Action compares a pull request with its base commit, run as the runner runs it against
the loopback GitHub and Messages-API fakes: the comment leads with the comparison; a base
missing from a shallow clone is fetched, or the comment says why there is no comparison and the
thresholds decide; `gate: regressions` passes a PR whose only failures pre-exist on the base."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from evalkit.render.comment import MARKER
from evalkit.testing.script import Script
from tests.action.test_action_entrypoint import EVENTS, SUITE, TOKEN, action, make_repo, marked  # noqa: F401

POLITE = SUITE
TERSE = SUITE.replace("politely.", "tersely.")


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args],
        cwd=repo,
        check=True,
        capture_output=True,
        text=True,
    )
    return done.stdout.strip()


def two_commits(root: Path, base_text: str, head_text: str, file: str = "evals/greet.suite.yml") -> tuple[str, str]:
    """The user repository with `file` as `base_text` in a base commit and `head_text` in the next."""
    make_repo(root)
    (root / file).write_text(base_text)
    git(root, "init", "-q", "-b", "main")
    git(root, "add", ".")
    git(root, "commit", "-qm", "base")
    base = git(root, "rev-parse", "HEAD")
    (root / file).write_text(head_text)
    git(root, "commit", "-qam", "the change")
    return base, git(root, "rev-parse", "HEAD")


def pr_event(base_sha: str) -> dict:
    payload = json.loads((EVENTS / "pull_request_opened.json").read_text())
    payload["pull_request"]["base"]["sha"] = base_sha
    return payload


def script(bob_polite: str = "Hello Bob!", bob_terse: str = "Go away.") -> Script:
    verdict = {"items": [{"id": "polite", "reason": "fine", "verdict": "pass"}]}
    return (
        Script()
        .reply("Hello Ada!", prompt="GREET Ada")
        .reply(bob_polite, prompt="GREET Bob politely")
        .reply(bob_terse, prompt="GREET Bob tersely")
        .tool_reply("record_verdicts", verdict)
    )


@pytest.fixture
def github(fake_github):
    fake = fake_github(token=TOKEN)
    fake.set_pr_files(12, [{"filename": "evals/greet.suite.yml"}])
    return fake


@pytest.mark.slow
def test_the_comment_leads_with_the_comparison_when_the_base_commit_is_there(action, tmp_path, github, fake_anthropic):
    repo = tmp_path / "repo"
    base, _ = two_commits(repo, POLITE, TERSE)
    fake_llm = fake_anthropic(script())
    run = action(repo, pr_event(base), "pull_request", github=github, anthropic=fake_llm)
    assert run.code == 1, run.log
    body = marked(github, 12)[0]["body"]
    first = body[len(MARKER) :].lstrip("\n").splitlines()[0]
    assert first == "## ❌ evalkit: 1 case now fails (it passed on the base branch): 1 case got worse, 0 got better"
    assert body.index("got worse") < body.index("A gate failed")  # then the thresholds, as before
    assert "the base branch (main)" in body and "greet/bob" in body
    assert run.outputs["regressed"] == "1" and run.outputs["fixed"] == "0"
    assert (run.results / "comparison.json").is_file() and (run.results / "base.json").is_file()
    assert "1 case got worse" in run.summary
    # the worktree of the base is gone
    assert len(git(repo, "worktree", "list").splitlines()) == 1


@pytest.mark.slow
def test_gate_regressions_passes_a_pr_whose_only_failures_pre_exist_on_the_base(
    action, tmp_path, github, fake_anthropic
):
    repo = tmp_path / "repo"
    base, _ = two_commits(repo, POLITE, POLITE.replace("Greets people by name.", "Greets people."))
    fake_llm = fake_anthropic(script(bob_polite="Go away."))
    lenient = action(
        repo, pr_event(base), "pull_request", github=github, anthropic=fake_llm, inputs={"gate": "regressions"}
    )
    head_requests = fake_llm.request_count
    strict = action(repo, pr_event(base), "pull_request", github=github, anthropic=fake_llm)
    assert lenient.code == 0, lenient.log
    assert strict.code == 1, strict.log  # `both` (the default) still fails on the thresholds
    body = marked(github, 12)[0]["body"]
    assert "0 cases got worse, 0 got better, 1 was already failing on the base branch" in body
    assert lenient.outputs["regressed"] == "0" and lenient.outputs["verdict"] == "fail"
    # the base asked nothing new of the model: every request came from the head's cache
    assert head_requests == 4  # ada, bob, and one judge call each
    assert "base 0 requests made, 4 from the cache" in lenient.log


@pytest.mark.slow
def test_a_base_missing_from_a_shallow_clone_is_fetched(action, tmp_path, github, fake_anthropic):
    origin = tmp_path / "origin"
    base, _ = two_commits(origin, POLITE, TERSE)
    repo = tmp_path / "repo"
    subprocess.run(["git", "clone", "-q", "--depth", "1", f"file://{origin}", str(repo)], check=True)
    assert git(repo, "rev-parse", "--is-shallow-repository") == "true"
    fake_llm = fake_anthropic(script())
    run = action(repo, pr_event(base), "pull_request", github=github, anthropic=fake_llm)
    assert run.code == 1, run.log
    assert "1 case got worse" in marked(github, 12)[0]["body"]


@pytest.mark.slow
def test_a_base_that_cannot_be_had_is_explained_and_the_thresholds_decide(action, tmp_path, github, fake_anthropic):
    origin = tmp_path / "origin"
    base, _ = two_commits(origin, POLITE, TERSE)
    repo = tmp_path / "repo"
    subprocess.run(["git", "clone", "-q", "--depth", "1", f"file://{origin}", str(repo)], check=True)
    shutil.rmtree(origin)  # the remote is gone: the fetch fails
    fake_llm = fake_anthropic(script())
    run = action(
        repo, pr_event(base), "pull_request", github=github, anthropic=fake_llm, inputs={"gate": "regressions"}
    )
    assert run.code == 1, run.log  # no comparison: the thresholds decide, even under gate: regressions
    body = marked(github, 12)[0]["body"]
    assert (
        f"No comparison with the base branch:** the base commit {base[:12]} is not in this shallow checkout "
        "and fetching it failed" in body
    )
    assert "fetch-depth: 0" in body and "A gate failed" in body
    assert run.outputs["regressed"] == "" and run.outputs["verdict"] == "fail"


@pytest.mark.slow
def test_baseline_none_and_a_bad_gate(action, tmp_path, github, fake_anthropic):
    repo = tmp_path / "repo"
    base, _ = two_commits(repo, POLITE, TERSE)
    fake_llm = fake_anthropic(script())
    off = action(repo, pr_event(base), "pull_request", github=github, anthropic=fake_llm, inputs={"baseline": "none"})
    bad = action(repo, pr_event(base), "pull_request", github=github, anthropic=fake_llm, inputs={"gate": "sometimes"})
    assert off.code == 1, off.log
    assert "No comparison" not in off.summary and "got worse" not in off.summary and "A gate failed" in off.summary
    assert off.outputs["regressed"] == ""
    assert bad.code == 2 and "gate: 'sometimes' is not one of thresholds, regressions, both" in bad.log


COLLAPSE = """\
name: greet
target:
  prompt: "GREET {{ input.who }} politely."
watch: ["./greet.suite.yml"]
repeats: 3
cases:
  - id: ada
    input: {who: Ada}
    rubric:
      - {id: says_hello, check: {type: contains, value: "Hello"}, critical: true}
"""


@pytest.mark.slow
def test_a_critical_item_that_collapses_over_three_repeats_fails_gate_regressions(
    action, tmp_path, github, fake_anthropic
):
    # Fisher's test alone gives 3/3 → 0/3 p = 0.1: before, this passed as "0 cases got worse" and exit 0.
    repo = tmp_path / "repo"
    base, _ = two_commits(repo, COLLAPSE, COLLAPSE.replace("politely.", "tersely."))
    replies = Script().reply("Hello Ada!", prompt="GREET Ada politely").reply("Go away.", prompt="GREET Ada tersely")
    fake_llm = fake_anthropic(replies)
    run = action(
        repo, pr_event(base), "pull_request", github=github, anthropic=fake_llm, inputs={"gate": "regressions"}
    )
    assert run.code == 1, run.log
    assert run.outputs["regressed"] == "1"
    comparison = json.loads((run.results / "comparison.json").read_text())
    flip = comparison["suites"][0]["cases"][0]["flips"][0]
    assert (flip["base_passed"], flip["base_runs"], flip["head_passed"], flip["head_runs"]) == (3, 3, 0, 3)
    assert flip["significant"] and flip["p_value"] == pytest.approx(0.1)
    body = marked(github, 12)[0]["body"]
    first = body[len(MARKER) :].lstrip("\n").splitlines()[0]
    assert (
        first == "## ❌ evalkit: 1 case now fails (it passed on the base branch): 1 case got worse, 0 got better"
        "; pass rate 100% → 0%, a bigger drop than chance explains (by chance alone base's rate could "
        "read 21%–100%)"
    )
    # the failing answer is quoted once, with the item that failed, though the item failed on 3 runs
    quote = "> **says_hello** (critical) failed on this answer (run 1): “Go away.”"
    assert body.count(quote) == 1 and body.count("“Go away.”") == 1
    # the collapse rule decided the row: no p-value beside it; the case is explained in one details block
    assert "says_hello 3/3→0/3 |" in body and "p=" not in body
    assert body.count("<details>") == 1 and "3/3 → 0/3 · critical item: passed on every base run" in body
    page = run.file("html_path").read_text()  # the HTML report shows base's answer beside head's
    assert "<h4>Output on the base branch" in page and "Go away." in page and "Hello Ada!" in page


@pytest.mark.slow
def test_a_judged_collapse_over_three_repeats_is_never_a_green_headline(action, tmp_path, github, fake_anthropic):
    repo = tmp_path / "repo"
    judged = COLLAPSE.replace(
        '{id: says_hello, check: {type: contains, value: "Hello"}, critical: true}',
        '{id: polite, judge: "The reply is polite"}',
    )
    base, _ = two_commits(repo, judged, judged.replace("politely.", "tersely."))
    replies = (
        Script()
        .reply("Hello Ada!", prompt="GREET Ada politely")
        .reply("Go away.", prompt="GREET Ada tersely")
        .tool_reply(
            "record_verdicts", {"items": [{"id": "polite", "reason": "curt", "verdict": "fail"}]}, prompt="Go away."
        )
        .tool_reply("record_verdicts", {"items": [{"id": "polite", "reason": "warm", "verdict": "pass"}]})
    )
    fake_llm = fake_anthropic(replies)
    run = action(
        repo, pr_event(base), "pull_request", github=github, anthropic=fake_llm, inputs={"gate": "regressions"}
    )
    assert run.code == 0, run.log  # a judge's 3/3 → 0/3 cannot be told from noise: not a regression…
    body = marked(github, 12)[0]["body"]
    first = body[len(MARKER) :].lstrip("\n").splitlines()[0]
    # …but the headline says the case now fails, and it is not ✅
    assert first.startswith(
        "## ⚠️ evalkit: 1 case now fails (it passed on the base branch): 0 cases got worse, 1 too few runs to tell"
    )
    assert "too few runs: 4 a side needed" in body and "within noise" not in body


@pytest.mark.slow
def test_a_pr_reuses_the_results_its_base_commit_saved_and_pays_only_for_the_head(
    action, tmp_path, github, fake_anthropic
):
    repo = tmp_path / "repo"
    make_repo(repo)
    (repo / "evals/greet.suite.yml").write_text(POLITE)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "base")
    base = git(repo, "rev-parse", "HEAD")
    push = json.loads((EVENTS / "push.json").read_text())
    push["after"] = base
    fake_llm = fake_anthropic(script())
    saved = action(repo, push, "push", github=github, anthropic=fake_llm)
    assert saved.outputs["base_artifact"] == f"evalkit-base-{base}"
    folder = repo / saved.outputs["base_artifact_path"]
    files = {p.name: p.read_bytes() for p in folder.iterdir()}
    assert set(files) == {"results.json", "keys.json"}
    github.add_artifact(saved.outputs["base_artifact"], files, head_sha=base)
    (repo / "evals/greet.suite.yml").write_text(TERSE)
    git(repo, "commit", "-qam", "the change")

    def no_cache() -> None:  # each run below asks the model afresh: what it asks is what it pays for
        shutil.rmtree(tmp_path / "home" / ".cache", ignore_errors=True)  # the fixture's HOME

    no_cache()
    head_only = fake_anthropic(script())  # what the head alone asks of the model
    alone = action(
        repo, pr_event(base), "pull_request", github=github, anthropic=head_only, inputs={"baseline": "none"}
    )
    no_cache()
    fake_llm = fake_anthropic(script())
    run = action(repo, pr_event(base), "pull_request", github=github, anthropic=fake_llm)
    assert alone.code == 1 and run.code == 1, run.log
    assert fake_llm.request_count == head_only.request_count > 0, run.log  # zero base calls
    assert f"reused the results the default branch saved for {base[:12]}" in run.log
    assert run.outputs["regressed"] == "1"
    body = marked(github, 12)[0]["body"]
    assert "no model was called for the base" in body and "1 case got worse" in body
    listed = [r for r in github.requests if r.path == "/repos/octo-org/hello/actions/artifacts"]
    assert listed and listed[-1].query["name"] == f"evalkit-base-{base}"

    # another judge model: the saved results hash differently, and the base runs again
    no_cache()
    fake_llm = fake_anthropic(script())
    other = action(
        repo,
        pr_event(base),
        "pull_request",
        github=github,
        anthropic=fake_llm,
        inputs={"judge_model": "claude-opus-5-5"},
    )
    assert "hash differently for evals/greet.suite.yml" in other.log
    assert fake_llm.request_count > head_only.request_count
