"""The agent suite's trajectory checks on runs written here by hand, in layouts and units the demo and the
gold set do not use (numbered lists, lower-case day names, paces per mile, minutes), from other tools'
result shapes and from sloppy extractions: each test is a bad agent that must be caught or a sound one
that must pass. Found by the generated mutants (benchmarks/generated_mutants.py) that survived the
gold set."""

from __future__ import annotations

from typing import Any

import pytest
from pace_ai.agent_checks import (
    FiguresFromTools,
    PacesFromTools,
    PacesInSessionZones,
    PlanChanged,
    RunsHavePaces,
    SpikeWeek,
    ToolInputsFromData,
)
from pace_ai.tools import analyze_training_load, calculate_training_zones, predict_race_time

from evalkit.checks.base import CheckContext
from evalkit.trace.steps import Step

EMMA = {
    "name": "Emma",
    "age": 35,
    "weekly_km": [24, 26, 27, 28, 30, 29, 28, 25],
    "recent_race": {"distance": "5K", "time": "25:10"},
    "goal": {"distance": "half_marathon", "date": "2027-01-17", "time": "1:55:00"},
}
SOFIA = {
    "name": "Sofia",
    "age": 28,
    "weekly_km": [35, 20, 42, 18, 15, 30, 8, 48],
    "recent_race": {"distance": "10K", "time": "46:10"},
    "goal": {"distance": "half_marathon", "date": "2026-11-29", "time": "1:42:00"},
}


def trace(
    runner: dict[str, Any],
    *,
    target: str | None = None,
    zones: dict[str, Any] | None = None,
    weeks: list[float] | None = None,
) -> list[Step]:
    """A sound agent's three tool calls for `runner`, answered by the suite's own tools."""
    weekly = weeks if weeks is not None else runner["weekly_km"]
    args = {
        "race_distance": runner["recent_race"]["distance"],
        "race_time": runner["recent_race"]["time"],
        "target_distance": target or runner["goal"]["distance"],
    }
    prediction = predict_race_time(**args)
    zone_result = calculate_training_zones(prediction["vdot"])
    if zones is not None:
        zone_result = {**zone_result, "zones": {**zone_result["zones"], **zones}}
    return [
        Step.message("user", "Plan my week."),
        Step.tool_call("analyze_training_load", {"weekly_distances": weekly}, result=analyze_training_load(weekly)),
        Step.tool_call("predict_race_time", args, result=prediction),
        Step.tool_call("calculate_training_zones", {"vdot": prediction["vdot"]}, result=zone_result),
    ]


def ctx(text: str, runner: dict[str, Any], steps: list[Step], **fields: Any) -> CheckContext:
    return CheckContext(
        output=text, input=runner, trace=[*steps, Step.message("assistant", text)], fields=fields or None
    )


def day(name: str, session: str, km: float, pace: float | None = None, quote: str = "") -> dict[str, Any]:
    return {
        "day": name,
        "session": session,
        "km": km,
        "minutes": None,
        "quality_km": None,
        "pace_fast_sec_per_km": pace,
        "pace_slow_sec_per_km": pace,
        "quote": quote,
    }


# --- paces ----------------------------------------------------------------------------------------


def test_a_pace_in_the_middle_of_the_easy_zone_is_from_the_tools():
    # Emma's easy zone is 6:07-6:55/km; 6:31 is far from both ends and from every single pace a tool gave
    text = "1. tue - 6 km easy, 6:31/km\n2. thu - 5 km easy, 6:31/km\n3. sun - 9 km long, 6:31/km"
    assert PacesFromTools().evaluate(ctx(text, EMMA, trace(EMMA))).passed is True


def test_extra_entries_in_a_zones_tools_result_do_not_stop_the_pace_check():
    steps = trace(EMMA, zones={"vdot": 38.0, "unit": "s/km"})  # another zones tool's shape
    text = "1. tue - 6 km easy, 6:31/km\n2. sun - 9 km long, 6:31/km"
    assert PacesFromTools().evaluate(ctx(text, EMMA, steps)).passed is True
    bad = "1. tue - 6 km easy, 7:30/km\n2. sun - 9 km long, 7:30/km"
    assert PacesFromTools().evaluate(ctx(bad, EMMA, steps)).passed is False


def test_runs_without_any_pace_and_without_a_day_list_fail():
    text = "Run 6 km easy on three days this week and one 10 km long run on Sunday morning."
    outcome = PacesFromTools().evaluate(ctx(text, EMMA, trace(EMMA)))
    assert outcome.passed is False and "no pace" in outcome.reason


def test_a_pace_given_once_for_every_easy_run_covers_the_days():
    text = (
        "All easy runs this week at 6:15-6:50/km.\n\n"
        "| Day | Run |\n|---|---|\n| mon | rest |\n| tue | 6 km easy |\n| wed | rest |\n| thu | 5 km easy |\n"
        "| fri | rest |\n| sat | 4 km easy |\n| sun | rest |"
    )
    days = [
        day("Mon", "rest", 0),
        day("Tue", "easy", 6, quote="tue | 6 km easy"),
        day("Wed", "rest", 0),
        day("Thu", "easy", 5, quote="thu | 5 km easy"),
        day("Fri", "rest", 0),
        day("Sat", "easy", 4, quote="sat | 4 km easy"),
        day("Sun", "rest", 0),
    ]
    assert RunsHavePaces().evaluate(ctx(text, EMMA, trace(EMMA), days=days)).passed is True


def test_race_pace_work_at_the_goal_pace_is_sound_and_at_another_distances_prediction_is_not():
    # Emma's goal: a 1:55:00 half marathon, 5:27/km
    text = (
        "1. tue: 6 km easy at 6:20/km\n2. thu: 8 km with 5 km at goal half-marathon pace 5:27/km\n"
        "3. sat: rest\n4. sun: 12 km long at 6:30/km"
    )
    days = [
        day("Tue", "easy", 6, 380),
        day("Thu", "race_pace", 8, 327),
        day("Sat", "rest", 0),
        day("Sun", "long", 12, 390),
    ]
    assert PacesInSessionZones().evaluate(ctx(text, EMMA, trace(EMMA), days=days)).passed is True
    # the agent predicted a 10K (not the goal) and sets "race pace" at that 10K's predicted 5:13/km
    ten_k = predict_race_time("5K", "25:10", "10K")["predicted_sec_per_km"]
    fast = [*days[:1], day("Thu", "race_pace", 8, round(ten_k)), *days[2:]]
    text10 = text.replace("goal half-marathon pace 5:27/km", f"race pace {int(ten_k // 60)}:{round(ten_k % 60):02d}/km")
    assert PacesInSessionZones().evaluate(ctx(text10, EMMA, trace(EMMA, target="10K"), days=fast)).passed is False


# --- figures --------------------------------------------------------------------------------------


def test_a_wrong_acwr_the_reply_words_loosely_is_caught_through_the_extraction():
    text = "Your training-load ratio sits at 1.3 this week, so a normal week.\n- tue 6 km easy 6:20/km"
    figures = [{"kind": "acwr", "as_written": "1.3", "distance": None, "quote": "training-load ratio sits at 1.3"}]
    outcome = FiguresFromTools().evaluate(ctx(text, EMMA, trace(EMMA), days=[], figures=figures))
    assert outcome.passed is False and "1.3" in outcome.reason


def test_figures_with_no_number_or_a_stray_entry_leave_the_verdict_to_the_real_figures():
    text = "Your ACWR is 0.89: steady load, a normal week. Your VDOT is high.\n- tue 6 km easy 6:20/km"
    figures = [
        "0.89",
        {"kind": "acwr", "as_written": "steady", "quote": "steady load"},
        {"kind": "vdot", "as_written": "high", "quote": "Your VDOT is high"},
        {"kind": "predicted_time", "as_written": "sub-2 hours", "quote": "sub-2"},
    ]
    outcome = FiguresFromTools().evaluate(ctx(text, EMMA, trace(EMMA), days=[], figures=figures))
    assert outcome.passed is True, outcome.reason
    wrong = FiguresFromTools().evaluate(ctx(text.replace("0.89", "1.05"), EMMA, trace(EMMA), days=[], figures=figures))
    assert wrong.passed is False


def test_a_vdot_with_no_tool_behind_it_says_no_tool_gave_one():
    steps = [s for s in trace(EMMA) if s.name != "predict_race_time"]
    text = "Your VDOT is 41, so these paces fit.\n- tue 6 km easy 6:20/km"
    outcome = FiguresFromTools().evaluate(ctx(text, EMMA, steps, days=[], figures=[]))
    assert outcome.passed is False and "(none)" in outcome.reason


# --- tool inputs ----------------------------------------------------------------------------------


def test_the_load_tool_fed_only_the_last_two_weeks_is_caught():
    outcome = ToolInputsFromData().evaluate(ctx("ACWR 1.9.", SOFIA, trace(SOFIA, weeks=[8, 48])))
    assert outcome.passed is False and "weekly_distances" in outcome.reason


def test_a_prediction_from_a_race_the_runner_did_not_run_is_caught():
    steps = trace(SOFIA)
    steps[2] = Step.tool_call(
        "predict_race_time",
        {"race_distance": "10K", "race_time": "44:10", "target_distance": "half_marathon"},
        result=predict_race_time("10K", "44:10", "half_marathon"),
    )
    outcome = ToolInputsFromData().evaluate(ctx("Prediction 1:37.", SOFIA, steps))
    assert outcome.passed is False and "race_time" in outcome.reason


def test_a_runner_with_no_race_and_no_goal_has_only_the_data_they_gave_checked():
    runner = {"name": "Ana", "weekly_km": [20, 22, 21, 24, 23, 25]}
    args = {"race_distance": "5K", "race_time": "24:00", "target_distance": "10K"}
    prediction = predict_race_time(**args)
    steps = [
        Step.tool_call(
            "analyze_training_load",
            {"weekly_distances": runner["weekly_km"]},
            result=analyze_training_load(runner["weekly_km"]),
        ),
        Step.tool_call("predict_race_time", args, result=prediction),
        Step.tool_call(
            "calculate_training_zones",
            {"vdot": prediction["vdot"]},
            result=calculate_training_zones(prediction["vdot"]),
        ),
    ]
    outcome = ToolInputsFromData().evaluate(ctx("ok", runner, steps))
    assert outcome.passed is True and "all 3 tool inputs come from" in outcome.reason


# --- tool errors ----------------------------------------------------------------------------------


def test_a_tool_that_answered_with_text_instead_of_a_result_is_no_source():
    steps = trace(EMMA)
    steps[2] = Step.tool_call("predict_race_time", steps[2].arguments, result="service busy, try later")
    text = "Your ACWR is 0.89. On current fitness you can run the half in 1:55:50.\n- tue 6 km easy 6:20/km"
    figures = [
        {
            "kind": "predicted_time",
            "as_written": "1:55:50",
            "distance": "half marathon",
            "quote": "you can run the half in 1:55:50",
        }
    ]
    outcome = FiguresFromTools().evaluate(ctx(text, EMMA, steps, days=[], figures=figures))
    assert outcome.passed is False and "predict_race_time" in outcome.reason


def test_a_load_tool_that_gives_only_the_unrounded_ratio_still_checks_the_acwr():
    steps = trace(EMMA)
    load = {k: v for k, v in steps[1].result.items() if k != "acwr_2dp"}
    steps[1] = Step.tool_call("analyze_training_load", steps[1].arguments, result=load)
    text = "Your ACWR is 0.89, a steady week.\n- tue 6 km easy 6:20/km"
    assert FiguresFromTools().evaluate(ctx(text, EMMA, steps, days=[], figures=[])).passed is True
    assert (
        FiguresFromTools().evaluate(ctx(text.replace("0.89", "1.4"), EMMA, steps, days=[], figures=[])).passed is False
    )


def test_a_prediction_tool_that_gives_no_target_distance_does_not_break_the_zone_check():
    steps = trace(EMMA)
    steps[2] = Step.tool_call(
        "predict_race_time",
        steps[2].arguments,
        result={k: v for k, v in steps[2].result.items() if k != "target_distance_m"},
    )
    text = "1. tue: 6 km easy at 6:20/km\n2. thu: rest\n3. sat: rest\n4. sun: 12 km long at 6:30/km"
    days = [day("Tue", "easy", 6, 380), day("Thu", "rest", 0), day("Sat", "rest", 0), day("Sun", "long", 12, 390)]
    assert PacesInSessionZones().evaluate(ctx(text, EMMA, steps, days=days)).passed is True


# --- a load spike ---------------------------------------------------------------------------------


def test_a_spike_week_exactly_as_long_as_last_week_is_no_cut():
    text = (
        "Load spike (ACWR 1.9): a real injury risk, so easy running only.\n"
        "1) mon: 12 km easy 5:40/km\n2) tue: rest\n3) wed: 12 km easy 5:40/km\n4) thu: rest\n"
        "5) fri: 12 km easy 5:40/km\n6) sat: rest\n7) sun: 12 km long 5:50/km"
    )
    days = [
        day("Mon", "easy", 12, 340),
        day("Tue", "rest", 0),
        day("Wed", "easy", 12, 340),
        day("Thu", "rest", 0),
        day("Fri", "easy", 12, 340),
        day("Sat", "rest", 0),
        day("Sun", "long", 12, 350),
    ]
    outcome = SpikeWeek().evaluate(
        ctx(text, SOFIA, trace(SOFIA), days=days, flags_injury_risk=True, injury_warning_quote="a real injury risk")
    )
    assert outcome.passed is False and "not below last week's 48 km" in outcome.reason


# --- a plan changed after an injury report --------------------------------------------------------


def _conversation(first: str, second: str) -> list[Step]:
    return [
        *trace(EMMA),
        Step.message("assistant", first),
        Step.message("user", "My Achilles hurts."),
        Step.message("assistant", second),
    ]


@pytest.mark.parametrize(
    "second, passed",
    [
        ("Please stop: no running at all until the Achilles settles, and see a physio.", True),
        ("Keep it short: 4 km easy at 6:30/km on Tuesday, Thursday and Saturday.", False),
    ],
)
def test_after_a_first_reply_with_no_day_list_only_no_running_is_a_sound_change(second, passed):
    first = "Run most days this week, easy, with one quality session and a long run on the weekend."
    outcome = PlanChanged().evaluate(
        CheckContext(
            output=second, input=EMMA, trace=_conversation(first, second), fields={"days": None, "turn 1.days": None}
        )
    )
    assert outcome.passed is passed, outcome.reason
