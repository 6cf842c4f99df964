"""The bundled suites on today's models: as shipped, and with the target and the judge set to one model
of each family, through the real anthropic client against the fake that refuses what the API refuses
(evalkit.testing.api_rules). Every run ends with a verdict and no request is refused: no sampling
parameter, no forced tool where the model thinks, thinking blocks sent back in the agent's tool loop."""

from __future__ import annotations

import pytest

from evalkit.cli.demo import DEMO_BASE, bundled_suites_dir, demo_plan
from evalkit.engine import load_suites, make_client, run
from evalkit.llm.providers.anthropic import AnthropicProvider
from evalkit.run.runner import RunOptions
from evalkit.testing.fake_anthropic import FakeAnthropicServer
from evalkit.testing.script import Script

# One model of each family whose rules differ: a 4.5 model (budgeted thinking, off by default), Sonnet
# 4.6 (adaptive too), Opus 4.8 (no sampling parameters), Haiku 5.5 (thinks by default, can stop),
# Sonnet 5.5 (cannot stop thinking: no forced tool), Fable 5.1 (adaptive only).
FAMILIES = [
    "claude-haiku-4-5",
    "claude-sonnet-4-6",
    "claude-opus-4-8",
    "claude-haiku-5-5",
    "claude-sonnet-5-5",
    "claude-fable-5-1",
]


def _run(tmp_path, model=None, judge_model=None):
    plan = demo_plan(bundled_suites_dir(), DEMO_BASE)
    merged = Script()
    for _, script in plan:
        merged.extend(script)
    with FakeAnthropicServer(merged, unknown_models="404") as fake:
        client = make_client(
            AnthropicProvider(api_key="k", base_url=fake.url),
            concurrency=8,
            cache_dir=tmp_path / "cache",
            deprecated=None,
        )
        report = run(load_suites([path for path, _ in plan]), client, RunOptions(model=model, judge_model=judge_model))
        return report, fake.requests


def _errors(report) -> list[str]:
    return [f"{s.name}/{c.id}: {e}" for s in report.suites for c in s.cases for e in c.errors]


def test_the_bundled_suites_as_shipped_run_on_current_models(tmp_path):
    report, requests = _run(tmp_path)
    assert not _errors(report) and report.verdict == "pass", _errors(report)[:3]
    models = {b["model"] for b in requests}
    assert models == {"claude-sonnet-5-5", "claude-haiku-5-5"}
    assert not any({"temperature", "top_p", "top_k"} & set(b) for b in requests)


@pytest.mark.parametrize("family", FAMILIES)
def test_the_bundled_suites_end_with_a_verdict_on_each_family(tmp_path, family):
    report, requests = _run(tmp_path, model=family, judge_model=family)
    assert not _errors(report), _errors(report)[:3]
    assert report.verdict == "pass" and {b["model"] for b in requests} == {family}
    # The agent suite's tool loop took several steps on this model (thinking blocks sent back where it thinks).
    assert any(
        m.get("role") == "user"
        and isinstance(m.get("content"), list)
        and any(b.get("type") == "tool_result" for b in m["content"])
        for b in requests
        for m in b["messages"]
    )


@pytest.mark.slow  # the plan runs the suite's targets in workers: over 8 s on a loaded machine
@pytest.mark.parametrize("family", FAMILIES)
def test_the_plan_of_the_bundled_suites_takes_each_familys_route(family):
    """`evalkit plan` builds the judge's requests by the run's route for the model, and prices the room
    a thinking judge may think in."""
    from evalkit.engine import plan_calls
    from evalkit.llm.capabilities import CapabilityTable
    from evalkit.scoring.structured import route_for

    plan = demo_plan(bundled_suites_dir(), DEMO_BASE)
    estimate = plan_calls(
        load_suites([path for path, _ in plan]), model=family, judge_model=family, no_cache=True, count_tokens=False
    )
    assert estimate.calls() > 0 and not estimate.cost()[1]  # every model priced
    assert estimate.thinking_room == route_for(CapabilityTable().of(family)).room
