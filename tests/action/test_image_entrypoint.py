"""The real entrypoint inside the built image, started as GitHub's runner starts a Docker
action, against the loopback fakes of GitHub and the Messages API on the host (chroot
isolation shares the host's network)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_action_entrypoint import EVENTS, HOSTILE, KEY, SUITE, TOKEN, greet_script, make_repo
from test_action_outcomes import glob_accepts

from evalkit.render.comment import MARKER
from evalkit.testing.fake_anthropic import FakeAnthropicServer
from evalkit.testing.fake_github import FakeGitHub

pytestmark = pytest.mark.docker_image


def _files(root: Path) -> set[str]:
    return {p.relative_to(root).as_posix() for p in root.rglob("*")}


def _env(github: FakeGitHub, anthropic: FakeAnthropicServer) -> dict[str, str]:
    return {
        "GITHUB_TOKEN": TOKEN,
        "GITHUB_REPOSITORY": "octo-org/hello",
        "GITHUB_RUN_ID": "777",
        "GITHUB_API_URL": github.url,
        "ANTHROPIC_BASE_URL": anthropic.url,
        "ACTIONS_RUNTIME_TOKEN": "runtime-secret",
    }


def test_entrypoint_in_the_image_comments_once_and_gates(run_action, tmp_path: Path, fake_anthropic, fake_github):
    repo = make_repo(tmp_path / "repo")
    before = _files(repo)
    event = json.loads((EVENTS / "pull_request_opened.json").read_text())
    script = greet_script(reply_bob=HOSTILE, verdict_bob="fail", reason_bob=HOSTILE)
    github = fake_github(token=TOKEN)
    anthropic = fake_anthropic(script)
    for i in range(120):
        github.add_comment(12, f"earlier comment {i}")
    github.set_pr_files(12, [{"filename": "prompts/greet.txt"}])
    inputs = {"anthropic_api_key": KEY}
    first = run_action(repo, inputs=inputs, env=_env(github, anthropic), event=event)
    proc = first.process
    assert proc.returncode == 1, f"stdout:\n{proc.stdout}\nstderr:\n{proc.stderr}"
    ours = [c for c in github.comments(12) if c["body"].startswith(MARKER)]
    assert len(ours) == 1
    second = run_action(repo, inputs=inputs, env=_env(github, anthropic), event=event)
    assert second.process.returncode == 1, second.process.stdout + second.process.stderr
    after = [c for c in github.comments(12) if c["body"].startswith(MARKER)]
    assert [c["id"] for c in after] == [ours[0]["id"]]
    assert anthropic.request_count > 0
    recorded = [r.raw_body for r in github.requests]

    body = after[0]["body"]
    assert "A gate failed" in body and "https://github.com/octo-org/hello/actions/runs/777" in body
    for bad in ("<img", "<script", "https://evil.example", "@octocat", "fixes #1"):
        assert bad not in body
    assert "<!--" not in body[len(MARKER) :]

    bob_line = SUITE.splitlines().index("  - id: bob") + 1
    assert f"::error file=evals/greet.suite.yml,line={bob_line}," in proc.stdout
    assert "::group::FAIL greet" in proc.stdout
    assert first.outputs["verdict"] == "fail"
    assert first.outputs["selected_suites"] == "evals/greet.suite.yml"
    # Results sit in a git-ignored folder of the workspace, named as a later step on the runner
    # finds them and as upload-artifact accepts them (no `.` or `..` segment).
    assert first.outputs["results_path"] == ".evalkit/results/results.json"
    assert glob_accepts(first.outputs["results_path"]) and glob_accepts(first.outputs["comment_path"])
    results = repo / ".evalkit" / "results"
    assert {"results.json", "junit.xml", "comment.md"} <= {p.name for p in results.iterdir()}
    assert "A gate failed" in first.summary
    # Nothing else changed in the workspace, and nothing there is root-owned.
    assert {f for f in _files(repo) if not f.startswith(".evalkit")} == before
    owner = repo.stat().st_uid
    assert all(p.stat().st_uid == owner for p in results.rglob("*"))

    # The key: only in the mask command, never in outputs, summary, files or requests to GitHub.
    log_lines = [line for line in (proc.stdout + proc.stderr).splitlines() if KEY in line]
    assert log_lines == [f"::add-mask::{KEY}"]
    assert KEY not in first.summary and KEY not in json.dumps(first.outputs)
    assert not any(KEY in text for text in recorded)
    for path in results.rglob("*"):
        assert KEY not in path.read_text(errors="replace")


def test_fork_without_key_skips_in_the_image(run_action, tmp_path: Path, fake_anthropic, fake_github):
    repo = make_repo(tmp_path / "repo")
    event = json.loads((EVENTS / "pull_request_synchronize_fork.json").read_text())
    github = fake_github(token=TOKEN)
    anthropic = fake_anthropic(greet_script())
    run = run_action(repo, inputs={"anthropic_api_key": ""}, env=_env(github, anthropic), event=event)
    assert anthropic.request_count == 0
    assert not [r for r in github.requests if r.method in ("POST", "PATCH")]
    assert run.process.returncode == 0, run.process.stdout + run.process.stderr
    assert "::notice" in run.process.stdout
    assert run.outputs["verdict"] == "skipped"
    assert "fork" in run.summary and "not a failure" in run.summary


def test_install_input_in_the_image_gives_targets_the_teams_packages(
    run_action, tmp_path: Path, fake_anthropic, fake_github
):
    from install_workspace import make_install_workspace

    repo = make_install_workspace(tmp_path / "own")
    github = fake_github(token=TOKEN)
    anthropic = fake_anthropic(greet_script())
    run = run_action(
        repo,
        inputs={"anthropic_api_key": KEY, "install": "requirements-eval.txt", "suites": "own-code"},
        env=_env(github, anthropic),
        event={},
        event_name="workflow_dispatch",
    )
    out = run.process.stdout + run.process.stderr
    assert run.process.returncode == 0, out[-4000:]
    assert run.outputs["verdict"] == "pass" and "::group::evalkit: install requirements-eval.txt" in out


def test_targets_in_the_image_see_no_secret(run_action, tmp_path: Path, fake_anthropic, fake_github):
    from test_action_entrypoint import needles_file

    repo = make_repo(tmp_path / "repo")
    needles_file(repo / "needles.json", (KEY, TOKEN, "runtime-secret"))
    event = json.loads((EVENTS / "pull_request_opened.json").read_text())
    github = fake_github(token=TOKEN)
    anthropic = fake_anthropic(greet_script())
    github.set_pr_files(12, [{"filename": "other/x.py"}])
    env = {
        **_env(github, anthropic),
        "EVALKIT_TEST_ENV_DUMP": "/github/workspace/dump.json",
        "EVALKIT_TEST_NEEDLES": "/github/workspace/needles.json",
    }
    run = run_action(repo, inputs={"anthropic_api_key": KEY}, env=env, event=event)
    assert run.process.returncode == 0, (run.process.stdout + run.process.stderr)[-4000:]
    seen = json.loads((repo / "dump.json").read_text())
    for place in ("environ", "proc_self", "proc_parent"):
        for secret in (KEY, TOKEN, "runtime-secret"):
            assert secret not in json.dumps(seen[place]), (place, secret)
    # The entrypoint is non-dumpable: the container's root (no CAP_SYS_PTRACE) cannot even open
    # its environ; where it can, the secrets were wiped from it (the entrypoint test shows that).
    assert "PATH=" in seen["proc_parent"] or "Permission denied" in seen["proc_parent"]
    assert seen["memory_hits"] == []
    # The worker starts without CAP_SYS_PTRACE: the entrypoint's memory is closed to the target.
    assert not seen["cap_eff"] >> 19 & 1 and not seen["cap_bnd"] >> 19 & 1
    assert seen["entrypoint_memory"].startswith("denied"), seen["entrypoint_memory"]
