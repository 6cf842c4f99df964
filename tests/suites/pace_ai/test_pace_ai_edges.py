"""Edges of the pace-ai tools and checks that the gold set does not reach, each found by a generated
mutant that survived `evalkit selftest` (benchmarks/generated_mutants.py): a boundary, an error
message, a branch only a malformed run takes."""

from __future__ import annotations

import pytest
from pace_ai import checks
from pace_ai.agent_checks import AcwrFromTool
from pace_ai.coach import case_facts
from pace_ai.tools import analyze_training_load, parse_distance, parse_time

from evalkit.checks import normalize
from evalkit.checks.base import CheckContext
from evalkit.trace.steps import Step

FACTS = case_facts("recreational_female", "weekly_plan")


# --- the tools ---------------------------------------------------------------------------------


def test_a_bad_week_is_named_by_its_1_based_number():
    with pytest.raises(ValueError, match=r"^week 2: distance 'x' is not a number"):
        analyze_training_load([10, "x", 12, 13])


def test_a_falling_load_has_no_largest_increase():
    load = analyze_training_load([40, 36, 30, 25])
    assert load["largest_increase_pct"] is None and load["largest_increase_week"] is None


def test_four_weeks_without_running_are_insufficient_data_not_a_crash():
    load = analyze_training_load([0, 0, 0, 0])
    assert load["risk_level"] == "insufficient_data" and load["acwr"] is None
    assert load["insufficient_reason"].startswith("chronic load is zero")


def test_a_distance_that_is_no_standard_race_keeps_its_metres_as_its_label():
    assert parse_distance(7000) == (7000.0, "7000m")
    assert parse_distance(5000) == (5000.0, "5K")


def test_sixty_minutes_is_not_a_valid_minutes_field():
    with pytest.raises(ValueError):
        parse_time("1:60:00")
    assert parse_time("1:59:00") == 7140


# --- the coaching checks -----------------------------------------------------------------------


def test_a_missing_fact_names_the_target_that_must_return_it():
    with pytest.raises(ValueError, match="fact 'nope' missing"):
        checks.fact(CheckContext(output="", facts={}), "nope")


def test_a_weekly_total_in_miles_is_converted_with_1_609():
    assert checks.written_totals("Total: 20 miles") == [32.19]
    assert checks.written_totals("Weekly total: 30 km") == [30.0]


def test_an_extraction_the_reply_does_not_bear_out_fails():
    days = [
        {
            "day": "Tue",
            "session": "easy",
            "km": 8,
            "quality_km": None,
            "pace_fast_sec_per_km": 380,
            "pace_slow_sec_per_km": 400,
            "quote": "8 km easy at 6:20-6:40/km",
        }
    ]
    ctx = CheckContext(output="Run a little this week, whatever feels good.", fields={"days": days}, facts=FACTS)
    outcome = normalize(checks.PlanVolume().evaluate(ctx))
    assert outcome.passed is False and "not borne out by the reply" in outcome.reason


def test_a_volume_rise_written_as_a_percentage_of_last_week_is_the_km_it_gives():
    assert checks._quote_gives_km("build up by 10 % on last week", 33.0, 30.0)
    assert not checks._quote_gives_km("build up by 10 % on last week", 40.0, 30.0)


def test_a_taper_starting_exactly_a_week_before_its_window_is_in_time():
    fields = {
        "recommends_taper": True,
        "taper_weeks": 1,
        "taper_volume_cut_pct": 40,
        "taper_quote": "cut volume by 40 % in race week",
    }
    facts = {**FACTS, "days_until_race": 14, "race_within_3_weeks": True}
    ctx = CheckContext(output="Race week: cut volume by 40 % in race week.", fields=fields, facts=facts)
    outcome = normalize(checks.TaperBeforeRace().evaluate(ctx))
    assert outcome.passed is True, outcome.reason


def test_a_taper_quote_without_a_stated_cut_fails_and_does_not_error():
    fields = {
        "recommends_taper": True,
        "taper_weeks": 2,
        "taper_volume_cut_pct": None,
        "taper_quote": "ease off before the race",
    }
    facts = {**FACTS, "days_until_race": 14, "race_within_3_weeks": True}
    ctx = CheckContext(output="Then ease off before the race.", fields=fields, facts=facts)
    outcome = normalize(checks.TaperBeforeRace().evaluate(ctx))
    assert outcome.passed is False and "volume cut unstated" in outcome.reason


# --- the agent checks --------------------------------------------------------------------------


def test_an_acwr_quoted_when_the_load_tool_was_never_called_fails():
    trace = [Step.message("user", "plan my week"), Step.message("assistant", "Your ACWR is 1.10.")]
    outcome = normalize(AcwrFromTool().evaluate(CheckContext(output="Your ACWR is 1.10.", trace=trace)))
    assert outcome.passed is False and "gave no ACWR" in outcome.reason
