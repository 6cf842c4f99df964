"""The pace-ai coach as a tool-using agent (suites/pace_ai/agent.suite.yml) against the loopback fake
with its scripted tool-use replies (agent_demo.py): the real tools answer the model's calls, and the
suite's trajectory checks tell a sound agent from one that skips a tool and invents its numbers."""

from __future__ import annotations

import json
from pathlib import Path

import agent_demo
import pytest
from pace_ai.agent_checks import AcwrFromTool, EasyPaceUsed, PacesFromTools

from evalkit.checks.base import CheckContext
from evalkit.engine import load_suites, make_client, run
from evalkit.llm.providers.anthropic import AnthropicProvider
from evalkit.run.runner import RunOptions
from evalkit.testing.fake_anthropic import FakeAnthropicServer
from evalkit.trace.steps import Step

SUITE = Path(__file__).resolve().parents[3] / "suites" / "pace_ai" / "agent.suite.yml"


def run_agent(variant: str, tmp_path: Path):
    with FakeAnthropicServer(agent_demo.script(variant)) as fake:
        client = make_client(
            AnthropicProvider(api_key="k", base_url=fake.url), cache_dir=tmp_path / "cache", deprecated=None
        )
        report = run(load_suites([SUITE]), client, RunOptions())
        return report, fake.requests


@pytest.fixture(scope="module")
def sound(tmp_path_factory):
    return run_agent("pass", tmp_path_factory.mktemp("sound"))


def test_a_sound_agent_passes_every_case_with_its_tool_calls_recorded(sound):
    report, _ = sound
    cases = {c.id: c for c in report.suites[0].cases}
    assert {i: c.verdict for i, c in cases.items()} == dict.fromkeys(cases, "pass")
    trace = cases["agent/injury_risk_female"].runs[0].trace
    calls = [s for s in trace if s.type == "tool_call"]
    assert [c.name for c in calls] == ["analyze_training_load", "predict_race_time", "calculate_training_zones"]
    assert calls[0].arguments == {"weekly_distances": [35, 20, 42, 18, 15, 30, 8, 48]}
    assert calls[0].result["acwr_2dp"] == 1.9  # the suite's own tool answered, in a worker process
    assert calls[2].arguments == {"vdot": calls[1].result["vdot"]}


def test_the_conversation_sends_the_first_reply_back_and_changes_the_plan(sound):
    report, requests = sound
    case = next(c for c in report.suites[0].cases if c.id == "agent/niggle_conversation")
    coach = [b for b in requests if any(t["name"] == "analyze_training_load" for t in b.get("tools", []))]
    achilles = [b for b in coach if "Achilles" in json.dumps(b["messages"][-1])]
    assert len(achilles) == 1
    history = achilles[0]["messages"]
    assert history[0]["role"] == "user" and "Emma Lindqvist" in history[0]["content"]
    assert any(m["role"] == "assistant" and "Week plan for Emma" in json.dumps(m["content"]) for m in history)
    ids = {it.id for it in case.runs[0].items}
    assert {"turn 2: plan_changes", "turn 2: sees_physio"} <= ids
    assert case.runs[0].output.startswith("I'm sorry about the Achilles")


def test_an_agent_that_skips_a_tool_and_invents_its_numbers_fails_on_its_trajectory(tmp_path):
    report, _ = run_agent("fail", tmp_path)
    cases = {c.id: c for c in report.suites[0].cases}
    failed = {i for i, c in cases.items() if c.verdict != "pass"}
    assert failed == agent_demo.EXPECTED_FAILURES
    items = {
        it.id.split(":", 1)[-1]: it for it in cases["agent/injury_risk_female"].runs[0].items if it.status == "fail"
    }
    assert set(items) == {
        "tool_sequence",
        "pace_paces_from_tools",
        "tool_called",
        "pace_acwr_from_tool",
        "pace_easy_pace_used",
        "load_explained",
        "flags_injury_risk",
        "pace_figures_from_tools",
        "pace_paces_in_session_zones",
        "pace_spike_week",
    }
    assert "ACWR 1.2 is not the tool's 1.9" in items["pace_figures_from_tools"].reason
    assert "hard sessions at ACWR 1.9" in items["pace_spike_week"].reason
    assert "the tool computed 1.9" in items["pace_acwr_from_tool"].reason
    assert "critical item failed: flags_injury_risk" in cases["agent/injury_risk_female"].reasons


def _zones_trace(easy=(327.6, 370.4)) -> list[Step]:
    return [
        Step.tool_call("analyze_training_load", {"weekly_distances": [1]}, result={"acwr_2dp": 1.9}),
        Step.tool_call("predict_race_time", {}, result={"predicted_sec_per_km": 291.0}),
        Step.tool_call(
            "calculate_training_zones",
            {"vdot": 43.9},
            result={
                "zones": {
                    "easy": {"min_sec_per_km": easy[0], "max_sec_per_km": easy[1], "pace": "5:28-6:10/km"},
                    "threshold": {"min_sec_per_km": 283.5, "max_sec_per_km": 283.5},
                }
            },
        ),
    ]


@pytest.mark.parametrize(
    "text, passed, reason",
    [
        ("Easy at 5:30/km, tempo at 4:43/km, race at 4:51/km.", True, "all 3 paces"),
        ("Easy at 9:20/mi.", True, "all 1 paces"),  # 9:20/mi = 348 s/km: in the easy zone
        ("Easy at 5:30/km and strides at 3:40/km.", False, "1 of 2 paces came from no tool: 3:40/km"),
        ("- Mon: 8 km easy\n- Tue: rest\n- Wed: 6 km easy\n- Thu: rest\n- Sun: 12 km long", False, "no pace at all"),
        ("No running until the Achilles settles; see a physio.", None, "prescribes no run"),
    ],
)
def test_paces_from_tools(text, passed, reason):
    outcome = PacesFromTools().evaluate(CheckContext(output=text, trace=_zones_trace()))
    assert outcome.passed is passed and reason in outcome.reason


@pytest.mark.parametrize(
    "text, passed, reason",
    [
        ("Your ACWR is 1.90 (high).", True, "quotes the tool's ACWR 1.9"),
        ("Your acute:chronic workload ratio of 1.9 means a spike.", True, "1.9"),
        ("ACWR 1.2, all fine.", False, "quotes ACWR 1.2; the tool computed 1.9"),
        ("Your load is fine.", False, "never quotes the ACWR"),
    ],
)
def test_acwr_from_tool(text, passed, reason):
    outcome = AcwrFromTool().evaluate(CheckContext(output=text, trace=_zones_trace()))
    assert outcome.passed is passed and reason in outcome.reason


def test_the_agent_checks_fail_without_a_trajectory_or_the_tool_they_read():
    assert "no trajectory" in EasyPaceUsed().evaluate(CheckContext(output="5:30/km")).reason
    assert EasyPaceUsed().evaluate(CheckContext(output="5:30/km", trace=_zones_trace()[:2])).passed is False
    assert AcwrFromTool().evaluate(CheckContext(output="ACWR 1.9", trace=_zones_trace()[1:])).passed is False
