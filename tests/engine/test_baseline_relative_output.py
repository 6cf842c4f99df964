"""`evalkit run --baseline REF` through the real console script, in a real git repository of two
commits, with relative paths as a user types them: the base's results are kept beside the head's,
no request is paid twice, and a base run that fails says why."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from evalkit.engine.base_ref import _failure
from evalkit.testing.fake_anthropic import FakeAnthropicServer
from evalkit.testing.script import Script
from tests.fakes import child_env, model_env

EVALKIT = str(Path(sys.executable).with_name("evalkit"))  # the console script installed beside this Python

GREET = """
name: greet
target: {prompt: "Greet {{ name }}"}
cases:
  - {id: ada, input: {name: Ada}, checks: [{type: contains, value: Ada}]}
  - {id: bob, input: {name: Bob}, checks: [{type: contains, value: Bob}]}
"""
FAREWELL = """
name: farewell
target: {prompt_file: prompts/farewell.j2}
cases:
  - {id: cy, input: {name: Cy}, checks: [{type: contains, value: warm}]}
  - {id: di, input: {name: Di}, checks: [{type: contains, value: warm}]}
"""
SCRIPT = (
    Script()
    .reply("Hello Ada", prompt="Greet Ada")
    .reply("Hello Bob", prompt="Greet Bob")
    .reply("A warm goodbye", prompt="warm goodbye")
    .reply("Bye.", prompt="curt goodbye")
)


def git(repo: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=repo, check=True, capture_output=True
    )


def make_repo(root: Path, base_farewell: str = FAREWELL) -> Path:
    """Two commits: the base says warm goodbyes, head curt ones (its two farewell cases regress)."""
    (root / "evals/prompts").mkdir(parents=True)
    (root / "evals/greet.suite.yml").write_text(GREET, encoding="utf-8")
    (root / "evals/farewell.suite.yml").write_text(base_farewell, encoding="utf-8")
    (root / "evals/prompts/farewell.j2").write_text("Say a warm goodbye to {{ name }}", encoding="utf-8")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", ".")
    git(root, "commit", "-qm", "base")
    (root / "evals/farewell.suite.yml").write_text(FAREWELL, encoding="utf-8")
    (root / "evals/prompts/farewell.j2").write_text("Say a curt goodbye to {{ name }}", encoding="utf-8")
    git(root, "commit", "-qam", "head: curt goodbyes")
    return root


def evalkit(args: list[str], cwd: Path, fake: FakeAnthropicServer) -> subprocess.CompletedProcess[str]:
    env = {
        **child_env(),
        **model_env(fake.url, Path("../.cache/evalkit")),
    }  # relative too: resolved where the user stands
    return subprocess.run([EVALKIT, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=120)


def prompts(fake: FakeAnthropicServer) -> list[str]:
    return sorted(body["messages"][0]["content"] for body in fake.requests)


@pytest.mark.slow
def test_a_relative_output_keeps_the_base_results_beside_the_head_results_and_pays_nothing_twice(
    tmp_path, fake_anthropic
):
    repo = make_repo(tmp_path / "repo")
    command = ["run", "greet.suite.yml", "farewell.suite.yml", "--baseline", "HEAD~1", "--output", "out/r.json"]
    fake = fake_anthropic(SCRIPT)
    first = evalkit(command, repo / "evals", fake)
    made = prompts(fake)
    fake.reset_counts()
    again = evalkit(command, repo / "evals", fake)
    made_again = prompts(fake)

    assert first.returncode == 1, first.stderr  # the farewells regressed: a verdict, not an error
    assert "Traceback" not in first.stdout + first.stderr
    # every distinct request once: the base's four, then only head's two changed prompts
    assert made == sorted(
        [
            "Greet Ada",
            "Greet Bob",
            "Say a warm goodbye to Cy",
            "Say a warm goodbye to Di",
            "Say a curt goodbye to Cy",
            "Say a curt goodbye to Di",
        ]
    )
    assert "base: 4 requests made, 0 from the cache" in first.stdout
    assert "head: 2 requests made, 2 from the cache" in first.stdout
    assert "2 cases got worse, 0 got better" in first.stdout
    out = repo / "evals/out"  # relative to where the command ran, not to the temporary worktree
    assert sorted(p.name for p in out.iterdir()) == [
        "r.base.json",
        "r.base.jsonl",
        "r.compare.json",
        "r.json",
        "r.jsonl",
    ]
    base, head = (json.loads((out / name).read_text()) for name in ("r.base.json", "r.json"))
    verdicts = {c["id"]: c["verdict"] for s in base["suites"] for c in s["cases"]}
    assert verdicts == {"ada": "pass", "bob": "pass", "cy": "pass", "di": "pass"}
    assert {c["id"]: c["verdict"] for s in head["suites"] for c in s["cases"]}["cy"] == "fail"
    assert (tmp_path / "repo/.cache/evalkit").is_dir()  # the one cache, shared by both sides
    # the temporary worktree is gone, and nothing of the run was written into it
    listed = subprocess.run(["git", "worktree", "list"], cwd=repo, capture_output=True, text=True).stdout
    assert len(listed.strip().splitlines()) == 1

    assert again.returncode == 1, again.stderr
    assert made_again == []  # the same command again: every request from the cache, on both sides
    assert "base: 0 requests made, 4 from the cache" in again.stdout
    assert "head: 0 requests made, 4 from the cache" in again.stdout


def test_the_default_output_works_with_a_baseline(tmp_path, fake_anthropic):
    repo = make_repo(tmp_path / "repo")
    fake = fake_anthropic(SCRIPT)
    done = evalkit(["run", "greet.suite.yml", "--baseline", "HEAD~1"], repo / "evals", fake)
    assert done.returncode == 0, done.stderr
    runs = sorted(p.name for p in (repo / "evals/.evalkit/runs").iterdir())
    assert len(runs) == 5 and [n for n in runs if n.endswith(".base.json")], runs


def test_a_base_run_that_fails_says_why(tmp_path, fake_anthropic):
    broken = FAREWELL.replace("cases:", "cases: [")  # the base commit's suite file does not parse
    repo = make_repo(tmp_path / "repo", base_farewell=broken)
    fake = fake_anthropic(SCRIPT)
    done = evalkit(["run", "farewell.suite.yml", "--baseline", "HEAD~1", "-o", "out/r.json"], repo / "evals", fake)
    assert fake.request_count == 0  # refused before any call, on either side
    assert done.returncode == 2
    [line] = done.stderr.strip().splitlines()
    assert line.startswith("evalkit: the run on HEAD~1 (") and "farewell.suite.yml" in line, line
    assert "no message" not in line and "Traceback" not in done.stderr


@pytest.mark.parametrize(
    ("code", "stderr", "said"),
    [
        (0, "", "exit code 0, but no results at /x/r.base.json"),
        (3, "", "exit code 3"),
        (-9, "", "killed by signal 9"),
        (
            1,
            "Traceback (most recent call last):\n  ...\nKeyError: 'anthropic'\n",
            "KeyError: 'anthropic' (exit code 1, but no results at /x/r.base.json)",
        ),
    ],
)
def test_a_silent_failure_of_the_base_process_still_says_what_happened(code, stderr, said):
    done = subprocess.CompletedProcess(args=[], returncode=code, stdout="", stderr=stderr)
    assert _failure(done, Path("/x/r.base.json")) == said
