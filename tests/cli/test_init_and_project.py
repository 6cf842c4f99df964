"""`evalkit init`, evalkit.yml / [tool.evalkit] as the CLI's defaults, target modules found from the
repository root, and the offline fake as a command — each through the real console script."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from evalkit.testing.offline_server import OFFLINE_REASON, offline_script, tool_input
from evalkit.testing.script import Script, requested_tool

EVALKIT = str(Path(sys.executable).with_name("evalkit"))


def evalkit(*args: str, cwd: Path, env: dict[str, str] | None = None, timeout: float = 120):
    base = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH",)}
    return subprocess.run(
        [EVALKIT, *args], cwd=cwd, env={**base, **(env or {})}, capture_output=True, text=True, timeout=timeout
    )


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """An empty git repository with a function of its own at the root (no PYTHONPATH set)."""
    root = tmp_path / "team"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / "app.py").write_text("def reply(question):\n    return 'Paris is the capital of France.'\n")
    return root


def test_a_new_team_reaches_a_passing_run_in_two_commands_after_install(repo, fake_anthropic, anthropic_env):
    made = evalkit("init", "--target", "app:reply", cwd=repo)
    assert made.returncode == 0, made.stderr
    assert "ok    " in made.stdout and "evals/suite.yml" in made.stdout
    assert not (repo / "evals" / "evals_target.py").exists()  # their own function, no stub
    assert ".evalkit/" in (repo / ".gitignore").read_text()
    assert "org/eval-action@v1" in (repo / ".github" / "workflows" / "evals.yml").read_text()
    fake = fake_anthropic(offline_script("unused", "pass"))
    run = evalkit("run", "-o", "out.json", cwd=repo, env=anthropic_env(fake))
    judged = [r for r in fake.requests if requested_tool(r)]
    assert run.returncode == 0, run.stdout + run.stderr
    results = json.loads((repo / "out.json").read_text())
    cases = [c for s in results["suites"] for c in s["cases"]]
    assert [(c["id"], c["verdict"], len(c["runs"])) for c in cases] == [("capital", "pass", 3)]
    assert len(judged) == 3  # one judge call per run of the repeated case


def test_the_stub_target_runs_against_the_offline_fake_command(repo, anthropic_env):
    assert evalkit("init", cwd=repo).returncode == 0
    assert (repo / "evals" / "evals_target.py").exists()
    with socket.socket() as s:  # a free port for the command to take
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "evalkit.testing.fake_anthropic",
            "--port",
            str(port),
            "--reply",
            "Paris.",
            "--verdict",
            "fail",
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        banner = server.stdout.readline()
        assert f"127.0.0.1:{port}" in banner
        run = evalkit("run", "-o", "out.json", cwd=repo, env=anthropic_env(f"http://127.0.0.1:{port}"))
    finally:
        server.terminate()
        server.wait(timeout=10)
    # The verdict chosen was "fail": the judged item fails every run, so the gate fails (exit 1).
    assert run.returncode == 1, run.stdout + run.stderr
    results = json.loads((repo / "out.json").read_text())
    cases = [c for s in results["suites"] for c in s["cases"]]
    assert [(c["id"], c["verdict"], c["errors"]) for c in cases] == [("capital", "fail", [])], cases
    assert OFFLINE_REASON in (repo / "out.json").read_text()


def test_init_keeps_existing_files_and_is_idempotent(repo):
    (repo / "evalkit.yml").write_text("suites: [somewhere_else]\n")
    (repo / ".gitignore").write_text("*.pyc")
    first = evalkit("init", "--target", "app:reply", cwd=repo)
    assert "kept  " in first.stdout and "evalkit.yml" in first.stdout
    assert (repo / "evalkit.yml").read_text() == "suites: [somewhere_else]\n"
    again = evalkit("init", "--target", "app:reply", cwd=repo)
    assert again.returncode == 0
    assert (repo / ".gitignore").read_text().count(".evalkit/") == 1
    assert (repo / ".gitignore").read_text().startswith("*.pyc\n")


@pytest.mark.parametrize("target", ["app", "app:", "1app:reply", "app:reply; rm -rf /"])
def test_init_refuses_a_malformed_target_in_one_line(repo, target):
    made = evalkit("init", "--target", target, cwd=repo)
    assert made.returncode == 2
    assert made.stderr.strip().count("\n") == 0 and "module:function" in made.stderr
    assert not (repo / "evals").exists()


def test_init_with_a_missing_function_says_so(repo):
    made = evalkit("init", "--target", "app:nothing_here", cwd=repo)
    assert made.returncode == 2 and "nothing_here" in made.stderr and "Traceback" not in made.stderr


def _suite(folder: Path, model_line: str = "") -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "suite.yml").write_text(
        textwrap.dedent(f"""
        name: s
        target: {{prompt: "Say ok"}}
        {model_line}
        cases:
          - {{id: a, checks: [{{type: equals, value: ok}}]}}
    """)
    )


def test_evalkit_yml_gives_the_suites_and_the_model_and_the_command_line_wins(
    repo, tmp_path, fake_anthropic, anthropic_env
):
    _suite(repo / "evals")
    (repo / "evalkit.yml").write_text("suites: [evals]\nmodel: claude-sonnet-4-6\nconcurrency: 3\n")
    fake = fake_anthropic(Script().reply("ok"))
    env = anthropic_env(fake)
    assert evalkit("run", "-o", "a.json", cwd=repo / "evals", env=env).returncode == 0  # from a subfolder too
    from_file = [r["model"] for r in fake.requests]
    fake.reset_counts()
    assert (
        evalkit(
            "run",
            "-o",
            "b.json",
            "--model",
            "claude-haiku-4-5-20251001",
            cwd=repo,
            env={**env, "EVALKIT_CACHE_DIR": str(tmp_path / "c2")},
        ).returncode
        == 0
    )
    from_cli = [r["model"] for r in fake.requests]
    assert from_file == ["claude-sonnet-4-6"] and from_cli == ["claude-haiku-4-5-20251001"]


def test_pyproject_tool_evalkit_is_read_when_there_is_no_evalkit_yml(repo):
    _suite(repo / "checks_here")
    (repo / "pyproject.toml").write_text('[project]\nname = "team"\n\n[tool.evalkit]\nsuites = ["checks_here"]\n')
    listed = evalkit("list", cwd=repo)
    assert listed.returncode == 0, listed.stderr
    assert "checks_here/suite.yml" in listed.stdout


@pytest.mark.parametrize(
    "config, message",
    [
        ("suites: [evals]\nmodle: x\n", "unknown setting(s) modle"),
        ("suites: [evals]\nconcurrency: many\n", "`concurrency` must be a whole number"),
        ("suites: [nowhere]\n", "'nowhere'"),
        ("suites: [evals\n", "YAML syntax error"),
    ],
)
def test_a_broken_evalkit_yml_is_one_line_exit_2(repo, config, message):
    _suite(repo / "evals")
    (repo / "evalkit.yml").write_text(config)
    result = evalkit("validate", cwd=repo)
    assert result.returncode == 2, result.stdout + result.stderr
    assert message in result.stderr and result.stderr.strip().count("\n") == 0, result.stderr


def test_no_paths_outside_a_project_names_what_to_do(tmp_path):
    result = evalkit("validate", cwd=tmp_path)
    assert result.returncode == 2
    assert "evalkit init" in result.stderr and "Traceback" not in result.stderr


def test_a_package_at_the_repository_root_imports_without_pythonpath(repo):
    package = repo / "team_agent"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "core.py").write_text("def run(question):\n    return 'ok'\n")
    (repo / "statistics.py").write_text("raise RuntimeError('a root file must not shadow the stdlib')\n")
    suite = repo / "tests" / "evals" / "suite.yml"
    suite.parent.mkdir(parents=True)
    suite.write_text(
        "name: deep\ntarget: team_agent.core:run\ncases:\n  - {id: a, checks: [{type: equals, value: ok}]}\n"
    )
    result = evalkit("validate", str(suite), cwd=repo / "tests")
    assert result.returncode == 0, result.stderr
    ran = evalkit("run", str(suite), "-o", "out.json", cwd=repo / "tests", env={"ANTHROPIC_API_KEY": "k"})
    assert ran.returncode == 0, ran.stdout + ran.stderr


def test_tool_input_fills_the_judges_and_the_extractions_schemas():
    from evalkit.scoring.extract import extract_request
    from evalkit.scoring.judge import judge_request
    from evalkit.suite.model import FieldSpec

    judge = judge_request("m", "text", {"a": "first", "b": "second"})
    tool = judge.tools[0]
    verdicts = tool_input(tool["input_schema"], "fail")
    assert [(v["id"], v["verdict"]) for v in verdicts["items"]] == [("a", "fail"), ("b", "fail")]
    assert all(v["reason"] == OFFLINE_REASON for v in verdicts["items"])
    fields = {"days": FieldSpec(type="integer"), "tone": FieldSpec(type="enum", values=["polite", "rude"])}
    extract = extract_request("m", "text", fields)
    assert tool_input(extract.tools[0]["input_schema"], "pass") == {"days": None, "tone": "polite"}


def test_the_offline_command_refuses_a_port_in_use():
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        started = time.monotonic()
        result = subprocess.run(
            [sys.executable, "-m", "evalkit.testing.fake_anthropic", "--port", str(port)],
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert result.returncode == 2 and f"cannot listen on 127.0.0.1:{port}" in result.stderr
    assert "Traceback" not in result.stderr and time.monotonic() - started < 60


def test_evalkit_yml_gives_target_thresholds_and_python_path(repo, tmp_path):
    # A fixture list names no target; the package lives under src/, outside any default search path.
    (repo / "src" / "teamlib").mkdir(parents=True)
    (repo / "src" / "teamlib" / "__init__.py").write_text("def answer(question):\n    return 'ok'\n")
    (repo / "evals").mkdir()
    (repo / "evals" / "cases.yml").write_text("- {id: a, input: hi, checks: [{type: equals, value: ok}]}\n")
    (repo / "evalkit.yml").write_text(
        "suites: [evals/cases.yml]\ntarget: teamlib:answer\npython_path: [src]\nthresholds: {rubric: 0.95}\n"
    )
    assert evalkit("validate", cwd=repo).returncode == 0
    ran = evalkit("run", "-o", "out.json", cwd=repo, env={"ANTHROPIC_API_KEY": "k"})
    assert ran.returncode == 0, ran.stdout + ran.stderr
    results = json.loads((repo / "out.json").read_text())
    assert results["suites"][0]["thresholds"]["rubric"] == 0.95
    assert results["suites"][0]["target"] == "teamlib:answer"


@pytest.mark.parametrize(
    "config, message",
    [
        ("target: no_colon\n", "is not of the form module:function"),
        ("thresholds: {rubric: 2}\n", "`thresholds.rubric` must be a number from 0 to 1"),
        ("thresholds: {speed: 1}\n", "`thresholds` must be a mapping of rubric and/or agreement"),
        ("python_path: [nowhere]\n", "python_path 'nowhere' is not a folder of the project"),
        ("python_path: src\n", "`python_path` must be a list of folders"),
    ],
)
def test_bad_project_settings_are_one_line(repo, config, message):
    (repo / "evalkit.yml").write_text(config)
    result = evalkit("list", cwd=repo)
    assert result.returncode == 2 and message in result.stderr, result.stderr
    assert result.stderr.strip().count("\n") == 0
