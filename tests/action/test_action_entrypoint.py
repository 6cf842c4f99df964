"""The action's entrypoint run as GitHub's runner runs it: `python -m evalkit.action` in a
subprocess with INPUT_* variables, an event payload, GITHUB_OUTPUT / GITHUB_STEP_SUMMARY
files, the loopback GitHub fake and the loopback Messages-API fake."""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from evalkit.render.comment import MARKER
from evalkit.testing.fake_anthropic import FakeAnthropicServer
from evalkit.testing.fake_github import FakeGitHub
from evalkit.testing.script import Script

REPO_ROOT = Path(__file__).resolve().parents[2]
EVENTS = REPO_ROOT / "tests" / "github" / "events"
KEY = "sk-ant-api03-EVALKIT-FAKE-KEY-q7Zx9-do-not-leak"
TOKEN = "ghs_fakeTokenForEvalkitTests0123456789"

HOSTILE = (
    "@octocat and @org/team look <img src=x onerror=alert(1)> <script>alert(1)</script> "
    "![beacon](https://evil.example/pixel.png?u=1) " + MARKER + " <!-- hidden --> "
    "fixes #1 [click](https://evil.example/phish)"
)

SUITE = """\
name: greet
description: Greets people by name.
target:
  prompt: "GREET {{ input.who }} politely."
watch: ["prompts/**", "./greet.suite.yml"]
checks:
  - {type: contains, value: "Hello"}
rubrics:
  manners:
    - {id: polite, judge: "The reply is polite"}
cases:
  - id: ada
    input: {who: Ada}
    rubric: manners
  - id: bob
    input: {who: Bob}
    rubric: manners
"""

ENV_SUITE = """\
name: envdump
target: envdump_target:run
watch: ["other/**"]
checks:
  - {type: contains, value: "Hello"}
cases:
  - id: dump
    input: {}
"""

ENV_TARGET = """\
import hashlib, json, os


def _read(path):
    try:
        with open(path, "rb") as fh:
            return fh.read().decode("utf-8", "replace")
    except OSError as exc:
        return f"unreadable: {exc}"


def _memory_hits(needles):
    # Scan this process's own readable memory for the secrets, knowing only a prefix, the
    # length and the hash of each (so the scan itself cannot bring them into memory).
    found = set()
    with open("/proc/self/maps") as maps, open("/proc/self/mem", "rb", 0) as mem:
        for line in maps:
            addr, perms = line.split()[:2]
            start, end = (int(x, 16) for x in addr.split("-"))
            if not perms.startswith("r") or end - start > 1 << 30:
                continue
            try:
                mem.seek(start)
                chunk = mem.read(end - start)
            except (OSError, ValueError, OverflowError):
                continue
            for i, n in enumerate(needles):
                prefix = n["prefix"].encode()
                pos = chunk.find(prefix)
                while pos != -1:
                    if hashlib.sha256(chunk[pos:pos + n["length"]]).hexdigest() == n["sha256"]:
                        found.add(i)
                    pos = chunk.find(prefix, pos + 1)
    return sorted(found)


def _status(pid, field):
    with open(f"/proc/{pid}/status") as fh:
        return next(line.split()[1] for line in fh if line.startswith(field + ":"))


def _memory_of(pid):
    # Read 16 bytes of the first readable mapping of another process's memory.
    try:
        with open(f"/proc/{pid}/maps") as maps:
            first = next(line for line in maps if line.split()[1].startswith("r"))
        with open(f"/proc/{pid}/mem", "rb", 0) as mem:
            mem.seek(int(first.split("-")[0], 16))
            return f"read {len(mem.read(16))} bytes"
    except OSError as exc:
        return f"denied: {exc.strerror}"


def run(input):
    entrypoint = int(_status(os.getppid(), "PPid"))  # this process <- the evalkit worker <- the entrypoint
    dump = {"environ": dict(os.environ), "proc_self": _read("/proc/self/environ"),
            "proc_parent": _read(f"/proc/{os.getppid()}/environ"), "memory_hits": None,
            "cap_eff": int(_status("self", "CapEff"), 16), "cap_bnd": int(_status("self", "CapBnd"), 16),
            "entrypoint_memory": _memory_of(entrypoint)}
    needles = os.environ.get("EVALKIT_TEST_NEEDLES")
    if needles:
        with open(needles) as fh:
            dump["memory_hits"] = _memory_hits(json.load(fh))
    with open(os.environ["EVALKIT_TEST_ENV_DUMP"], "w") as fh:
        json.dump(dump, fh)
    return "Hello"
"""


def make_repo(root: Path) -> Path:
    """A tiny user repository: two suites listed in evalkit.yml."""
    files = {
        "evalkit.yml": "suites:\n  - evals/greet.suite.yml\n  - evals/envdump.suite.yml\n",
        "evals/greet.suite.yml": SUITE,
        "evals/envdump.suite.yml": ENV_SUITE,
        "evals/envdump_target.py": ENV_TARGET,
        "prompts/greet.txt": "unused\n",
        "README.md": "hello\n",
    }
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def greet_script(reply_bob: str = "Hello Bob!", verdict_bob: str = "pass", reason_bob: str = "polite") -> Script:
    def judge_items(verdict: str, reason: str) -> dict:
        return {"items": [{"id": "polite", "reason": reason, "verdict": verdict}]}

    return (
        Script()
        .reply("Hello Ada!", prompt="GREET Ada")
        .reply(reply_bob, prompt="GREET Bob")
        .tool_reply("record_verdicts", judge_items("pass", "polite"), prompt="Hello Ada!")
        .tool_reply("record_verdicts", judge_items(verdict_bob, reason_bob))
    )


def action_defaults() -> dict[str, str]:
    meta = yaml.safe_load((REPO_ROOT / "action.yml").read_text())
    return {name: str(spec.get("default", "")) for name, spec in meta["inputs"].items()}


def parse_outputs(text: str) -> dict[str, str]:
    values: dict[str, str] = {}
    lines = iter(text.splitlines())
    for line in lines:
        name, delim = line.split("<<", 1)
        body = []
        for inner in lines:
            if inner == delim:
                break
            body.append(inner)
        values[name] = "\n".join(body)
    return values


@dataclass
class Run:
    proc: subprocess.CompletedProcess
    outputs: dict[str, str]
    summary: str
    results: Path

    @property
    def code(self) -> int:
        return self.proc.returncode

    @property
    def log(self) -> str:
        return self.proc.stdout + self.proc.stderr

    def file(self, output: str) -> Path:
        """The file an output names, read as a later step does (relative to the workspace)."""
        return self.results.parents[1] / self.outputs[output]


@pytest.fixture
def action(tmp_path: Path):
    """action(workspace, event_file, event_name, inputs=..., github=..., anthropic=..., command=...) -> Run;
    `command` replaces `python -m evalkit.action` (e.g. the `evalkit action` CLI command)."""
    counter = iter(range(1000))

    def run(
        workspace: Path,
        event: str | dict,
        event_name: str,
        *,
        inputs: dict[str, str] | None = None,
        github: FakeGitHub | None = None,
        anthropic: FakeAnthropicServer | None = None,
        extra_env: dict[str, str] | None = None,
        command: list[str] | None = None,
    ) -> Run:
        n = next(counter)
        work = tmp_path / f"runner-{n}"
        (work / "temp").mkdir(parents=True)
        payload = json.loads((EVENTS / event).read_text()) if isinstance(event, str) else event
        (work / "event.json").write_text(json.dumps(payload))
        values = action_defaults()
        values.update({"github_token": TOKEN, "anthropic_api_key": KEY, "concurrency": "4"})
        values.update(inputs or {})
        env = {
            "PATH": os.environ.get("PATH", ""),
            "HOME": str(tmp_path / "home"),
            "LANG": "C.UTF-8",
            "CI": "true",
            "GITHUB_ACTIONS": "true",
            "GITHUB_WORKSPACE": str(workspace),
            "GITHUB_EVENT_NAME": event_name,
            "GITHUB_EVENT_PATH": str(work / "event.json"),
            "GITHUB_OUTPUT": str(work / "output"),
            "GITHUB_STEP_SUMMARY": str(work / "summary"),
            "GITHUB_ENV": str(work / "env"),
            "GITHUB_REPOSITORY": "octo-org/hello",
            "GITHUB_SERVER_URL": "https://github.com",
            "GITHUB_RUN_ID": "4242",
            "GITHUB_SHA": "a" * 40,
            "GITHUB_TOKEN": TOKEN,
            "ACTIONS_RUNTIME_TOKEN": "actions-runtime-secret",
            "ACTIONS_ID_TOKEN_REQUEST_TOKEN": "oidc-secret",
            "RUNNER_TEMP": str(work / "temp"),
            "GITHUB_API_URL": github.url if github else "http://127.0.0.1:9",
            "ANTHROPIC_BASE_URL": anthropic.url if anthropic else "http://127.0.0.1:9",
            **{f"INPUT_{k.upper()}": v for k, v in values.items()},
            # The code under test is the caller's (a checkout other than the installed one, too).
            **({"PYTHONPATH": os.environ["PYTHONPATH"]} if os.environ.get("PYTHONPATH") else {}),
            **(extra_env or {}),
        }
        for name in ("output", "summary", "env"):
            (work / name).touch()
        proc = subprocess.run(
            command or [sys.executable, "-m", "evalkit.action"],
            env=env,
            cwd=workspace,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        return Run(
            proc,
            parse_outputs((work / "output").read_text()),
            (work / "summary").read_text(),
            workspace / ".evalkit" / "results",
        )

    return run


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo")


@pytest.fixture
def github(fake_github):
    return fake_github(token=TOKEN)


def marked(fake: FakeGitHub, number: int) -> list[dict]:
    return [c for c in fake.comments(number) if c["body"].startswith(MARKER)]


@pytest.mark.slow
def test_second_run_edits_the_first_comment_even_behind_120_others(action, repo, github, fake_anthropic):
    for i in range(120):
        github.add_comment(12, f"comment {i}", login=f"user{i % 7}")
    github.set_pr_files(12, [{"filename": "prompts/greet.txt"}])
    fake_llm = fake_anthropic(greet_script())
    first = action(repo, "pull_request_opened.json", "pull_request", github=github, anthropic=fake_llm)
    assert first.code == 0, first.log
    ours = marked(github, 12)
    assert len(ours) == 1
    second = action(repo, "pull_request_opened.json", "pull_request", github=github, anthropic=fake_llm)
    assert second.code == 0, second.log
    after = marked(github, 12)
    assert [c["id"] for c in after] == [ours[0]["id"]], "the second run must edit, not add"
    assert len(github.comments(12)) == 121
    patches = [r for r in github.requests if r.method == "PATCH"]
    assert len(patches) == 1 and patches[0].path.endswith(f"/comments/{ours[0]['id']}")
    # Both pages of the comment list were read.
    pages = [r for r in github.requests if r.method == "GET" and r.path.endswith("/issues/12/comments")]
    assert len(pages) >= 4
    body = after[0]["body"]
    assert "All gates passed" in body and "greet" in body
    assert "https://github.com/octo-org/hello/actions/runs/4242" in body
    # The HTML report sits beside the results, and the comment points to the run's artifacts.
    assert first.outputs["html_path"] == ".evalkit/results/report.html"
    assert "<!DOCTYPE html>" in first.file("html_path").read_text()
    assert "[run's artifacts](https://github.com/octo-org/hello/actions/runs/4242#artifacts)" in body
    assert first.outputs["verdict"] == "pass"
    assert first.outputs["selected_suites"] == "evals/greet.suite.yml"
    assert first.file("results_path").is_file() and first.file("comment_path").read_text().startswith(MARKER)
    assert (first.results / "junit.xml").is_file()
    assert "::group::PASS greet" in first.proc.stdout
    assert "All gates passed" in first.summary
    # Results sit in a git-ignored folder of the workspace.
    assert first.outputs["results_path"] == ".evalkit/results/results.json"
    assert (repo / ".evalkit" / ".gitignore").read_text().splitlines()[-1] == "*"


@pytest.mark.slow
def test_failing_gate_exits_1_with_an_annotation_on_the_case_line(action, repo, github, fake_anthropic):
    github.set_pr_files(12, [{"filename": "prompts/greet.txt"}])
    script = greet_script(reply_bob="Go away.", verdict_bob="fail", reason_bob="rude")
    fake_llm = fake_anthropic(script)
    run = action(repo, "pull_request_opened.json", "pull_request", github=github, anthropic=fake_llm)
    assert run.code == 1, run.log
    assert run.outputs["verdict"] == "fail"
    bob_line = SUITE.splitlines().index("  - id: bob") + 1
    assert f"::error file=evals/greet.suite.yml,line={bob_line},title=evalkit greet%3A bob fail::" in run.proc.stdout
    lenient = action(
        repo,
        "pull_request_opened.json",
        "pull_request",
        github=github,
        anthropic=fake_llm,
        inputs={"fail_on_gate": "false"},
    )
    assert lenient.code == 0, lenient.log
    assert lenient.outputs["verdict"] == "fail"
    assert "A gate failed" in marked(github, 12)[0]["body"]


@pytest.mark.slow
def test_hostile_model_output_is_neutralised_in_the_comment_and_the_log(action, repo, github, fake_anthropic):
    github.set_pr_files(12, [{"filename": "prompts/greet.txt"}])
    script = greet_script(reply_bob=HOSTILE + " ::warning::injected", verdict_bob="fail", reason_bob=HOSTILE)
    fake_llm = fake_anthropic(script)
    run = action(repo, "pull_request_opened.json", "pull_request", github=github, anthropic=fake_llm)
    assert run.code == 1, run.log
    (comment,) = marked(github, 12)
    body = comment["body"]
    assert "rude" not in body and "polite" in body  # the failing item is listed
    assert body.count(MARKER) == 1 and body.startswith(MARKER)
    assert "<!--" not in body[len(MARKER) :]
    for bad in (
        "<img",
        "<script",
        "](https://evil.example",
        "https://evil.example/pixel",
        "@octocat",
        "@org/team",
        "fixes #1",
    ):
        assert bad not in body, bad
    assert re.search(r"octocat", body)  # still readable, just not a ping
    # In the log, the model's text sits between stop-commands and its resume token.
    log = run.proc.stdout
    injected = log.index("::warning::injected")
    stop = log.rfind("::stop-commands::", 0, injected)
    token = log[stop:].split("\n", 1)[0].split("::")[2]
    assert stop != -1 and log.index(f"::{token}::", stop) > injected


def test_fork_without_key_skips_cleanly(action, repo, github, fake_anthropic):
    fake_llm = fake_anthropic(greet_script())
    run = action(
        repo,
        "pull_request_synchronize_fork.json",
        "pull_request",
        github=github,
        anthropic=fake_llm,
        inputs={"anthropic_api_key": ""},
    )
    assert fake_llm.request_count == 0
    assert run.code == 0, run.log
    assert "::notice" in run.proc.stdout and "skipped" in run.proc.stdout
    assert "fork" in run.summary and "not a failure" in run.summary
    assert run.outputs["verdict"] == "skipped"
    assert not [r for r in github.requests if r.method in ("POST", "PATCH")]


@pytest.mark.slow
def test_the_key_appears_nowhere(action, repo, github, tmp_path, fake_anthropic):
    github.set_pr_files(12, [{"filename": "prompts/greet.txt"}, {"filename": "other/x.py"}])
    dump = tmp_path / "env.json"
    script = greet_script(reply_bob=f"Hello Bob, the key is {KEY}", verdict_bob="fail", reason_bob=f"leaks {KEY}")
    fake_llm = fake_anthropic(script)
    run = action(
        repo,
        "pull_request_opened.json",
        "pull_request",
        github=github,
        anthropic=fake_llm,
        extra_env={"EVALKIT_TEST_ENV_DUMP": str(dump)},
    )
    assert fake_llm.request_count > 0
    assert run.code == 1, run.log
    # A reply that echoes the key is redacted; the only place left is the mask command itself,
    # which the runner consumes.
    log_lines = [line for line in run.log.splitlines() if KEY in line]
    assert log_lines == [f"::add-mask::{KEY}"], log_lines
    assert KEY not in run.summary and KEY not in json.dumps(run.outputs)
    for request in github.requests:
        assert KEY not in request.raw_body
    for path in run.results.rglob("*"):
        if path.is_file():
            assert KEY not in path.read_text(errors="replace"), path
    assert "***" in marked(github, 12)[0]["body"]


RUNNER_SECRETS = (KEY, TOKEN, "actions-runtime-secret", "oidc-secret")


def needles_file(path: Path, secrets=RUNNER_SECRETS) -> Path:
    """What the env-dumping target may know of the secrets: a prefix, the length, the hash."""
    path.write_text(
        json.dumps(
            [{"prefix": s[:6], "length": len(s), "sha256": hashlib.sha256(s.encode()).hexdigest()} for s in secrets]
        )
    )
    return path


def test_targets_see_no_secret_in_their_environment_proc_or_memory(action, repo, github, tmp_path, fake_anthropic):
    dump = tmp_path / "env.json"
    github.set_pr_files(12, [{"filename": "other/x.py"}])
    fake_llm = fake_anthropic(Script())
    run = action(
        repo,
        "pull_request_opened.json",
        "pull_request",
        github=github,
        anthropic=fake_llm,
        extra_env={
            "EVALKIT_TEST_ENV_DUMP": str(dump),
            "PYTHONIOENCODING": "utf-8",
            "EVALKIT_TEST_NEEDLES": str(needles_file(tmp_path / "needles.json")),
        },
    )
    assert run.code == 0, run.log
    assert run.outputs["selected_suites"] == "evals/envdump.suite.yml"
    seen = json.loads(dump.read_text())
    environ = seen["environ"]
    leaked = [
        k
        for k in environ
        if k.startswith(("ACTIONS_", "INPUT_")) or k in ("GITHUB_TOKEN", "GITHUB_OUTPUT", "GITHUB_ENV")
    ]
    assert leaked == []
    # The three places the issue names, and the target's own memory.
    for place in ("environ", "proc_self", "proc_parent"):
        text = json.dumps(seen[place])
        for secret in RUNNER_SECRETS:
            assert secret not in text, (place, secret)
    assert "PATH=" in seen["proc_parent"]  # it was readable: the secrets were wiped from it
    assert seen["memory_hits"] == []
    # Started without CAP_SYS_PTRACE, which it cannot get back: the non-dumpable entrypoint's memory
    # is closed to it even as root (tests/action/test_unprivileged.py shows a root with it reads it).
    assert not seen["cap_eff"] >> 19 & 1 and not seen["cap_bnd"] >> 19 & 1
    assert seen["entrypoint_memory"].startswith("denied"), seen["entrypoint_memory"]
    # The model is reached through the parent's proxy with a placeholder key.
    assert environ["ANTHROPIC_API_KEY"].startswith("evalkit-proxy-")
    assert environ["ANTHROPIC_BASE_URL"].startswith("http://127.0.0.1:")
    assert {"PATH", "HOME", "CI", "GITHUB_WORKSPACE", "PYTHONIOENCODING"} <= set(environ)


def test_nothing_affected_gives_a_short_comment_and_exit_0(action, repo, github, fake_anthropic):
    github.set_pr_files(12, [{"filename": "README.md"}, {"filename": "docs/@admin notes.md"}])
    fake_llm = fake_anthropic(Script())
    run = action(repo, "pull_request_opened.json", "pull_request", github=github, anthropic=fake_llm)
    assert fake_llm.request_count == 0
    assert run.code == 0, run.log
    assert run.outputs["verdict"] == "skipped" and run.outputs["selected_suites"] == ""
    (comment,) = marked(github, 12)
    for text in (comment["body"], run.summary):
        assert "no suite affected" in text and "`README.md`" in text
        assert "`evals/greet.suite.yml`" in text


@pytest.mark.slow
def test_pr_files_api_error_runs_every_suite(action, repo, tmp_path, fake_anthropic, fake_github):
    dump = tmp_path / "env.json"
    gh = fake_github(token=TOKEN, fail_files=True)
    fake_llm = fake_anthropic(greet_script())
    run = action(
        repo,
        "pull_request_opened.json",
        "pull_request",
        github=gh,
        anthropic=fake_llm,
        extra_env={"EVALKIT_TEST_ENV_DUMP": str(dump)},
    )
    assert run.code == 0, run.log
    assert run.outputs["selected_suites"].splitlines() == ["evals/greet.suite.yml", "evals/envdump.suite.yml"]


@pytest.mark.slow
def test_workflow_dispatch_runs_the_suites_input(action, repo, github, fake_anthropic):
    fake_llm = fake_anthropic(greet_script())
    by_name = action(
        repo,
        "workflow_dispatch.json",
        "workflow_dispatch",
        github=github,
        anthropic=fake_llm,
        inputs={"suites": "greet"},
    )
    by_glob = action(
        repo,
        "workflow_dispatch.json",
        "workflow_dispatch",
        github=github,
        anthropic=fake_llm,
        inputs={"suites": "evals/g*.suite.yml"},
    )
    unknown = action(
        repo,
        "workflow_dispatch.json",
        "workflow_dispatch",
        github=github,
        anthropic=fake_llm,
        inputs={"suites": "nope"},
    )
    assert by_name.code == 0, by_name.log
    assert by_name.outputs["selected_suites"] == "evals/greet.suite.yml"
    assert by_glob.outputs["selected_suites"] == "evals/greet.suite.yml"
    assert "All gates passed" in by_name.summary
    assert not [r for r in github.requests if r.method in ("POST", "PATCH")]  # no PR: summary only
    assert unknown.code == 2
    assert "::error" in unknown.proc.stdout and "nope" in unknown.proc.stdout and "greet" in unknown.proc.stdout


@pytest.mark.slow
def test_read_only_token_falls_back_to_the_summary(action, repo, fake_anthropic, fake_github):
    gh = fake_github(token=TOKEN, read_only=True)
    fake_llm = fake_anthropic(greet_script())
    gh.set_pr_files(12, [{"filename": "prompts/greet.txt"}])
    run = action(repo, "pull_request_opened.json", "pull_request", github=gh, anthropic=fake_llm)
    assert gh.comments(12) == []
    assert run.code == 0, run.log
    assert "::warning" in run.proc.stdout and "403" in run.proc.stdout
    assert "All gates passed" in run.summary


@pytest.mark.parametrize(
    "inputs, message",
    [
        ({"rubric_threshold": "80%"}, "rubric_threshold"),
        ({"agreement_threshold": "1.5"}, "agreement_threshold"),
        ({"concurrency": "0"}, "concurrency"),
        ({"fail_on_gate": "maybe"}, "fail_on_gate"),
        ({"env": "DJANGO_SETTINGS_MODULE, GITHUB_TOKEN"}, "env: GITHUB_TOKEN is never passed to user code"),
    ],
)
def test_bad_inputs_exit_2_with_an_error(action, repo, github, inputs, message):
    github.add_comment(12, MARKER + "\n## ✅ evalkit: All gates passed", login="github-actions[bot]", user_type="Bot")
    run = action(repo, "pull_request_opened.json", "pull_request", github=github, inputs=inputs)
    assert run.code == 2
    assert f"::error title=evalkit::evalkit: invalid input: {message}" in run.proc.stdout
    # The stale green comment, the summary and the outputs all say the evals could not run.
    assert run.outputs["verdict"] == "error" and run.outputs["results_path"] == ""
    (comment,) = marked(github, 12)
    for text in (comment["body"], run.summary):
        assert "evals could not run" in text and message in text and "All gates passed" not in text


@pytest.mark.slow
def test_custom_template_from_the_repository(action, repo, github, fake_anthropic):
    (repo / ".github").mkdir()
    (repo / ".github" / "evals.md.j2").write_text(
        "# Custom {{ report.verdict }}\n{% for s in report.suites %}- {{ s.name | clean }}\n{% endfor %}"
    )
    fake_llm = fake_anthropic(greet_script())
    run = action(
        repo,
        "workflow_dispatch.json",
        "workflow_dispatch",
        github=github,
        anthropic=fake_llm,
        inputs={"suites": "greet", "template": ".github/evals.md.j2"},
    )
    assert run.code == 0, run.log
    assert "# Custom pass\n- greet" in run.summary


@pytest.mark.slow
def test_push_runs_the_suites_the_diff_touches(action, repo, github, tmp_path, fake_anthropic):
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.com"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-qm", "one"], check=True)
    before = subprocess.run([*git, "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
    (repo / "prompts" / "greet.txt").write_text("changed\n")
    subprocess.run([*git, "commit", "-qam", "two"], check=True)
    after = subprocess.run([*git, "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
    payload = json.loads((EVENTS / "push.json").read_text())
    payload.update(before=before, after=after)
    fake_llm = fake_anthropic(greet_script())
    run = action(repo, payload, "push", github=github, anthropic=fake_llm)
    assert run.code == 0, run.log
    assert run.outputs["selected_suites"] == "evals/greet.suite.yml"


@pytest.mark.slow
def test_without_evalkit_yml_suites_are_discovered(action, tmp_path, github, fake_anthropic):
    repo = tmp_path / "plain"
    (repo / "evals").mkdir(parents=True)
    (repo / "evals" / "greet.suite.yml").write_text(SUITE)
    (repo / "node_modules" / "x").mkdir(parents=True)
    (repo / "node_modules" / "x" / "suite.yml").write_text("not: a suite\n")
    fake_llm = fake_anthropic(greet_script())
    run = action(
        repo,
        "workflow_dispatch.json",
        "workflow_dispatch",
        github=github,
        anthropic=fake_llm,
        inputs={"suites": textwrap.dedent("greet\n")},
    )
    assert run.code == 0, run.log
    assert run.outputs["selected_suites"] == "evals/greet.suite.yml"


def test_a_broken_suite_file_is_annotated_on_its_line_and_exits_2(action, repo, github):
    (repo / "evals" / "greet.suite.yml").write_text(SUITE.replace("cases:", "bogus: 1\ncases:"))
    run = action(repo, "workflow_dispatch.json", "workflow_dispatch", github=github, inputs={"suites": "greet"})
    assert run.code == 2
    line = SUITE.splitlines().index("cases:") + 1
    assert f"::error file=evals/greet.suite.yml,line={line},title=evalkit%3A suite file::" in run.proc.stdout


@pytest.mark.slow
def test_3000_changed_files_run_every_suite(action, repo, github, tmp_path, fake_anthropic):
    github.set_pr_files(12, [{"filename": f"docs/f{i}.md"} for i in range(3000)])
    fake_llm = fake_anthropic(greet_script())
    run = action(
        repo,
        "pull_request_opened.json",
        "pull_request",
        github=github,
        anthropic=fake_llm,
        extra_env={"EVALKIT_TEST_ENV_DUMP": str(tmp_path / "env.json")},
    )
    assert run.code == 0, run.log
    assert run.outputs["selected_suites"].splitlines() == ["evals/greet.suite.yml", "evals/envdump.suite.yml"]
    assert "3,000+ files" in run.proc.stdout


@pytest.mark.slow
def test_the_max_cost_input_stops_the_run_and_the_comment_says_so(action, repo, github, fake_anthropic):
    github.set_pr_files(12, [{"filename": "prompts/greet.txt"}])
    fake_llm = fake_anthropic(greet_script())
    # Less than any call costs: the first call is refused, so no case runs.
    run = action(
        repo,
        "pull_request_opened.json",
        "pull_request",
        github=github,
        anthropic=fake_llm,
        inputs={"max_cost": "0.000001"},
    )
    sent = [r for r in fake_llm.requests if "messages" in r]
    assert run.code == 1, run.log
    assert not sent
    assert run.outputs["verdict"] == "fail"
    body = marked(github, 12)[0]["body"]
    cases = SUITE.count("  - id: ")
    assert f"The budget stopped the run — {cases} cases not run" in body and "Budget reached" in body
    assert (
        "::error title=evalkit%3A the budget stopped the run::evalkit: budget: stopped the run: $0.0000 spent"
        in run.proc.stdout
    )
    assert "The budget stopped the run" in run.summary
