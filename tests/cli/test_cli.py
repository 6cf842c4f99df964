"""The CLI: every bad input gives one clear line and exit 2; light commands never import anthropic."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from click.testing import CliRunner

from evalkit.cli.commands import main
from evalkit.testing.script import Script

SUITE = """
name: greet
target: {prompt: "Greet {{ name }}"}
cases:
  - {id: ada, input: {name: Ada}, checks: [{type: contains, value: Ada}]}
  - {id: bob, input: {name: Bob}, checks: [{type: contains, value: Bob}]}
"""


def invoke(*args, env=None):
    return CliRunner().invoke(main, list(map(str, args)), env=env, catch_exceptions=False)


@pytest.fixture
def fake_env(fake_anthropic, anthropic_env):
    script = Script().reply("Hello Ada", prompt="Ada").reply("Goodbye", prompt="Bob")
    fake = fake_anthropic(script)
    return fake, anthropic_env(fake)


def test_run_exit_codes_output_and_jsonl(write, tmp_path, fake_env):
    fake, env = fake_env
    suite = write("s.yml", SUITE)
    out = tmp_path / "res.json"
    result = invoke("run", suite, "-o", out, env=env)
    assert result.exit_code == 1, result.output  # bob fails its check
    assert "FAIL    greet: 1 passed, 1 failed" in result.output
    data = json.loads(out.read_text())
    assert data["verdict"] == "fail"
    lines = (tmp_path / "res.jsonl").read_text().splitlines()
    assert sum('"case": ' in line for line in lines) == 2
    result = invoke("run", suite, "--case", "ada", "-o", out, env=env)
    assert result.exit_code == 0, result.output
    md = invoke("report", out)
    assert md.exit_code == 0 and "All gates passed" in md.output
    junit = invoke("report", out, "--format", "junit")
    assert "<testsuites" in junit.output


@pytest.mark.parametrize(
    "args, message",
    [
        (["run", "nope.yml"], "no such file"),
        (["run", "{suite}", "--concurrency", "0"], "Invalid value for '--concurrency'"),
        (["run", "{suite}", "--target", "nocolon"], "not of the form module:function"),
        (["run", "{bad}"], "unknown check type"),
        (["validate", "{bad}"], "unknown check type"),
        (["report", "{suite}"], "is not an evalkit results file"),
        (["run", "{suite}", "--rubric-threshold", "2"], "Invalid value"),
    ],
)
def test_bad_inputs_exit_2_with_one_clear_message(write, fake_env, args, message):
    _, env = fake_env
    paths = {"suite": write("s.yml", SUITE), "bad": write("b.yml", "- {id: a, checks: [{type: nope}]}\n")}
    result = CliRunner().invoke(main, [a.format(**paths) for a in args], env=env)
    assert result.exit_code == 2, result.output
    assert message in result.output
    assert "Traceback" not in result.output


def test_run_without_key_says_how_to_fix(write):
    result = CliRunner().invoke(main, ["run", str(write("s.yml", SUITE))], env={"ANTHROPIC_API_KEY": ""})
    assert result.exit_code == 2
    assert "No ANTHROPIC_API_KEY" in result.output and "evalkit demo" in result.output


def test_validate_list_plan_schema(write):
    suite = write("s.yml", SUITE)
    assert "ok " in invoke("validate", suite).output
    listing = invoke("list", suite).output
    assert "greet" in listing and "ada" in listing and "1 checks" in listing
    plan = invoke("plan", suite, "--repeat", "3").output
    assert "greet" in plan and "total: 6 model calls" in plan
    schema = json.loads(invoke("schema").output)
    assert "$defs" in schema


@pytest.mark.parametrize(
    "args", [["--help"], ["validate", "{suite}"], ["list", "{suite}"], ["plan", "{suite}"], ["schema"]]
)
def test_light_commands_never_import_anthropic(write, args):
    suite = write("s.yml", SUITE)
    code = (
        "import sys; from evalkit.cli.commands import main\n"
        "try:\n    main([%s])\nexcept SystemExit:\n    pass\n"
        "assert 'anthropic' not in sys.modules, 'anthropic was imported'\n"
        % ", ".join(repr(a.format(suite=suite)) for a in args)
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env={**os.environ, "ANTHROPIC_API_KEY": ""}
    )
    assert proc.returncode == 0, proc.stderr
