"""The ambient client: model tiers from configuration, per-suite overrides, the run's own client."""

from evalkit.engine import agent_client as runtime
from evalkit.engine import make_client, run
from evalkit.llm.tiers import DEFAULT_JUDGE_MODEL, DEFAULT_TARGET_MODEL
from evalkit.run.runner import RunOptions
from evalkit.suite import load_suite
from evalkit.testing.script import Script
from evalkit.testing.scripted import ScriptedProvider


def test_tiers_default_then_environment_then_override(monkeypatch):
    assert runtime.model_tiers() == {"high": DEFAULT_TARGET_MODEL, "low": DEFAULT_JUDGE_MODEL}
    monkeypatch.setenv("SYSTEM_AGENT_MODELS_HIGH", "env-high")
    monkeypatch.setenv("SYSTEM_AGENT_MODELS_LOW", "env-low")
    assert runtime.model_tiers() == {"high": "env-high", "low": "env-low"}
    with runtime.use_models(low="suite-low"):
        assert runtime.model_tiers() == {"high": "env-high", "low": "suite-low"}
    assert runtime.model_tiers()["low"] == "env-low"


def test_unavailable_reason(monkeypatch):
    assert "ANTHROPIC_API_KEY is not set" in runtime.unavailable_reason()
    monkeypatch.setenv("ANTHROPIC_API_KEY", "k")
    assert runtime.unavailable_reason() is None
    monkeypatch.setenv("SYSTEM_AGENT_MODELS_LOW", " ")
    assert runtime.unavailable_reason() == "SYSTEM_AGENT_MODELS_LOW is empty: evals are switched off"


def test_ambient_client_is_blocking_and_resolves_tiers(monkeypatch):
    monkeypatch.setenv("SYSTEM_AGENT_MODELS_HIGH", "agent-model")
    provider = ScriptedProvider(Script().reply("pong", prompt="ping"))
    runtime.configure(provider=lambda: provider, no_cache=True)
    assert runtime.get_client().complete("ping", model="high") == "pong"
    assert provider.requests[0]["model"] == "agent-model"
    assert runtime.usage().calls == 1


def test_inside_a_run_get_client_is_the_runs_client(tmp_path):
    (tmp_path / "agent_mod.py").write_text(
        "from evalkit.engine.agent_client import get_client\n"
        "def target(input):\n    return get_client().complete('hi ' + input['name'], model='high')\n"
    )
    (tmp_path / "suite.yml").write_text(
        "target: agent_mod:target\nmodels: {high: suite-high}\n"
        "cases:\n  - id: a\n    input: {name: bob}\n    checks:\n      - type: equals\n        value: hello bob\n"
    )
    provider = ScriptedProvider(Script().reply("hello bob", prompt="hi bob"))
    report = run([load_suite(tmp_path)], make_client(provider, no_cache=True, deprecated=None), RunOptions())
    assert report.verdict == "pass"
    assert provider.requests[0]["model"] == "suite-high"
    assert runtime.usage() is None  # the ambient client was never needed
