"""The agent suite's gold set (suites/pace_ai/gold/agent/agent.yml, written by agent_gold_set.py): every
code-decided label agrees with the suite's code, each behaviour of issue 38 is caught by code alone on
purpose-built runs in other layouts and units than the demo's, and every sound run passes."""

from __future__ import annotations

from pathlib import Path

import agent_gold_set
import pytest
from pace_ai.agent_checks import PlanChanged, SpikeWeek, risk_in_body

from evalkit.checks.base import CheckContext
from evalkit.engine.selftest import code_verdicts, selftest
from evalkit.suite import load_suite
from evalkit.trace.steps import Step

SUITE = Path(__file__).resolve().parents[3] / "suites" / "pace_ai" / "agent.suite.yml"


@pytest.fixture(scope="module")
def suite():
    return load_suite(SUITE)


def test_the_gold_file_is_what_agent_gold_set_writes():
    assert agent_gold_set.OUT.read_text(encoding="utf-8") == agent_gold_set.dump()


def test_selftest_agrees_with_every_code_label_of_the_agent_gold_set(suite):
    result = selftest(suite)
    assert result.ok, [d.describe() for d in result.disagreements] + result.problems
    assert len(suite.gold) >= 40 and result.compared >= 200


def _failed_by_code(suite, gold) -> set[str]:
    return {i for i, r in code_verdicts(suite, gold).items() if r.status == "fail"}


def _code_labels(suite, gold) -> dict[str, str]:
    items = {it.id: it for it in suite.case(gold.case_id).gold_items}
    return {i: label for i, label in gold.labels.items() if items[i].check is not None}


def test_code_alone_fails_every_bad_run_and_no_sound_one(suite):
    bad = [g for g in suite.gold if "fail" in _code_labels(suite, g).values()]
    sound = [g for g in suite.gold if "fail" not in _code_labels(suite, g).values()]
    assert len(bad) >= 16 and len(sound) >= 20
    missed = [g.note for g in bad if not _failed_by_code(suite, g)]
    wrongly = {g.note: _failed_by_code(suite, g) for g in sound if _failed_by_code(suite, g)}
    assert missed == [] and wrongly == {}


@pytest.mark.parametrize(
    "note, item",
    [
        ("prediction 57:30, the tool said 1:00:17", "pace_figures_from_tools"),
        ("per-mile paces converted with 1.5", "pace_paces_in_session_zones"),
        ("prediction failed; VDOT 45 invented for the zones and a prediction written", "pace_tool_errors_followed"),
        ("easy runs at threshold-to-marathon pace", "pace_paces_in_session_zones"),
        ("prediction for 10K, the goal is a half marathon", "pace_tool_inputs_from_data"),
        ("ACWR quoted right, then explained away", "pace_spike_week"),
        ("injury risk only in a footnote", "pace_spike_week"),
        ("volume cut, intervals kept", "pace_spike_week"),
        ("a pace for one run only", "pace_runs_have_paces"),
        ("turn 2: the same week kept", "pace_plan_changed"),
        ("turn 2: one rest word added, threshold and long run kept", "pace_plan_changed"),
        ("turn 2: long run kept", "pace_plan_changed"),
        ("turn 2: 'run through it'", "pace_plan_changed"),
    ],
)
def test_each_behaviour_of_issue_38_fails_its_code_item(suite, note, item):
    gold = next(g for g in suite.gold if g.note == note)
    assert any(i.endswith(item) for i in _failed_by_code(suite, gold)), note


@pytest.mark.parametrize(
    "note",
    [
        "turn 2: no running, see a physio (sound)",
        "turn 2: 'no tempo or intervals', short easy runs (sound)",
        "prediction failed; zones from the runner's own race, no prediction written",
    ],
)
def test_sound_answers_the_old_checks_failed_now_pass(suite, note):
    gold = next(g for g in suite.gold if g.note == note)
    assert _failed_by_code(suite, gold) == set()


def test_the_risk_flag_must_be_in_the_body_and_not_explained_away():
    plan = "- Mon: rest\n- Tue: 5 km easy\n- Wed: rest\n- Thu: 5 km easy\n- Sun: 8 km long"
    assert risk_in_body("This load spike is a real injury risk.\n" + plan) is None
    assert "footnote" in risk_in_body(plan + "\n\n¹ Some injury risk.")
    assert "explained away" in risk_in_body("A load spike, but nothing to worry about.\n" + plan)
    assert "explained away" in risk_in_body("There is no injury risk here.\n" + plan)
    assert "never flags" in risk_in_body("Easy week.\n" + plan)


def _spike_trace():
    return [
        Step.tool_call(
            "analyze_training_load",
            {"weekly_distances": [35, 20, 42, 18, 15, 30, 8, 48]},
            result={"acwr_2dp": 1.9, "acwr": 1.901},
        )
    ]


def test_a_spike_week_above_last_week_fails_even_when_it_says_it_cuts():
    text = (
        "Load spike: real injury risk, we cut intensity.\n- Mon: 10 km easy\n- Tue: 10 km easy\n- Wed: rest\n"
        "- Thu: 10 km easy\n- Fri: 10 km easy\n- Sun: 12 km long"
    )
    ctx = CheckContext(
        output=text,
        input={"weekly_km": [35, 20, 42, 18, 15, 30, 8, 48]},
        trace=_spike_trace(),
        fields={
            "days": [],
            "flags_injury_risk": True,
            "injury_warning_quote": "Load spike: real injury risk, we cut intensity.",
        },
    )
    outcome = SpikeWeek().evaluate(ctx)
    assert outcome.passed is False and "not below last week's 48 km" in outcome.reason


def test_plan_changed_needs_an_earlier_turn():
    ctx = CheckContext(output="- Mon: rest", trace=[Step.message("assistant", "- Mon: rest")], fields={"days": []})
    assert PlanChanged().evaluate(ctx).passed is False
