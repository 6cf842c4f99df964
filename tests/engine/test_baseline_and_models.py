"""`evalkit run --baseline REF` on a temporary git repository, and `--model A --model B`, against
the loopback fake: only changed prompts make new requests; the tables show the differences."""

from __future__ import annotations

import json
import subprocess

import pytest
from click.testing import CliRunner

from evalkit.cli.commands import main
from evalkit.testing.script import Script, requested_tool
from tests.conftest import verdicts

A_SUITE = """
name: greet
target: {prompt: "Greet {{ name }}"}
cases:
  - {id: ada, input: {name: Ada}, checks: [{type: contains, value: Ada}]}
  - {id: bob, input: {name: Bob}, checks: [{type: contains, value: Bob}]}
"""
B_SUITE = """
name: farewell
target: {prompt_file: prompts/farewell.j2}
cases:
  - {id: cy, input: {name: Cy}, checks: [{type: contains, value: warm}]}
  - {id: di, input: {name: Di}, checks: [{type: contains, value: warm}]}
"""


def invoke(args, env=None):
    return CliRunner().invoke(main, [str(a) for a in args], env=env, catch_exceptions=False)


def git(repo, *args):
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=repo, check=True, capture_output=True
    )


@pytest.fixture
def repo(tmp_path, write):
    root = tmp_path / "repo"
    write("repo/a.suite.yml", A_SUITE)
    write("repo/b.suite.yml", B_SUITE)
    write("repo/prompts/farewell.j2", "Say a warm goodbye to {{ name }}")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", ".")
    git(root, "commit", "-qm", "base")
    write("repo/prompts/farewell.j2", "Say a curt goodbye to {{ name }}")
    git(root, "commit", "-qam", "head: curt goodbyes")
    return root


def test_baseline_runs_the_base_commit_and_only_the_changed_prompt_makes_new_requests(
    repo, tmp_path, monkeypatch, fake_anthropic, anthropic_env
):
    script = (
        Script()
        .reply("Hello Ada", prompt="Greet Ada")
        .reply("Hello Bob", prompt="Greet Bob")
        .reply("A warm goodbye", prompt="warm goodbye")
        .reply("Bye.", prompt="curt goodbye")
    )
    monkeypatch.chdir(repo)
    fake = fake_anthropic(script)
    env = anthropic_env(fake)
    result = invoke(
        [
            "run",
            "a.suite.yml",
            "b.suite.yml",
            "--baseline",
            "HEAD~1",
            "-o",
            str(tmp_path / "out/head.json"),
            "--html",
            tmp_path / "head.html",
        ],
        env=env,
    )
    prompts = [b["messages"][0]["content"] for b in fake.requests]
    assert result.exit_code == 1, result.output
    # base: four requests; head: only the two cases whose prompt changed
    assert sorted(prompts) == sorted(
        [
            "Greet Ada",
            "Greet Bob",
            "Say a warm goodbye to Cy",
            "Say a warm goodbye to Di",
            "Say a curt goodbye to Cy",
            "Say a curt goodbye to Di",
        ]
    )
    assert "base: 4 requests made, 0 from the cache" in result.output
    assert "head: 2 requests made, 2 from the cache" in result.output
    assert "2 cases got worse, 0 got better" in result.output
    cmp = json.loads((tmp_path / "out/head.compare.json").read_text())
    changes = {c["id"]: c["change"] for s in cmp["suites"] for c in s["cases"]}
    assert changes == {"ada": "still passing", "bob": "still passing", "cy": "regressed", "di": "regressed"}
    assert cmp["changed_files"] == ["prompts/farewell.j2"]
    assert cmp["base_commit"] != cmp["head_commit"]
    page = (tmp_path / "head.html").read_text()  # the HTML report shows base vs head, outputs side by side
    assert "regressed (2)" in page and "Output on HEAD~1" in page and "Say a curt goodbye to Cy" in page
    # the temporary worktree is gone
    listed = subprocess.run(["git", "worktree", "list"], cwd=repo, capture_output=True, text=True).stdout
    assert len(listed.strip().splitlines()) == 1
    # gate: thresholds alone fails too here (head's checks fail); regressions-only ignores pre-existing ones
    again = invoke(
        ["run", "a.suite.yml", "--baseline", "HEAD~1", "--gate", "regressions", "-o", str(tmp_path / "out/a.json")],
        env=env,
    )
    assert again.exit_code == 0, again.output
    assert "base: 0 requests made, 2 from the cache" in again.output


def test_a_bad_baseline_ref_is_one_line_and_exit_2(repo, monkeypatch, tmp_path):
    monkeypatch.chdir(repo)
    result = invoke(["run", "a.suite.yml", "--baseline", "no-such-ref"], env={"ANTHROPIC_API_KEY": "k"})
    assert result.exit_code == 2
    assert result.output.strip().splitlines() == [
        f"evalkit: --baseline no-such-ref: no such commit in {repo.resolve()} (fetch it first)"
    ]


MODEL_SUITE = """
name: greet
judge_model: claude-haiku-4-5-20251001
target: {prompt: "Greet {{ name }}"}
cases:
  - {id: ada, input: {name: Ada}, checks: [{type: contains, value: Ada}]}
  - {id: bob, input: {name: Bob}, checks: [{type: contains, value: Bob}], rubric: [{id: warm, judge: "is warm"}]}
"""


def test_two_models_side_by_side_show_the_difference_dollars_and_latency(
    write, tmp_path, fake_anthropic, anthropic_env
):
    suite = write("s.yml", MODEL_SUITE)
    script = (
        Script()
        .tool_reply("record_verdicts", verdicts({"warm": "pass"}))
        .reply("Hello Ada", prompt="Greet Ada")
        .reply("Hello Bob", prompt="Greet Bob", model="claude-sonnet-4-6")
        .reply("Hi there", prompt="Greet Bob", model="claude-opus-4-6")
    )
    fake = fake_anthropic(script, latency=0.01)
    env = anthropic_env(fake)
    out = tmp_path / "mc.json"
    result = invoke(
        [
            "run",
            suite,
            "--model",
            "claude-sonnet-4-6",
            "--model",
            "claude-opus-4-6",
            "-o",
            out,
            "--markdown",
            tmp_path / "mc.md",
            "--html",
            tmp_path / "mc.html",
        ],
        env=env,
    )
    judged = {b["model"] for b in fake.requests if requested_tool(b)}
    assert result.exit_code == 1, result.output  # opus fails bob's check
    assert judged == {"claude-haiku-4-5-20251001"}
    assert "1 of 2 cases differ between claude-sonnet-4-6 and claude-opus-4-6" in result.output
    assert "The judge is the same for every model: claude-haiku-4-5-20251001." in result.output
    data = json.loads(out.read_text())
    bob = next(r for r in data["rows"] if r["id"] == "bob")
    assert bob["differs"] and bob["verdicts"] == {"claude-sonnet-4-6": "pass", "claude-opus-4-6": "fail"}
    assert not next(r for r in data["rows"] if r["id"] == "ada")["differs"]
    sonnet, opus = data["columns"]
    assert sonnet["stats"]["pass_rate"] == 1.0 and opus["stats"]["pass_rate"] == 0.5
    assert 0 < sonnet["model_cost_usd"] < opus["model_cost_usd"]  # same tokens, opus costs more
    assert sonnet["stats"]["latency_median"] >= 0.01 and opus["stats"]["latency_p95"] >= 0.01
    md = (tmp_path / "mc.md").read_text()
    assert "**`greet/bob`**" in md and "Run latency median / p95" in md
    assert (tmp_path / "mc.claude-opus-4-6.json").exists()
    page = (tmp_path / "mc.html").read_text()  # the last model against the first
    assert "claude-sonnet-4-6 → claude-opus-4-6" in page and "Output on claude-sonnet-4-6" in page


def test_compare_models_in_the_suite_file(write, tmp_path, fake_anthropic, anthropic_env):
    suite = write(
        "s.yml",
        "compare_models: [claude-sonnet-4-6, claude-opus-4-6]\n"
        + MODEL_SUITE.replace(', rubric: [{id: warm, judge: "is warm"}]', ""),
    )
    script = Script().reply("Hello Ada", prompt="Greet Ada").reply("Hello Bob", prompt="Greet Bob")
    fake = fake_anthropic(script)
    env = anthropic_env(fake)
    result = invoke(["run", suite, "-o", tmp_path / "mc.json"], env=env)
    assert {b["model"] for b in fake.requests} == {"claude-sonnet-4-6", "claude-opus-4-6"}
    assert result.exit_code == 0, result.output
    assert "0 of 2 cases differ" in result.output
