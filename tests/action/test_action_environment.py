"""The team's environment in the Action: the `env` input passes the variables its code needs
to the worker (beside the default allow-list, never a secret), and the model calls agent code
makes with the client evalkit hands it are counted and priced like every other call."""

from __future__ import annotations

import json

import pytest
from test_action_entrypoint import action, github  # noqa: F401 - fixtures

from evalkit.testing.script import Script

MODEL = "claude-sonnet-4-5-20250929"
SUITE = f"""\
name: team
target: team_agent:run
model: {MODEL}
checks:
  - {{type: contains, value: "settings=app.settings mode=test secret=None"}}
cases:
  - id: one
    input: {{who: Ada}}
"""
AGENT = """\
import os

from evalkit import get_client


def run(input, client):
    first = client.complete("GREET " + input["who"])
    second = get_client().complete("AGAIN " + input["who"])
    env = os.environ
    return (f"{first} / {second} settings={env.get('DJANGO_SETTINGS_MODULE')} mode={env.get('APP_MODE')} "
            f"secret={env.get('APP_SECRET_KEY')}")
"""
TEAM_ENV = {"DJANGO_SETTINGS_MODULE": "app.settings", "APP_MODE": "test", "APP_SECRET_KEY": "s3cr3t-value-for-app"}


def _repo(root):
    for name, text in {
        "evalkit.yml": "suites: [evals/team.suite.yml]\n",
        "evals/team.suite.yml": SUITE,
        "evals/team_agent.py": AGENT,
    }.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    return root


def _script():
    return Script().reply("Hello Ada", prompt="GREET Ada").reply("Hello again", prompt="AGAIN Ada")


@pytest.mark.slow
def test_env_passes_the_named_variables_and_agent_calls_are_counted_and_priced(
    action, github, tmp_path, fake_anthropic
):
    repo = _repo(tmp_path / "team")
    fake = fake_anthropic(_script())
    run = action(
        repo,
        "workflow_dispatch.json",
        "workflow_dispatch",
        github=github,
        anthropic=fake,
        inputs={"suites": "team", "env": "DJANGO_SETTINGS_MODULE\nAPP_*, NOT_SET_HERE"},
        extra_env=TEAM_ENV,
    )
    sent = fake.request_count
    assert run.code == 0, run.log[-3000:]
    assert run.outputs["verdict"] == "pass"
    assert (
        "evalkit: env: user code gets APP_MODE, DJANGO_SETTINGS_MODULE beside the default allow-list; "
        "not set in this step: NOT_SET_HERE"
    ) in run.log
    # Both calls of the agent went through the run's client: in the results and the report's totals.
    results = json.loads(run.file("results_path").read_text())
    assert sent == 2 and results["usage"]["calls"] == 2
    assert results["usage"]["cost_usd"] > 0 and results["usage"]["unpriced_calls"] == 0
    assert [m["model"] for m in results["models"]] == [MODEL]
    assert "2 model calls" in run.summary and f"${results['usage']['cost_usd']:.4f}"[:5] in run.summary
    # APP_* matched a secret-like variable too: not passed (the output says None), only masked.
    leaks = [line for line in (run.log + run.summary).splitlines() if TEAM_ENV["APP_SECRET_KEY"] in line]
    assert leaks == [f"::add-mask::{TEAM_ENV['APP_SECRET_KEY']}"]


def test_without_env_the_teams_variables_stay_out(action, github, tmp_path, fake_anthropic):
    repo = _repo(tmp_path / "team")
    fake = fake_anthropic(_script())
    run = action(
        repo,
        "workflow_dispatch.json",
        "workflow_dispatch",
        github=github,
        anthropic=fake,
        inputs={"suites": "team"},
        extra_env=TEAM_ENV,
    )
    assert run.code == 1, run.log[-3000:]
    results = json.loads(run.file("results_path").read_text())
    (case,) = results["suites"][0]["cases"]
    assert "settings=None mode=None secret=None" in case["runs"][0]["output"]
    assert "evalkit: env:" not in run.log


def test_the_env_input_refuses_what_it_cannot_pass():
    import pytest

    from evalkit.action.inputs import parse_inputs
    from evalkit.action.sandbox import worker_environment
    from evalkit.errors import UsageError

    env = {
        **TEAM_ENV,
        "PATH": "/bin",
        "GITHUB_TOKEN": "ghs_" + "x" * 20,
        "APP_TOKEN": "t" * 12,
        "INPUT_ENV": "APP_MODE APP_SECRET_KEY,bad-name\nINPUT_ANTHROPIC_API_KEY ANTHROPIC_API_KEY",
    }
    with pytest.raises(UsageError) as refused:
        parse_inputs(env)
    message = str(refused.value)
    assert "\n" not in message
    assert "env: APP_SECRET_KEY holds a secret" in message and "env: 'bad-name' is not a variable name" in message
    assert "env: INPUT_ANTHROPIC_API_KEY is never passed" in message and "env: ANTHROPIC_API_KEY is never" in message
    assert "APP_MODE" not in message
    # A pattern takes what it matches, less every secret-like value and what is never passed.
    env["INPUT_ENV"] = "APP_* GITHUB_*"
    assert parse_inputs(env).env == ("APP_*", "GITHUB_*")
    assert worker_environment(env, ["ghs_" + "x" * 20, "t" * 12, TEAM_ENV["APP_SECRET_KEY"]]) == {
        "PATH": "/bin",
        "APP_MODE": "test",
    }


def test_an_env_value_that_embeds_the_key_is_refused_naming_the_variable():
    import pytest

    from evalkit.action.inputs import parse_inputs
    from evalkit.action.sandbox import worker_environment
    from evalkit.errors import UsageError

    key = "sk-ant-" + "k" * 30
    env = {
        "PATH": "/bin",
        "ANTHROPIC_API_KEY": key,
        "APP_MODE": "test",
        "DB_URL": f"https://user:{key}@db.example",
        "PROXY_NOTE": f"key={key};",
    }
    for named in ("DB_URL", "DB_*", "APP_MODE PROXY_NOTE"):
        with pytest.raises(UsageError) as refused:
            parse_inputs({**env, "INPUT_ENV": named})
        message = str(refused.value)
        assert "\n" not in message and "holds a secret inside its value" in message, message
        assert ("PROXY_NOTE" if "PROXY" in named else "DB_URL") in message and key not in message
    assert parse_inputs({**env, "INPUT_ENV": "APP_MODE"}).env == ("APP_MODE",)
    # Whatever the input names, a value holding the key never reaches the worker.
    assert worker_environment({**env, "INPUT_ENV": "DB_* PROXY_NOTE APP_MODE"}, [key]) == {
        "PATH": "/bin",
        "APP_MODE": "test",
    }


@pytest.mark.slow
def test_install_is_skipped_when_no_suite_is_affected_and_runs_when_one_is(action, github, tmp_path, fake_anthropic):
    from install_workspace import make_install_workspace

    repo = make_install_workspace(tmp_path / "own")
    suite = repo / "evals" / "own.suite.yml"
    suite.write_text(suite.read_text() + 'watch: ["evals/**"]\n')
    inputs = {"install": "requirements-eval.txt"}
    github.set_pr_files(12, [{"filename": "README.md"}])
    fake = fake_anthropic(Script())
    skipped = action(repo, "pull_request_opened.json", "pull_request", github=github, anthropic=fake, inputs=inputs)
    assert skipped.code == 0, skipped.log[-3000:]
    assert skipped.outputs["verdict"] == "skipped"
    assert "`install` skipped" in skipped.log and "evalkit: install" not in skipped.log
    assert "pip install" not in skipped.log and not (repo / ".evalkit" / "results" / "results.json").exists()
    body = [c["body"] for c in github.comments(12)][-1]
    assert "no suite affected" in body and "`evals/own.suite.yml`" in body and "`README.md`" in body

    github.set_pr_files(12, [{"filename": "evals/agent.py"}])
    fake = fake_anthropic(Script())
    ran = action(repo, "pull_request_opened.json", "pull_request", github=github, anthropic=fake, inputs=inputs)
    assert ran.code == 0, ran.log[-3000:]
    assert ran.outputs["verdict"] == "pass" and "::group::evalkit: install requirements-eval.txt" in ran.log
    assert "`install` skipped" not in ran.log


def test_the_watch_globs_read_from_yaml_alone_are_those_of_the_loaded_suites(tmp_path):
    from test_action_entrypoint import make_repo

    from evalkit.action.discovery import load_repo_suites, read_watch_map

    repo = make_repo(tmp_path / "repo")
    (repo / "evals" / "listed.yml").write_text("- {id: a, input: x}\n")
    (repo / "evals" / "outer.suite.yml").write_text("target: m:f\nwatch: ['../lib/**']\ncases: listed.yml\n")
    (repo / "evalkit.yml").write_text(
        (repo / "evalkit.yml").read_text() + "  - evals/outer.suite.yml\n"
        "  - {path: evals/listed.yml, target: 'm:f', watch: ['src/**']}\n"
    )
    loaded = load_repo_suites(repo).watch_map()
    assert read_watch_map(repo) == loaded and loaded["evals/outer.suite.yml"] == [
        "lib/**",
        "evals/outer.suite.yml",
        "evals/listed.yml",
    ]
    (repo / "evals" / "outer.suite.yml").write_text("watch: lib\ncases: listed.yml\n")  # not a list: load it
    assert read_watch_map(repo) is None
