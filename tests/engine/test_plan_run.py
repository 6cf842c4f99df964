"""The estimating provider `evalkit plan` runs the runner against (evalkit/engine/plan_provider.py):
what it answers. That the plan's calls are a run's: test_plan_count_equals_run."""

from __future__ import annotations

import asyncio

from evalkit.engine.plan_provider import EstimatingProvider, loop_turn, stand_in_value
from evalkit.llm.providers.interface import ModelRequest
from evalkit.scoring import asked_ids, judge_request


def test_a_structured_request_gets_a_valid_failing_answer():
    request = judge_request("claude-haiku-5-5", "an output", {"a": "is short", "b": "is kind"})
    assert asked_ids(request) == ["a", "b"]
    reply = asyncio.run(EstimatingProvider(out_tokens=lambda r: 10, loop_turns=lambda r: 3).generate(request))
    assert [(i["id"], i["verdict"]) for i in reply.tool_input["items"]] == [("a", "fail"), ("b", "fail")]
    assert all(i["reason"] for i in reply.tool_input["items"])


def test_a_value_matches_its_schema():
    schema = {
        "type": "object",
        "properties": {
            "n": {"type": ["number", "null"]},
            "kind": {"enum": ["x", "y"]},
            "tags": {"type": "array"},
            "name": {"type": "string"},
        },
    }
    assert stand_in_value(schema) == {"n": None, "kind": "x", "tags": [], "name": "estimated"}


def test_a_conversations_turn_counts_its_own_loop():
    tool_result = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "content": "1"}]}
    earlier = ({"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"})
    asking = ModelRequest("m", (*earlier, {"role": "user", "content": "and now?"}))
    assert loop_turn(asking) == 1
    then = ModelRequest(
        "m",
        (
            *asking.messages,
            {"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "f", "input": {}}]},
            tool_result,
        ),
    )
    assert loop_turn(then) == 2
