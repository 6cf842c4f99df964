"""The history the Action keeps, run as the runner runs it against the loopback GitHub and
Messages-API fakes: each push to the default branch records its run in the newest `evalkit-history`
artifact and names the file to upload; a pull request reads it (never uploads), and its comment
shows a case that flips on main as flaky, not as a regression; an unusable artifact is a warning; two
main runs at once lose no run (the next run joins their copies)."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from evalkit.testing.fake_anthropic import FakeAnthropicServer
from evalkit.testing.fake_github import FakeGitHub
from tests.action.test_action_baseline import git, pr_event
from tests.action.test_action_entrypoint import (  # noqa: F401
    EVENTS,
    TOKEN,
    action,
    greet_script,
    make_repo,
    marked,
)

GREET = {"suites": "evals/greet.suite.yml"}
HISTORY = "evalkit-history"


@pytest.fixture
def github(fake_github):
    fake = fake_github(token=TOKEN)
    fake.set_pr_files(12, [{"filename": "prompts/greet.txt"}])
    return fake


def committed(tmp_path: Path) -> Path:
    repo = make_repo(tmp_path / "repo")
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "first")
    return repo


def push_event(repo: Path) -> dict:
    payload = json.loads((EVENTS / "push.json").read_text())
    payload["after"] = git(repo, "rev-parse", "HEAD")
    return payload


def bob_says(verdict: str):
    """The script of a run in which bob's answer passes (a greeting) or fails (no greeting: the
    `contains` check fails too, so one run a side tells it from noise)."""
    if verdict == "pass":
        return greet_script()
    return greet_script(reply_bob="Go away.", verdict_bob="fail", reason_bob="rude")


def main_run(
    action, repo: Path, github: FakeGitHub, tmp_path: Path, bob: str, *, upload: bool = True, inputs: dict | None = None
):
    """One push to main (a commit that changes a watched file, not the suite) in which bob's answer
    `bob`s; like the workflow's upload-artifact steps, the files the outputs name become artifacts."""
    prompt = repo / "prompts/greet.txt"
    prompt.write_text(prompt.read_text() + "x\n")
    git(repo, "commit", "-qam", f"main: {bob}")
    shutil.rmtree(tmp_path / "home" / ".cache", ignore_errors=True)  # the judge is asked afresh each run
    with FakeAnthropicServer(bob_says(bob)) as llm:
        run = action(repo, push_event(repo), "push", github=github, anthropic=llm, inputs={**GREET, **(inputs or {})})
    assert run.code == (0 if bob == "pass" else 1), run.log
    if upload:
        for name, path in (("history_artifact", "history_artifact_path"), ("base_artifact", "base_artifact_path")):
            folder = repo / run.outputs[path]
            github.add_artifact(
                run.outputs[name],
                {p.name: p.read_bytes() for p in folder.iterdir()},
                head_sha=git(repo, "rev-parse", "HEAD"),
            )
    return run


def history_runs(run) -> list[tuple[str, str]]:
    conn = sqlite3.connect(Path(run.file("history_artifact_path")) / "history.sqlite")
    try:
        return conn.execute(
            "SELECT r.branch, c.verdict FROM runs r JOIN case_runs c ON c.run = r.id "
            "WHERE c.case_id = 'bob' ORDER BY r.id"
        ).fetchall()
    finally:
        conn.close()


def pr_run(action, repo: Path, github: FakeGitHub, tmp_path: Path, **kwargs):
    """A pull request based on main's last commit that changes a watched file, not the suite; on head
    bob's answer fails."""
    base = git(repo, "rev-parse", "HEAD")
    git(repo, "checkout", "-qb", "change")
    (repo / "prompts/greet.txt").write_text("changed\n")
    git(repo, "commit", "-qam", "the change")
    shutil.rmtree(tmp_path / "home" / ".cache", ignore_errors=True)
    with FakeAnthropicServer(bob_says("fail")) as llm:
        return action(
            repo,
            pr_event(base),
            "pull_request",
            github=github,
            anthropic=llm,
            inputs={**GREET, **kwargs.get("inputs", {})},
        )


def uploads_named(github: FakeGitHub) -> int:
    return len(
        [r for r in github.requests if r.method != "GET" and "artifacts" in r.path]
    )  # the REST API has no upload: a request here would be one


def test_main_records_each_run_and_a_pr_shows_a_flip_on_main_as_flaky(action, tmp_path, github):
    repo = committed(tmp_path)
    first = main_run(action, repo, github, tmp_path, "pass")
    assert first.outputs["history_artifact"] == HISTORY
    assert "run recorded in the history of main as #1" in first.log
    assert history_runs(first) == [("main", "pass")]
    main_run(action, repo, github, tmp_path, "fail")
    last = main_run(action, repo, github, tmp_path, "pass")
    assert history_runs(last) == [("main", "pass"), ("main", "fail"), ("main", "pass")]  # each run downloads the last
    page = last.file("html_path").read_text(encoding="utf-8")  # the report draws the runs it was recorded after
    assert page.count('<circle class="point"') >= 2 and page.count('<circle class="point current"') >= 1
    assert "Last 3 runs" in page and 'title="#2 · ' in page

    artifacts_before = len(github._artifacts)
    run = pr_run(action, repo, github, tmp_path, inputs={"gate": "regressions"})
    assert run.code == 0, run.log  # the only regression is a flip main shows too
    assert "history of main: 1 flaky case(s)" in run.log
    assert "history_artifact" not in run.outputs and "history_artifact_path" not in run.outputs  # a PR never uploads
    assert len(github._artifacts) == artifacts_before and uploads_named(github) == 0
    body = marked(github, 12)[0]["body"]
    assert "flaky on main (1 of 3)" in body, body
    page = run.file("html_path").read_text(encoding="utf-8")  # main's three runs, then the PR's own
    assert "Last 4 runs" in page and '<span class="tag flaky"' in page
    assert run.outputs["regressed"] == "0"


def test_without_the_history_the_same_flip_is_a_regression(action, tmp_path, github):
    repo = committed(tmp_path)
    for bob in ("pass", "fail", "pass"):
        main_run(action, repo, github, tmp_path, bob)
    seen = len(github.requests)
    run = pr_run(action, repo, github, tmp_path, inputs={"history": "false", "gate": "regressions"})
    assert run.code == 1 and run.outputs["regressed"] == "1", run.log
    assert "flaky on main" not in marked(github, 12)[0]["body"]
    listed = [r.query.get("name") for r in github.requests[seen:] if r.path.endswith("/actions/artifacts")]
    assert HISTORY not in listed


def test_a_history_a_pull_request_uploaded_is_never_read(action, tmp_path, github, fake_github):
    repo = committed(tmp_path)
    elsewhere = fake_github(token=TOKEN)  # main's three runs, kept where this PR cannot see them
    runs = [main_run(action, repo, elsewhere, tmp_path, bob) for bob in ("pass", "fail", "pass")]
    assert history_runs(runs[-1]) == [("main", "pass"), ("main", "fail"), ("main", "pass")]
    files = {p.name: p.read_bytes() for p in (repo / runs[-1].outputs["base_artifact_path"]).iterdir()}
    github.add_artifact(runs[-1].outputs["base_artifact"], files)  # the base's results: main's indeed
    # The same flaky history, uploaded by a run of a PR's branch and by a fork's "main": neither is main's.
    history = {"history.sqlite": (Path(runs[-1].file("history_artifact_path")) / "history.sqlite").read_bytes()}
    github.add_artifact(HISTORY, history, head_branch="change")
    github.add_artifact(HISTORY, history, head_branch="main", fork=True)
    run = pr_run(action, repo, github, tmp_path, inputs={"gate": "regressions"})
    assert "no history yet" in run.log, run.log
    assert run.code == 1 and run.outputs["regressed"] == "1", run.log


@pytest.mark.parametrize(
    "content",
    [
        {"history.sqlite": b"not a database at all"},
        {"README.md": b"someone else's artifact"},
        "not a zip",
    ],
)
def test_an_unusable_history_artifact_is_one_warning_and_the_run_goes_on(action, tmp_path, github, content):
    repo = committed(tmp_path)
    main_run(action, repo, github, tmp_path, "pass")  # a usable history, and the base's results
    if isinstance(content, dict):
        github.add_artifact(HISTORY, content)
    else:
        github.add_artifact(HISTORY, {"history.sqlite": b""})
        aid = github._artifacts[-1]["id"]
        github._archives[aid] = (content.encode(), github._archives[aid][1])
    run = pr_run(action, repo, github, tmp_path)
    assert run.code == 1 and run.outputs["regressed"] == "1", run.log  # compared as without a history
    warnings = [line for line in run.log.splitlines() if line.startswith("::warning") and "history" in line]
    assert len(warnings) == 1, run.log
    assert "no flaky cases known" in warnings[0] or "left out" in warnings[0]

    # on main, the unusable copy is left out (a warning) and the usable one before it goes on
    git(repo, "checkout", "-q", "main")
    pushed = main_run(action, repo, github, tmp_path, "pass", upload=False)
    assert pushed.outputs["history_artifact"] == HISTORY
    assert history_runs(pushed) == [("main", "pass"), ("main", "pass")]
    assert [line for line in pushed.log.splitlines() if line.startswith("::warning") and "left out" in line]


def test_no_actions_read_on_main_records_nothing_rather_than_replace_the_history(action, tmp_path, fake_github):
    github = fake_github(token=TOKEN, actions_read=False)
    repo = committed(tmp_path)
    run = main_run(action, repo, github, tmp_path, "pass", upload=False)
    assert "history_artifact" not in run.outputs, run.log
    assert "actions: read" in run.log and "this run is not recorded" in run.log


def test_two_main_runs_at_once_lose_no_run_the_next_run_joins_them(action, tmp_path, github):
    repo = committed(tmp_path)
    main_run(action, repo, github, tmp_path, "pass")
    # two runs at once: both download the first run's copy, record their own run and upload theirs
    copies = []
    for bob in ("fail", "pass"):
        run = main_run(action, repo, github, tmp_path, bob, upload=False)
        assert [v for _, v in history_runs(run)] == ["pass", bob]
        copies.append((Path(run.file("history_artifact_path")) / "history.sqlite").read_bytes())
    for copy in copies:  # the later upload is the newest, and lacks the other's run
        github.add_artifact(HISTORY, {"history.sqlite": copy})
    after = main_run(action, repo, github, tmp_path, "pass")
    assert "1 run(s) an overlapping upload had left out joined the history" in after.log, after.log
    assert [v for _, v in history_runs(after)] == ["pass", "pass", "fail", "pass"]


def sharded(
    action, repo: Path, github: FakeGitHub, tmp_path: Path, event: dict, name: str, bob: str, inputs: dict | None = None
):
    """Two `shard: I/2` jobs, each results folder downloaded into `shards/I/`, then the `merge` job."""
    shutil.rmtree(repo / "shards", ignore_errors=True)
    for i in (1, 2):
        shutil.rmtree(tmp_path / "home" / ".cache", ignore_errors=True)
        with FakeAnthropicServer(bob_says(bob)) as llm:
            run = action(repo, event, name, github=github, anthropic=llm, inputs={**GREET, "shard": f"{i}/2"})
        assert run.code in (0, 1), run.log
        assert "history_artifact" not in run.outputs  # a shard's results are partial: never recorded
        shutil.copytree(run.results, repo / "shards" / str(i))
    return action(
        repo,
        event,
        name,
        github=github,
        inputs={"merge": "shards/*/results.json", "anthropic_api_key": "", **(inputs or {})},
    )


@pytest.mark.slow
def test_a_sharded_push_to_main_is_recorded_by_its_merge_job(action, tmp_path, github):
    repo = committed(tmp_path)
    main_run(action, repo, github, tmp_path, "fail")
    (repo / "prompts/greet.txt").write_text("sharded\n")
    git(repo, "commit", "-qam", "main: sharded")
    merged = sharded(action, repo, github, tmp_path, push_event(repo), "push", "pass")
    assert merged.outputs["history_artifact"] == HISTORY, merged.log
    assert history_runs(merged) == [("main", "fail"), ("main", "pass")]  # joined to the unsharded run before


@pytest.mark.slow
def test_a_sharded_pull_request_reads_mains_flaky_cases_in_its_merge_job(action, tmp_path, github):
    repo = committed(tmp_path)
    for bob in ("pass", "fail", "pass"):
        main_run(action, repo, github, tmp_path, bob)
    base = git(repo, "rev-parse", "HEAD")
    git(repo, "checkout", "-qb", "change")
    (repo / "prompts/greet.txt").write_text("changed\n")
    git(repo, "commit", "-qam", "the change")
    merged = sharded(
        action, repo, github, tmp_path, pr_event(base), "pull_request", "fail", inputs={"gate": "regressions"}
    )
    assert "history of main: 1 flaky case(s)" in merged.log, merged.log
    assert "history_artifact" not in merged.outputs  # a pull request never writes it


@pytest.mark.slow
def test_the_kept_history_holds_the_newest_history_keep_runs(action, tmp_path, github):
    repo = committed(tmp_path)
    for bob in ("pass", "fail", "pass"):
        last = main_run(action, repo, github, tmp_path, bob, inputs={"history_keep": "2"})
    # the third run joins the two copies before it and records itself: the oldest run goes, and stays gone
    assert history_runs(last) == [("main", "fail"), ("main", "pass")]
    assert "1 run(s) older than the newest 2 removed from the history (history_keep)" in last.log, last.log
