"""`evalkit plan` on a prompt target with `tools:`: the tool loop is run against a stand-in for the
model that answers from the response cache. On the cache a real run filled, the plan counts exactly
the run's requests, all cached, and its judge requests (which hold the run's trajectory) are exact;
on an empty cache the loops are estimated, and the plan says so."""

from __future__ import annotations

import collections
import json
from pathlib import Path

from evalkit.engine import load_suites, make_client, plan_calls, run
from evalkit.engine.planning import TOOL_TURNS_GUESS
from evalkit.llm.providers.anthropic import AnthropicProvider
from evalkit.run.runner import RunOptions
from evalkit.scoring.judge import JUDGE_TOOL
from evalkit.testing.fake_anthropic import FakeAnthropicServer
from evalkit.testing.script import Script, requested_tool
from tests.conftest import verdicts

SUITE = """
name: weather-agent
model: claude-haiku-4-5-20251001
target:
  system: "You answer with the weather."
  prompt: "What should {{ name }} wear in {{ city }}?"
  max_steps: 4
  tools:
    - name: get_weather
      description: The weather in a city now.
      input_schema: {type: object, properties: {city: {type: string}}, required: [city]}
      function: weather_tools:get_weather
    - name: lookup_wardrobe
      description: What the person owns.
      input_schema: {type: object, properties: {person: {type: string}}, required: [person]}
checks:
  - {type: llm_judge, criteria: "Recommends clothes the person owns"}
cases:
  - id: ada
    input: {name: Ada, city: Paris}
    repeats: 2
    tool_results:
      lookup_wardrobe: [{result: [raincoat, sandals]}]
  - id: bo
    input: {name: Bo, city: Lyon}
    tool_results:
      lookup_wardrobe: [{result: [umbrella]}]
"""

WEATHER_TOOLS = """
def get_weather(city):
    return {"city": city, "sky": "rain", "temp_c": 11}
"""


def agent_script() -> Script:
    return (
        Script()
        .tool_use(
            [("get_weather", {"city": "Paris"}), ("lookup_wardrobe", {"person": "Ada"})],
            text="Let me check.",
            turn=1,
            prompt="Ada",
        )
        .tool_use([("get_weather", {"city": "Lyon"})], turn=1, prompt="Bo")
        .tool_use([("lookup_wardrobe", {"person": "Bo"})], turn=2, prompt="Bo")
        .reply("Wear the raincoat.", turn=2)
        .reply("Take the umbrella.", turn=3)
        .tool_reply(JUDGE_TOOL, verdicts({"check1:llm_judge": "pass"}))
    )


def run_against_fake(suites, cache: Path):
    with FakeAnthropicServer(agent_script()) as fake:
        client = make_client(AnthropicProvider(api_key="test-key", base_url=fake.url), cache_dir=cache, deprecated=None)
        report = run(suites, client, RunOptions())
        kinds = collections.Counter(requested_tool(body) or "target" for body in fake.requests)
        judged = [json.dumps(b) for b in fake.requests if requested_tool(b) == JUDGE_TOOL]
    return report, kinds, judged


def test_a_plan_on_the_cache_a_run_filled_counts_its_tool_loops_exactly(write, tmp_path):
    write("weather_tools.py", WEATHER_TOOLS)
    suites = load_suites([write("s.yml", SUITE)])
    report, kinds, judged = run_against_fake(suites, tmp_path / "cache")
    assert all(c.verdict == "pass" for c in report.suites[0].cases), [c.reasons for c in report.suites[0].cases]
    # Ada: 2 model turns per run (2 runs), Bo: 3; one judge call per run, each holding the trajectory.
    assert kinds == {"target": 7, JUDGE_TOOL: 3}, kinds
    assert all("get_weather" in body and "<trajectory-" in body for body in judged)

    estimate = plan_calls(suites, cache_dir=tmp_path / "cache", count_tokens=False)
    line = estimate.lines[0]
    # Every request the run made, built as the run built it (the judge's with the trace): all cached.
    assert (estimate.calls(), line.free, line.cached, estimate.cost()[0]) == (0, 10, 10, 0.0), estimate.render()
    assert (line.tool_loops, line.estimated_loops) == (3, 0)
    assert "tool loops: all 3 exact" in estimate.render() and "estimated:" not in estimate.render()

    # The same requests on an empty cache, with the run's trajectories unknown: every loop estimated.
    blind = plan_calls(suites, cache_dir=tmp_path / "empty", count_tokens=False)
    line = blind.lines[0]
    assert (line.tool_loops, line.estimated_loops) == (3, 3)
    assert "tool loops: 3 of 3 estimated" in blind.render()
    assert line.runs <= line.target_calls <= 4 * line.runs  # at least one model call per run, at most max_steps
    assert line.target_calls == 3 * TOOL_TURNS_GUESS and line.judge_calls == 3


def test_a_loop_the_cache_finishes_for_one_repeat_sets_the_estimate_of_the_other(write, tmp_path):
    write("weather_tools.py", WEATHER_TOOLS)
    suites = load_suites([write("s.yml", SUITE)])
    run_against_fake(suites, tmp_path / "cache")
    # Three runs of each case: Ada's third and Bo's second and third are not in the cache, and are
    # estimated at the turns their case's cached runs took (Ada 2, Bo 3), not at the fixed guess.
    estimate = plan_calls(suites, cache_dir=tmp_path / "cache", count_tokens=False, repeat=3)
    line = estimate.lines[0]
    assert (line.tool_loops, line.estimated_loops) == (6, 3)
    assert (line.target_calls, line.judge_calls) == (2 + 3 + 3, 3), estimate.render()
    assert "tool loops: 3 of 6 estimated" in estimate.render()


CONVERSATION = """
model: claude-haiku-4-5-20251001
target:
  prompt: "unused"
  max_steps: 5
  tools:
    - name: get_weather
      input_schema: {type: object, properties: {city: {type: string}}}
cases:
  - id: c
    tool_results:
      get_weather: [{result: {sky: rain}}]
    conversation:
      - user: "Hello"
        checks: [{type: llm_judge, criteria: "Greets back"}]
      - user: "What should I wear in Paris?"
    checks: [{type: llm_judge, criteria: "Recommends a raincoat"}]
"""


def test_a_conversation_s_tool_loops_are_followed_turn_by_turn(write, tmp_path, fake_anthropic):
    suites = load_suites([write("s.yml", CONVERSATION)])
    script = (
        Script()
        .reply("Hi!", turn=1)
        .tool_use([("get_weather", {"city": "Paris"})], text="Checking.", turn=2)
        .reply("A raincoat.", turn=3)
        .tool_reply(JUDGE_TOOL, verdicts({"turn 1: check1:llm_judge": "pass"}), prompt="Greets back")
        .tool_reply(JUDGE_TOOL, verdicts({"check1:llm_judge": "pass"}))
    )
    fake = fake_anthropic(script)
    client = make_client(
        AnthropicProvider(api_key="test-key", base_url=fake.url), cache_dir=tmp_path / "cache", deprecated=None
    )
    report = run(suites, client, RunOptions())
    made = len(fake.requests)
    run_ = report.suites[0].cases[0].runs[0]
    assert run_.output == "A raincoat." and all(i.status == "pass" for i in run_.items), run_.items
    assert made == 3 + 2  # turn 1: one model call, turn 2: two; each turn judged

    cached = plan_calls(suites, cache_dir=tmp_path / "cache", count_tokens=False)
    assert (cached.calls(), cached.lines[0].cached, cached.lines[0].tool_loops) == (0, made, 2), cached.render()

    blind = plan_calls(suites, cache_dir=tmp_path / "empty", count_tokens=False)
    line = blind.lines[0]
    assert (line.tool_loops, line.estimated_loops) == (2, 2) and "2 of 2 estimated" in blind.render()
    assert (line.target_calls, line.judge_calls) == (2 * TOOL_TURNS_GUESS, 2)
