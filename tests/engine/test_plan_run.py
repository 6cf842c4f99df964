"""`evalkit plan` as a run (evalkit/engine/plan_run.py): the runner against the estimating provider
makes the calls a run makes against the loopback fake, for the bundled suites and the examples, on an
empty cache and on the cache the run filled, and no request reaches a model.

The one figure that cannot be exact is a tool loop's turns on an empty cache: how many turns a model
takes is its own choice, known only once it answers. pace_ai's agent suite is counted at 3 turns a
loop (planning.TOOL_TURNS_GUESS): 18 target calls for its 6 loops, where the demo's scripted agent takes
2 turns for the runners whose training load alone decides and 3 for the others (16): 26 planned, 24
made. The support agent of agent_trajectory takes 3 turns a loop, as estimated."""

from __future__ import annotations

import pytest

from evalkit.engine import load_suites
from evalkit.engine.plan_provider import EstimatingProvider, loop_turn, stand_in_value
from evalkit.engine.plan_run import plan_run
from evalkit.llm.providers.interface import ModelRequest
from evalkit.scoring import asked_ids, judge_request
from evalkit.testing.fake_anthropic import FakeAnthropicServer
from evalkit.testing.script import Script
from tests.engine.test_plan_count_equals_run import CASES, calls_of_a_run

EXACT_EXCEPT = {"pace_ai_agent": (26, 24)}  # (planned, made): the loops' turns, see the module's docstring


@pytest.mark.parametrize("name", CASES)
def test_the_plans_run_makes_the_calls_a_run_makes(name, tmp_path, monkeypatch):
    path, script, _ = CASES[name]()
    suites = load_suites([path])
    with FakeAnthropicServer(Script()) as refusing:  # where a key and a base URL would send a target's own calls
        monkeypatch.setenv("ANTHROPIC_BASE_URL", refusing.url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "k")
        cold = plan_run(suites, cache_dir=tmp_path / "cache")
        assert refusing.requests == []
    made = calls_of_a_run(suites, script, tmp_path / "cache")
    assert (len(cold.answered), made) == EXACT_EXCEPT.get(name, (made, made))
    warm = plan_run(suites, cache_dir=tmp_path / "cache")
    assert (len(warm.answered), warm.usage.cache_hits > 0) == (0, True)


def test_a_structured_request_gets_a_valid_failing_answer():
    request = judge_request("claude-haiku-5-5", "an output", {"a": "is short", "b": "is kind"})
    assert asked_ids(request) == ["a", "b"]
    reply = pytest.importorskip("asyncio").run(
        EstimatingProvider(out_tokens=lambda r: 10, loop_turns=lambda r: 3).generate(request))
    assert [(i["id"], i["verdict"]) for i in reply.tool_input["items"]] == [("a", "fail"), ("b", "fail")]
    assert all(i["reason"] for i in reply.tool_input["items"])


def test_a_value_matches_its_schema():
    schema = {"type": "object", "properties": {"n": {"type": ["number", "null"]}, "kind": {"enum": ["x", "y"]},
                                               "tags": {"type": "array"}, "name": {"type": "string"}}}
    assert stand_in_value(schema) == {"n": None, "kind": "x", "tags": [], "name": "estimated"}


def test_a_conversations_turn_counts_its_own_loop():
    tool_result = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "content": "1"}]}
    earlier = ({"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"})
    asking = ModelRequest("m", (*earlier, {"role": "user", "content": "and now?"}))
    assert loop_turn(asking) == 1
    then = ModelRequest("m", (*asking.messages, {"role": "assistant", "content": [{"type": "tool_use", "id": "t",
                                                                                    "name": "f", "input": {}}]},
                              tool_result))
    assert loop_turn(then) == 2
