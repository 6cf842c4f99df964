"""Every exit of the entrypoint, run as the runner runs it against the loopback fakes: the
comment, the summary and the outputs never show a stale verdict; paths later steps can use;
the comment found by the token's identity, per key, and converged when runs overlap."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from test_action_entrypoint import EVENTS, SUITE, TOKEN, action, github, greet_script, marked, repo  # noqa: F401 - fixtures

from evalkit.render.comment import MARKER, MAX_COMMENT_CHARS
from evalkit.testing.script import Script, request_text

GREEN = MARKER + "\n## ✅ evalkit: All gates passed\n"


def glob_accepts(pattern: str) -> bool:
    """The rule @actions/glob applies to each path given to actions/upload-artifact (Pattern's
    fixupPattern): not empty, no `..` segment, a `.` segment only first."""
    segments = [s for s in pattern.split("/") if s]  # @actions/glob's Path drops empty segments
    return bool(segments) and all((s != "." or i == 0) and s != ".." for i, s in enumerate(segments))


def test_the_glob_rule_itself():
    assert glob_accepts(".evalkit/results/results.json") and glob_accepts("/home/runner/_temp/evalkit/r.json")
    assert glob_accepts("./results.json")
    assert not glob_accepts("../../_temp/evalkit/results.json") and not glob_accepts("a/./b") and not glob_accepts("")


def test_output_paths_are_accepted_by_upload_artifact_and_name_the_files(action, repo, github, fake_anthropic):
    github.set_pr_files(12, [{"filename": "prompts/greet.txt"}])
    fake_llm = fake_anthropic(greet_script())
    run = action(repo, "pull_request_opened.json", "pull_request", github=github, anthropic=fake_llm)
    assert run.code == 0, run.log
    for name in ("results_path", "html_path", "comment_path"):
        assert glob_accepts(run.outputs[name]), run.outputs[name]
        assert (repo / run.outputs[name]).is_file()  # later steps run in the workspace
    git = subprocess.run(["git", "init", "-q", str(repo)], check=True)
    status = subprocess.run(
        ["git", "-C", str(repo), "status", "--porcelain", "--untracked-files=all"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert git.returncode == 0 and ".evalkit" not in status


def test_a_broken_suite_after_a_green_run_turns_the_comment_red(action, repo, github, fake_anthropic):
    github.set_pr_files(12, [{"filename": "prompts/greet.txt"}])
    fake_llm = fake_anthropic(greet_script())
    green = action(repo, "pull_request_opened.json", "pull_request", github=github, anthropic=fake_llm)
    assert green.code == 0 and "All gates passed" in marked(github, 12)[0]["body"]
    (repo / "evals" / "greet.suite.yml").write_text(SUITE.replace("cases:", "bogus: 1\ncases:"))
    broken = action(repo, "pull_request_opened.json", "pull_request", github=github)
    assert broken.code == 2
    (comment,) = marked(github, 12)
    line = SUITE.splitlines().index("cases:") + 1
    for text in (comment["body"], broken.summary):
        assert "evals could not run" in text and "All gates passed" not in text
        assert f"`evals/greet.suite.yml:{line}`" in text and "bogus" in text
    assert broken.outputs["verdict"] == "error" and broken.outputs["comment_id"] == str(comment["id"])
    assert (repo / broken.outputs["comment_path"]).read_text() == comment["body"]


def test_an_unknown_suite_updates_comment_summary_and_outputs(action, repo, github):
    github.add_comment(12, GREEN, login="github-actions[bot]", user_type="Bot")
    run = action(repo, "pull_request_opened.json", "pull_request", github=github, inputs={"suites": "nope"})
    assert run.code == 2
    (comment,) = marked(github, 12)
    assert "evals could not run" in comment["body"] and "nope" in comment["body"]
    assert "evals could not run" in run.summary and run.outputs["verdict"] == "error"


MANY = """\
name: many
target:
  prompt: "ANSWER {{ input.who }}"
rubrics:
  r:
    - {id: polite, judge: "The reply is polite"}
cases:
""" + "".join(f"  - id: case{i}\n    input: {{who: p{i}}}\n    rubric: r\n" for i in range(8))


def test_a_1mb_reason_leaves_every_other_case_in_the_comment_and_a_small_log(action, tmp_path, github, fake_anthropic):
    repo = tmp_path / "many"
    (repo / "evals").mkdir(parents=True)
    (repo / "evals" / "many.suite.yml").write_text(MANY)

    def judge(body: dict) -> dict:
        text = request_text(body)
        who = next(f"p{i}" for i in range(8) if f"reply to p{i}." in text)
        reason = "Z" * 1_000_000 if who == "p0" else f"reason-of-{who}"
        return {"items": [{"id": "polite", "reason": reason, "verdict": "fail"}]}

    def answer(body: dict) -> str:
        who = request_text(body).split("ANSWER ", 1)[1].split()[0]
        return f"reply to {who}. " + ("Y" * 1_000_000 if who == "p0" else "")

    script = Script().respond(answer, prompt="ANSWER").respond(judge, tool="record_verdicts")
    fake_llm = fake_anthropic(script)
    run = action(
        repo,
        "workflow_dispatch.json",
        "workflow_dispatch",
        github=github,
        anthropic=fake_llm,
        inputs={"suites": "many"},
    )
    assert run.code == 1, run.log[-3000:]
    body = (repo / run.outputs["comment_path"]).read_text()
    assert len(body) <= MAX_COMMENT_CHARS
    for i in range(1, 8):
        assert f"reason-of-p{i}" in body and f"<code>case{i}</code>" in body
    assert "more characters in results.json" in body and "model calls" in body
    # The job summary carries the whole report with a larger cap; the log stays small.
    assert "reason-of-p7" in run.summary and len(run.summary.encode()) <= 1024 * 1024
    assert len(run.log) < 200_000, len(run.log)


def test_a_personal_token_edits_its_own_comment(action, repo, fake_github):
    gh = fake_github(token=TOKEN, user_login="octocat")
    gh.set_pr_files(12, [{"filename": "README.md"}])
    first = action(repo, "pull_request_opened.json", "pull_request", github=gh)
    second = action(repo, "pull_request_opened.json", "pull_request", github=gh)
    comments = marked(gh, 12)
    assert first.code == 0 and second.code == 0, second.log
    assert len(comments) == 1 and comments[0]["user"]["login"] == "octocat"
    assert second.outputs["comment_id"] == first.outputs["comment_id"] == str(comments[0]["id"])
    assert second.outputs["comment_url"].endswith(f"#issuecomment-{comments[0]['id']}")


def test_two_comment_keys_keep_two_comments(action, repo, github):
    github.set_pr_files(12, [{"filename": "README.md"}])
    runs = [
        action(repo, "pull_request_opened.json", "pull_request", github=github, inputs={"comment_key": key})
        for key in ("py311", "py312", "py311")
    ]
    assert all(r.code == 0 for r in runs), runs[-1].log
    ours = [c for c in github.comments(12) if c["body"].startswith("<!-- evalkit:comment:")]
    assert sorted(c["body"].split("\n", 1)[0] for c in ours) == [
        "<!-- evalkit:comment:py311 -->",
        "<!-- evalkit:comment:py312 -->",
    ]
    assert runs[0].outputs["comment_id"] == runs[2].outputs["comment_id"] != runs[1].outputs["comment_id"]


def test_the_default_key_is_the_workflow_and_job(action, repo, github):
    github.set_pr_files(12, [{"filename": "README.md"}])
    for job in ("evals", "evals", "smoke"):
        run = action(
            repo,
            "pull_request_opened.json",
            "pull_request",
            github=github,
            extra_env={"GITHUB_WORKFLOW": "LLM evals", "GITHUB_JOB": job},
        )
        assert run.code == 0, run.log
    heads = sorted(c["body"].split("\n", 1)[0] for c in github.comments(12))
    assert heads == ["<!-- evalkit:comment:LLM-evals.evals -->", "<!-- evalkit:comment:LLM-evals.smoke -->"]


def test_two_overlapping_runs_end_with_one_comment(action, repo, fake_github):
    # Both runs list the comments before either creates one (the fake holds each POST until
    # both have arrived), so both create; each then re-lists and one deletes its own.
    gh = fake_github(token=TOKEN, create_barrier=2)
    gh.set_pr_files(12, [{"filename": "README.md"}])
    runs: list = [None, None]

    def go(i: int) -> None:
        runs[i] = action(repo, "pull_request_opened.json", "pull_request", github=gh)

    threads = [threading.Thread(target=go, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len([r for r in gh.requests if r.method == "POST"]) == 2
    comments = marked(gh, 12)
    assert all(r.code == 0 for r in runs), [r.log for r in runs]
    assert len(comments) == 1
    assert {r.outputs["comment_id"] for r in runs} == {str(comments[0]["id"])}


def test_github_5xx_and_secondary_rate_limits_are_retried(action, repo, github):
    github.set_pr_files(12, [{"filename": "README.md"}])
    github.fail_next(502, "Bad Gateway")
    github.fail_next(403, "You have exceeded a secondary rate limit", {"Retry-After": "1"})
    run = action(repo, "pull_request_opened.json", "pull_request", github=github)
    assert run.code == 0, run.log
    assert len(marked(github, 12)) == 1 and "::warning" not in run.proc.stdout


def test_missing_key_fails_on_a_same_repo_pr_and_skips_when_asked(action, repo, github):
    github.add_comment(12, GREEN, login="github-actions[bot]", user_type="Bot")
    failed = action(repo, "pull_request_opened.json", "pull_request", github=github, inputs={"anthropic_api_key": ""})
    assert failed.code == 2 and failed.outputs["verdict"] == "error"
    (comment,) = marked(github, 12)
    assert "no API key" in comment["body"] and "All gates passed" not in comment["body"]
    skipped = action(
        repo,
        "pull_request_opened.json",
        "pull_request",
        github=github,
        inputs={"anthropic_api_key": "", "on_missing_key": "skip"},
    )
    assert skipped.code == 0 and skipped.outputs["verdict"] == "skipped"
    assert "not a failure" in marked(github, 12)[0]["body"]


@pytest.mark.slow
def test_pull_request_target_on_a_fork_head_is_refused(action, repo, github, fake_anthropic):
    event = json.loads((EVENTS / "pull_request_synchronize_fork.json").read_text())
    fake_llm = fake_anthropic(greet_script())
    refused = action(repo, event, "pull_request_target", github=github, anthropic=fake_llm)
    assert fake_llm.request_count == 0
    assert refused.code == 2
    assert "refusing to run" in refused.summary and "pull_request_target" in refused.summary
    assert refused.outputs["verdict"] == "error"
    # The base branch checked out (pull_request_target's default) is not the fork's code.
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.com"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-qm", "base"], check=True)
    base = action(repo, event, "pull_request_target", github=github, inputs={"suites": "greet"})
    assert "refusing" not in base.proc.stdout
    allowed = action(
        repo,
        event,
        "pull_request_target",
        github=github,
        inputs={"allow_pull_request_target_fork": "true", "anthropic_api_key": ""},
    )
    assert allowed.code == 0 and "refusing" not in allowed.summary


def test_math_and_issue_references_in_model_output_are_neutralised(action, repo, github, fake_anthropic):
    github.set_pr_files(12, [{"filename": "prompts/greet.txt"}])
    hostile = r"$$\text{✅ ALL GATES PASSED}$$ and $x$ see #7 and octo/repo#8"
    fake_llm = fake_anthropic(greet_script(reply_bob="x", verdict_bob="fail", reason_bob=hostile))
    run = action(repo, "pull_request_opened.json", "pull_request", github=github, anthropic=fake_llm)
    assert run.code == 1, run.log
    body = marked(github, 12)[0]["body"]
    assert "$" not in body.split("model calls")[0] and "ALL GATES PASSED" in body
    assert " #7" not in body and "`#7`" in body and "`octo/repo#8`" in body


@pytest.mark.slow
@pytest.mark.parametrize("route", ["python -m evalkit.action", "evalkit action"])
def test_install_input_gives_targets_the_teams_own_packages(action, tmp_path, github, route):
    from install_workspace import PACKAGE, make_install_workspace

    # The second route: the CLI command on the runner's own Python, as a workflow step runs it.
    command = [str(Path(sys.executable).with_name("evalkit")), "action"] if route == "evalkit action" else None
    repo = make_install_workspace(tmp_path / "own")
    without = action(
        repo,
        "workflow_dispatch.json",
        "workflow_dispatch",
        github=github,
        inputs={"suites": "own-code"},
        command=command,
    )
    assert without.outputs["verdict"] == "error" and f"No module named '{PACKAGE}'" in without.log
    run = action(
        repo,
        "workflow_dispatch.json",
        "workflow_dispatch",
        github=github,
        inputs={"install": "requirements-eval.txt", "suites": "own-code"},
        command=command,
    )
    assert run.code == 0, run.log[-3000:]
    assert run.outputs["verdict"] == "pass" and "::group::evalkit: install requirements-eval.txt" in run.log
    assert re.search(r"Successfully installed evalkit[-_]test[-_]greetlib-1\.0", run.log)


def test_a_failed_install_is_a_setup_error_in_the_comment(action, tmp_path, github):
    from install_workspace import make_install_workspace

    repo = make_install_workspace(tmp_path / "own", broken=True)
    github.add_comment(12, GREEN, login="github-actions[bot]", user_type="Bot")
    run = action(
        repo,
        "pull_request_opened.json",
        "pull_request",
        github=github,
        inputs={"install": "requirements-eval.txt", "suites": "own-code"},
    )
    assert run.code == 2 and run.outputs["verdict"] == "error"
    (comment,) = marked(github, 12)
    assert "evals could not run" in comment["body"] and "pip install -r requirements-eval.txt" in comment["body"]
