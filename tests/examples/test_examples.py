"""The examples/ suites, plain YAML ports of an agent-trajectory and a multi-turn evaluation, run
against the loopback fake with scripted replies: a sound agent passes, and an agent that errs
fails on the very checks the example is about."""

from __future__ import annotations

import re
from pathlib import Path

from evalkit.engine import load_suites, make_client, run
from evalkit.llm.providers.anthropic import AnthropicProvider
from evalkit.run.runner import RunOptions
from evalkit.testing.fake_anthropic import FakeAnthropicServer
from evalkit.testing.script import JUDGE_TOOL, Script, request_text, requested_tool

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
_IDS = re.compile(r"exactly these ids: (.+?)\.\s*$", re.S)


def passing_judge(body: dict) -> dict:
    ids = [i.strip() for i in _IDS.search(request_text(body)).group(1).split(",")]
    return {"items": [{"id": i, "verdict": "pass", "reason": "meets it (scripted)"} for i in ids]}


def run_example(name: str, script: Script, tmp_path: Path):
    with FakeAnthropicServer(script.respond(passing_judge, tool=JUDGE_TOOL)) as fake:
        client = make_client(AnthropicProvider(api_key="k", base_url=fake.url), cache_dir=tmp_path, deprecated=None)
        report = run(load_suites([EXAMPLES / name]), client, RunOptions())
        return {c.id: c for c in report.suites[0].cases}, fake.requests


def support_agent(refund_in_transit: bool = False) -> Script:
    s = Script()
    s.tool_use([("find_order", {"order_id": "A-1001"})], prompt="A-1001", turn=1)
    s.tool_use([("order_status", {"order_id": "A-1001"})], prompt="A-1001", turn=2)
    s.tool_use([("issue_refund", {"order_id": "A-1001", "reason": "arrived damaged"})], prompt="A-1001", turn=3)
    s.reply("Done: refund R-77 of 249 EUR is on its way.", prompt="A-1001", turn=4)
    s.tool_use([("find_order", {"order_id": "B-2002"})], prompt="B-2002", turn=1)
    s.tool_use([("order_status", {"order_id": "B-2002"})], prompt="B-2002", turn=2)
    if refund_in_transit:
        s.tool_use([("issue_refund", {"order_id": "B-2002", "reason": "customer asked"})], prompt="B-2002", turn=3)
        s.reply("Refunded.", prompt="B-2002", turn=4)
    else:
        s.reply("B-2002 is on its way and should arrive on 2026-11-28.", prompt="B-2002", turn=3)
    s.tool_use([("find_order", {"order_id": "C-3003"})], prompt="C-3003", turn=1)
    s.reply("I can't look C-3003 up right now; I'll email you as soon as I can.", prompt="C-3003", turn=2)
    return s


def test_the_agent_trajectory_example_passes_a_sound_agent(tmp_path):
    cases, requests = run_example("agent_trajectory", support_agent(), tmp_path)
    assert {i: c.verdict for i, c in cases.items()} == dict.fromkeys(cases, "pass")
    failed_lookup = [s for s in cases["lookup-fails-and-is-handled"].runs[0].trace if s.type == "tool_call"]
    assert failed_lookup[0].error == "order service unavailable (503)"  # scripted, matched on its arguments


def test_the_agent_trajectory_example_catches_a_refund_of_an_order_in_transit(tmp_path):
    cases, _ = run_example("agent_trajectory", support_agent(refund_in_transit=True), tmp_path)
    bad = cases["in-transit-not-refunded"]
    assert bad.verdict == "fail"
    failed = {it.id.split(":", 1)[-1] for it in bad.runs[0].items if it.status == "fail"}
    assert failed == {"tool_not_called", "contains"}


def cooking(forgets_name: bool = False) -> Script:
    s = Script()
    s.reply("Hi Priya! Vegetarian and quick: noted.", prompt="I'm Priya", turn=1)
    s.reply(
        "You're Sam." if forgets_name else "You're Priya, and you're vegetarian.", prompt="What was my name", turn=3
    )
    s.reply("A chickpea and spinach curry: 15 minutes.", prompt="Suggest one dinner", turn=2)
    s.reply("Four eggs for two: cook the spinach, then pour the eggs, then the feta.", prompt="How many eggs")
    return s


def test_the_multi_turn_example_runs_each_turn_on_the_history_so_far(tmp_path):
    cases, requests = run_example("multi_turn", cooking(), tmp_path)
    assert {i: c.verdict for i, c in cases.items()} == dict.fromkeys(cases, "pass")
    third = next(b for b in requests if "What was my name" in str(b["messages"][-1]) and requested_tool(b) is None)
    assert [m["role"] for m in third["messages"]] == ["user", "assistant", "user", "assistant", "user"]
    # The known state: the scripted assistant turn is in the history, and its user turn was never sent alone.
    eggs = [b for b in requests if "How many eggs" in str(b["messages"][-1]) and requested_tool(b) is None]
    assert len(eggs) == 1 and "spinach and feta omelette" in str(eggs[0]["messages"][1])
    assert not any(len(b["messages"]) == 1 and "eggs, spinach and feta" in str(b["messages"][0]) for b in requests)


def test_the_multi_turn_example_catches_a_forgotten_name_on_its_turn(tmp_path):
    cases, _ = run_example("multi_turn", cooking(forgets_name=True), tmp_path)
    bad = cases["remembers-diet-and-name"]
    assert bad.verdict == "fail"
    assert {it.id for it in bad.runs[0].items if it.status == "fail"} == {
        "turn 3: check1:contains",
        "turn 3: check2:regex",
    }
