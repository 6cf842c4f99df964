"""The team's environment in the Action: the `env` input passes the variables its code needs
to the worker (beside the default allow-list, never a secret), and the model calls agent code
makes with the client evalkit hands it are counted and priced like every other call."""

from __future__ import annotations

import json

from test_action_entrypoint import action, github  # noqa: F401 - fixtures

from evalkit.testing.fake_anthropic import FakeAnthropicServer
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
    for name, text in {"evalkit.yml": "suites: [evals/team.suite.yml]\n", "evals/team.suite.yml": SUITE,
                       "evals/team_agent.py": AGENT}.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    return root


def _script():
    return Script().reply("Hello Ada", prompt="GREET Ada").reply("Hello again", prompt="AGAIN Ada")


def test_env_passes_the_named_variables_and_agent_calls_are_counted_and_priced(action, github, tmp_path):
    repo = _repo(tmp_path / "team")
    with FakeAnthropicServer(_script()) as fake:
        run = action(repo, "workflow_dispatch.json", "workflow_dispatch", github=github, anthropic=fake,
                     inputs={"suites": "team", "env": "DJANGO_SETTINGS_MODULE\nAPP_*, NOT_SET_HERE"}, extra_env=TEAM_ENV)
        sent = fake.request_count
    assert run.code == 0, run.log[-3000:]
    assert run.outputs["verdict"] == "pass"
    assert ("evalkit: env: user code gets APP_MODE, DJANGO_SETTINGS_MODULE beside the default allow-list; "
            "not set in this step: NOT_SET_HERE") in run.log
    # Both calls of the agent went through the run's client: in the results and the report's totals.
    results = json.loads(run.file("results_path").read_text())
    assert sent == 2 and results["usage"]["calls"] == 2
    assert results["usage"]["cost_usd"] > 0 and results["usage"]["unpriced_calls"] == 0
    assert [m["model"] for m in results["models"]] == [MODEL]
    assert "2 model calls" in run.summary and f"${results['usage']['cost_usd']:.4f}"[:5] in run.summary
    # APP_* matched a secret-like variable too: not passed (the output says None), only masked.
    leaks = [line for line in (run.log + run.summary).splitlines() if TEAM_ENV["APP_SECRET_KEY"] in line]
    assert leaks == [f"::add-mask::{TEAM_ENV['APP_SECRET_KEY']}"]


def test_without_env_the_teams_variables_stay_out(action, github, tmp_path):
    repo = _repo(tmp_path / "team")
    with FakeAnthropicServer(_script()) as fake:
        run = action(repo, "workflow_dispatch.json", "workflow_dispatch", github=github, anthropic=fake,
                     inputs={"suites": "team"}, extra_env=TEAM_ENV)
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

    env = {**TEAM_ENV, "PATH": "/bin", "GITHUB_TOKEN": "ghs_" + "x" * 20, "APP_TOKEN": "t" * 12,
           "INPUT_ENV": "APP_MODE APP_SECRET_KEY,bad-name\nINPUT_ANTHROPIC_API_KEY ANTHROPIC_API_KEY"}
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
        "PATH": "/bin", "APP_MODE": "test"}
