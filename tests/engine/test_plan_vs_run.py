"""`evalkit plan` counts what a run does, by the runner's rules: on both bundled suites against the
loopback fake, the planned calls are within 10 % of the requests the fake receives."""

from __future__ import annotations

import collections
from pathlib import Path

import pytest
from click.testing import CliRunner

from evalkit.cli.commands import main
from evalkit.cli.demo import bundled_suites_dir, demo_plan
from evalkit.engine import load_suites, make_client, plan_calls, run
from evalkit.llm.providers.anthropic import AnthropicProvider
from evalkit.run.runner import RunOptions
from evalkit.testing.fake_anthropic import FakeAnthropicServer
from evalkit.testing.script import requested_tool


def run_against_fake(suites, script, cache: Path):
    """Run `suites` through the real anthropic client; the fake's requests, counted by kind."""
    with FakeAnthropicServer(script) as fake:
        client = make_client(
            AnthropicProvider(api_key="test-key", base_url=fake.url), concurrency=8, cache_dir=cache, deprecated=None
        )
        report = run(suites, client, RunOptions())
        kinds = collections.Counter(requested_tool(body) or "target" for body in fake.requests)
    return report, kinds


def within_10_percent(planned: int, made: int) -> bool:
    return abs(planned - made) <= 0.1 * made


@pytest.mark.slow
@pytest.mark.parametrize("name", ["help_agents", "pace_ai", "pace_ai/agent.suite.yml"])
def test_plan_matches_the_run_within_10_percent(name, tmp_path):
    [(folder, script)] = demo_plan(bundled_suites_dir(), ((name, "pass"),))
    # pace_ai's folder also holds the agent's suite, which its demo replies do not answer: suite.yml alone.
    path = folder / "suite.yml" if (folder / "suite.yml").is_file() else folder
    suites = load_suites([path])
    tools = name.endswith(".suite.yml")  # the agent: a prompt target with tools

    # Before any run: callable targets are run up to their model calls with a stand-in for the model,
    # so their requests are counted as rendered (identical ones once); judge and extraction are counted.
    # A prompt target's tool loops are run so too, and estimated past their first reply (none is cached).
    blind = plan_calls(suites, cache_dir=tmp_path / "fresh")
    if tools:
        assert all(0 < line.estimated_loops == line.tool_loops and not line.unknown_runs for line in blind.lines)
        assert "tool loops:" in blind.render() and " estimated:" in blind.render()
    else:
        assert all(line.rendered_runs == line.runs and not line.unknown_runs for line in blind.lines)
        assert "counted as rendered" in blind.render() and "unknown for" not in blind.render()
    assert not [p for p in (tmp_path / "fresh").rglob("*") if p.is_file()]  # the stand-in's replies are never cached
    first, kinds = run_against_fake(suites, script, tmp_path / "cache")
    results = tmp_path / "first.json"
    first.save(results)
    judged = sum(ln.judge_calls + ln.extraction_calls + ln.graded_calls for ln in blind.lines)
    made = kinds["record_verdicts"] + kinds["record_fields"] + kinds["record_verdicts_and_fields"]
    assert within_10_percent(judged, made), (judged, kinds)
    assert sum(ln.graded_calls for ln in blind.lines) == kinds["record_verdicts_and_fields"], kinds
    if tools:  # the loops' turns are a guess: at least one model call per loop, at most max_steps
        loops, steps = sum(ln.tool_loops for ln in blind.lines), suites[0].target.max_steps
        assert loops <= sum(ln.target_calls for ln in blind.lines) <= loops * steps
    else:
        assert within_10_percent(blind.calls(), sum(kinds.values())), (blind.calls(), kinds)

    # With the first run's results, on an empty cache: the targets' calls as measured, shared requests once.
    planned = plan_calls(suites, results=str(results), cache_dir=tmp_path / "empty").calls()
    _, again = run_against_fake(suites, script, tmp_path / "empty")
    assert within_10_percent(planned, sum(again.values())), (planned, again)

    # On the cache the first run filled: cached requests are free, and the run makes (almost) none.
    cached = plan_calls(suites, results=str(results), cache_dir=tmp_path / "cache").calls()
    _, third = run_against_fake(suites, script, tmp_path / "cache")
    assert abs(cached - sum(third.values())) <= max(1, 0.1 * sum(third.values())), (cached, third)
    # Without the results too: the stand-in serves the cached replies, so the targets' outputs are known.
    rendered = plan_calls(suites, cache_dir=tmp_path / "cache").calls()
    assert abs(rendered - sum(third.values())) <= max(1, 0.1 * sum(third.values())), (rendered, third)
    if tools:  # the loops followed exactly from the cache: every request the first run made, each free
        exact = plan_calls(suites, cache_dir=tmp_path / "cache")
        assert (exact.calls(), sum(third.values())) == (0, 0) and "tool loops: all" in exact.render()
        assert sum(ln.cached for ln in exact.lines) == sum(kinds.values()), (exact.render(), kinds)

    out = CliRunner().invoke(
        main, ["plan", str(path), "--results", str(results), "--cache-dir", str(tmp_path / "empty2")]
    )
    assert out.exit_code == 0 and f"total: {planned} model calls" in out.output, out.output


def test_the_plan_counts_a_traced_runs_judge_request_as_the_run_sent_it(write, tmp_path):
    """The judge's request holds the run's trajectory: the plan builds it the same way, so a judge
    reply the run cached is counted as cached (built without the trace, it would count as new)."""
    from evalkit.scoring.judge import JUDGE_TOOL
    from evalkit.testing.script import Script
    from evalkit.testing.scripted import ScriptedProvider
    from tests.conftest import verdicts

    write(
        "agent.py",
        """
        from evalkit import TargetResult

        def run(input):
            steps = [{"type": "tool_call", "name": "lookup", "arguments": {"id": input}, "result": "found"}]
            return TargetResult("found it", trace=steps)
    """,
    )
    path = write(
        "suite.yml",
        """
        target: agent:run
        cases:
          - {id: a, input: A1, checks: [{type: llm_judge, criteria: Uses the lookup}]}
    """,
    )
    suites = load_suites([path])
    provider = ScriptedProvider(Script().tool_reply(JUDGE_TOOL, verdicts({"check1:llm_judge": "pass"})))
    report = run(suites, make_client(provider, cache_dir=tmp_path / "cache", deprecated=None), RunOptions())
    assert report.suites[0].cases[0].runs[0].trace is not None and len(provider.requests) == 1
    assert "<trajectory-" in provider.requests[0]["messages"][0]["content"]
    results = tmp_path / "results.json"
    report.save(results)
    estimate = plan_calls(suites, results=str(results), cache_dir=tmp_path / "cache", count_tokens=False)
    assert (estimate.lines[0].free, estimate.calls()) == (1, 0), estimate.render()  # the judge call, cached
