"""Every pace-ai rubric item decided by code, on hand-made fields and facts that pass and fail it."""

import pytest

from evalkit.checks import CheckContext, check_types, normalize
from pace_ai import checks
from pace_ai.coach import case_facts

FACTS = {name: case_facts(name, "weekly_plan") for name in
         ("competitive_young_male", "recreational_female", "beginner_older_male", "injury_risk_female",
          "overreaching_male")}


def decide(check, fields, profile="recreational_female", **fact_overrides):
    facts = {**FACTS[profile], **fact_overrides}
    return normalize(check.evaluate(CheckContext(output="reply", fields=fields, facts=facts)))


def test_checks_are_registered_under_their_types():
    types = check_types()
    for name in ("pace_volume_near_average", "pace_long_run_share", "pace_rest_day", "pace_easy_share",
                 "pace_beginner_limits", "pace_easy_pace_in_zone", "pace_risk_matches_acwr", "pace_taper"):
        assert name in types and types[name].needs_fields


# -- volume within ±20 % of the recent average -----------------------------------------

@pytest.mark.parametrize("km, passed", [(28, True), (22.4, True), (33.6, True), (22.3, False), (33.7, False),
                                        (42, False)])
def test_volume_near_average_recreational(km, passed):
    # recreational_female: recent average 28 km -> 22.4..33.6 km
    out = decide(checks.VolumeNearAverage(), {"recommended_weekly_km": km})
    assert out.passed is passed
    assert "28" in out.reason


def test_volume_near_average_uses_the_runners_own_history():
    check = checks.VolumeNearAverage()
    assert decide(check, {"recommended_weekly_km": 72}, "injury_risk_female").passed is False  # +50 % of 48
    assert decide(check, {"recommended_weekly_km": 24}, "injury_risk_female").passed is True
    assert decide(check, {"recommended_weekly_km": 55}, "competitive_young_male").passed is True
    assert decide(check, {"recommended_weekly_km": 55}, "beginner_older_male").passed is False


def test_volume_not_stated_fails_and_tolerance_is_configurable():
    assert decide(checks.VolumeNearAverage(), {"recommended_weekly_km": None}).passed is False
    assert decide(checks.VolumeNearAverage(tolerance=0.5), {"recommended_weekly_km": 40}).passed is True


def test_missing_field_or_fact_raises_for_an_error_row():
    with pytest.raises(ValueError, match="recommended_weekly_km"):
        decide(checks.VolumeNearAverage(), {})
    with pytest.raises(ValueError, match="recent_avg_weekly_km"):
        checks.VolumeNearAverage().evaluate(CheckContext(output="", fields={"recommended_weekly_km": 3}, facts={}))


# -- long run 25-35 % ------------------------------------------------------------------

@pytest.mark.parametrize("long_run, week, passed", [(10, 40, True), (14, 40, True), (12, 40, True),
                                                    (9.9, 40, False), (14.1, 40, False), (22, 50, False),
                                                    (None, 40, False), (10, None, False)])
def test_long_run_share(long_run, week, passed):
    out = decide(checks.LongRunShare(), {"long_run_km": long_run, "recommended_weekly_km": week})
    assert out.passed is passed


# -- at least one rest day -------------------------------------------------------------

@pytest.mark.parametrize("rest, days, passed", [(True, 5, True), (True, None, True), (False, 7, False),
                                                (True, 7, False), (None, 5, False), (False, None, False)])
def test_rest_day(rest, days, passed):
    assert decide(checks.RestDay(), {"includes_rest_day": rest, "run_days_per_week": days}).passed is passed


# -- easy share >= 70 % ----------------------------------------------------------------

@pytest.mark.parametrize("easy, week, passed", [(35, 50, True), (43, 52, True), (34.9, 50, False),
                                                (20, 40, False), (None, 40, False)])
def test_easy_share(easy, week, passed):
    assert decide(checks.EasyShare(), {"easy_km": easy, "recommended_weekly_km": week}).passed is passed


# -- beginner: <= 4 run days, no track intervals ---------------------------------------

@pytest.mark.parametrize("days, track, passed", [(3, False, True), (4, False, True), (4, None, True),
                                                 (5, False, False), (3, True, False), (None, False, False)])
def test_beginner_limits(days, track, passed):
    out = decide(checks.BeginnerLimits(), {"run_days_per_week": days, "includes_track_intervals": track},
                 "beginner_older_male")
    assert out.passed is passed


def test_beginner_limits_not_applicable_to_others():
    out = decide(checks.BeginnerLimits(), {"run_days_per_week": 6, "includes_track_intervals": True},
                 "competitive_young_male")
    assert out.passed is None


# -- paces inside the computed zones ---------------------------------------------------

def test_easy_pace_inside_zone_passes_and_outside_fails():
    zone = FACTS["injury_risk_female"]["zones"]["easy"]  # 5:27-6:10/km
    check = checks.EasyPaceInZone()
    inside = {"easy_pace_fastest_sec_per_km": zone["fast_sec_per_km"] + 5,
              "easy_pace_slowest_sec_per_km": zone["slow_sec_per_km"]}
    assert decide(check, inside, "injury_risk_female").passed is True
    too_fast = {"easy_pace_fastest_sec_per_km": 300, "easy_pace_slowest_sec_per_km": 340}  # 5:00/km
    out = decide(check, too_fast, "injury_risk_female")
    assert out.passed is False and "5:00/km" in out.reason
    too_slow = {"easy_pace_fastest_sec_per_km": 340, "easy_pace_slowest_sec_per_km": 400}
    assert decide(check, too_slow, "injury_risk_female").passed is False
    none = {"easy_pace_fastest_sec_per_km": None, "easy_pace_slowest_sec_per_km": None}
    assert decide(check, none, "injury_risk_female").passed is False


def test_easy_pace_zone_depends_on_the_runner():
    paces = {"easy_pace_fastest_sec_per_km": 440, "easy_pace_slowest_sec_per_km": 480}  # 7:20-8:00/km
    assert decide(checks.EasyPaceInZone(), paces, "beginner_older_male").passed is True
    assert decide(checks.EasyPaceInZone(), paces, "competitive_young_male").passed is False


def test_easy_pace_tolerance():
    zone = FACTS["recreational_female"]["zones"]["easy"]
    edge = {"easy_pace_fastest_sec_per_km": zone["fast_sec_per_km"] - 4, "easy_pace_slowest_sec_per_km": None}
    assert decide(checks.EasyPaceInZone(tolerance_sec=5), edge).passed is True
    assert decide(checks.EasyPaceInZone(tolerance_sec=0), edge).passed is False


# -- risk level matches the ACWR category ----------------------------------------------

@pytest.mark.parametrize("profile, right, wrong", [("injury_risk_female", "high", "low"),
                                                   ("overreaching_male", "high", "elevated"),
                                                   ("competitive_young_male", "optimal", "high"),
                                                   ("beginner_older_male", "optimal", "low")])
def test_risk_matches_acwr(profile, right, wrong):
    assert decide(checks.RiskMatchesAcwr(), {"risk_level": right}, profile).passed is True
    assert decide(checks.RiskMatchesAcwr(), {"risk_level": wrong}, profile).passed is False
    assert decide(checks.RiskMatchesAcwr(), {"risk_level": None}, profile).passed is False


def test_risk_elevated_category_and_insufficient_data():
    assert decide(checks.RiskMatchesAcwr(), {"risk_level": "elevated"}, risk_level="elevated").passed is True
    out = decide(checks.RiskMatchesAcwr(), {"risk_level": "low"}, risk_level="insufficient_data")
    assert out.passed is None


# -- taper when the race is under 3 weeks away -----------------------------------------

def test_taper_required_within_three_weeks():
    assert decide(checks.TaperBeforeRace(), {"recommends_taper": True}, "competitive_young_male").passed is True
    assert decide(checks.TaperBeforeRace(), {"recommends_taper": False}, "competitive_young_male").passed is False
    assert decide(checks.TaperBeforeRace(), {"recommends_taper": None}, "injury_risk_female").passed is False


def test_taper_not_applicable_when_race_is_far():
    out = decide(checks.TaperBeforeRace(), {"recommends_taper": False}, "beginner_older_male")  # 111 days
    assert out.passed is None and "111" in out.reason


def test_checks_refuse_unknown_arguments():
    with pytest.raises(Exception):
        checks.VolumeNearAverage(tolerence=0.2)
