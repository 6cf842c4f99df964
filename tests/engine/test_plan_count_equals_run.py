"""The issue's bar: `evalkit plan`'s predicted call count equals the calls a run makes against the
loopback fake, for the bundled suites and the examples, on an empty cache and on the cache the run
filled, and no request of the plan reaches a model (plan is the runner run against a provider that
never calls one: evalkit/engine/plan_run.py).

One figure cannot be exact on an empty cache: a tool loop's turns. How many turns a model takes is
its own choice, known only once it answers, so each loop is counted at TOOL_TURNS_GUESS (3). pace_ai's
agent suite has 6 loops (5 cases, and the conversation's turn that the agent answers): 18 target calls
planned, where the demo's scripted agent takes 2 turns for the runners whose training load alone
decides and 3 for the others (16): 26 planned, 24 made. The support agent of agent_trajectory takes 3
turns a loop, as estimated."""

from __future__ import annotations

from pathlib import Path

import pytest

from evalkit.cli.demo import bundled_suites_dir, demo_plan
from evalkit.engine import load_suites, make_client, plan_calls, run
from evalkit.llm.providers.anthropic import AnthropicProvider
from evalkit.run.runner import RunOptions
from evalkit.testing.fake_anthropic import FakeAnthropicServer
from evalkit.testing.script import JUDGE_TOOL, Script
from tests.examples.test_examples import EXAMPLES, cooking, passing_judge, support_agent


def bundled(name: str):
    [(folder, script)] = demo_plan(bundled_suites_dir(), ((name, "pass"),))
    # pace_ai's folder also holds the agent's suite, which its demo replies do not answer: suite.yml alone.
    return (folder / "suite.yml" if (folder / "suite.yml").is_file() else folder), script


# name -> (path, script, (planned, made) on an empty cache where they differ: see the module's docstring).
CASES = {
    "help_agents": lambda: (*bundled("help_agents"), True),
    "pace_ai": lambda: (*bundled("pace_ai"), True),
    "pace_ai_agent": lambda: (*bundled("pace_ai/agent.suite.yml"), (26, 24)),
    "agent_trajectory": lambda: (
        EXAMPLES / "agent_trajectory",
        support_agent().respond(passing_judge, tool=JUDGE_TOOL),
        True,
    ),
    "multi_turn": lambda: (EXAMPLES / "multi_turn", cooking().respond(passing_judge, tool=JUDGE_TOOL), True),
}


def calls_of_a_run(suites, script, cache: Path) -> int:
    with FakeAnthropicServer(script) as fake:
        run(
            suites,
            make_client(
                AnthropicProvider(api_key="k", base_url=fake.url), concurrency=8, cache_dir=cache, deprecated=None
            ),
            RunOptions(),
        )
        return len(fake.requests)


@pytest.mark.slow  # the plan runs the suite's targets in workers: over 8 s on a loaded machine
@pytest.mark.parametrize("name", CASES)
def test_the_plans_call_count_is_the_runs(name, tmp_path, monkeypatch):
    path, script, exact = CASES[name]()
    suites = load_suites([path])
    with FakeAnthropicServer(Script()) as reachable:  # where a key and a base URL would send a target's own calls
        monkeypatch.setenv("ANTHROPIC_BASE_URL", reachable.url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "k")
        cold = plan_calls(suites, cache_dir=tmp_path / "cache", count_tokens=False).calls()
        assert reachable.requests == []
    made = calls_of_a_run(suites, script, tmp_path / "cache")
    assert (cold, made) == ((made, made) if exact is True else exact)
    # On the cache the run filled, the plan says what a second run does: every call is served from the cache.
    warm = plan_calls(suites, cache_dir=tmp_path / "cache", count_tokens=False).calls()
    again = calls_of_a_run(suites, script, tmp_path / "cache")
    assert (warm, again) == (0, 0)
