"""The design's values pinned in each profile: the tools reproduce them, a tool bug is caught by name,
the conditions read the pinned values; athlete stats; counterfactual runners."""

import pytest
from pace_ai import coach, profiles
from pace_ai.design import PINNED_TOLERANCE, design_mismatches
from pace_ai.safety import ToolsMatchDesign
from pace_ai.tools import analyze_training_load

from evalkit.checks import CheckContext, normalize

NAMES = profiles.list_profiles()


@pytest.mark.parametrize("name", NAMES)
def test_the_tools_reproduce_the_pinned_design_values(name):
    profile = profiles.load_profile(name)
    facts = profiles.profile_facts(profile)
    pinned = profile["expected"]
    assert facts["acwr"] == pytest.approx(pinned["acwr"], abs=PINNED_TOLERANCE["acwr"])
    assert facts["vdot"] == pytest.approx(pinned["vdot"], abs=PINNED_TOLERANCE["vdot"])
    assert design_mismatches(profile) == []


def test_the_pinned_values_are_the_designs_table():
    got = {
        n: (profiles.load_profile(n)["expected"]["acwr"], profiles.load_profile(n)["expected"]["vdot"]) for n in NAMES
    }
    assert got == {
        "competitive_young_male": (1.1, 55),
        "recreational_female": (0.9, 38),
        "beginner_older_male": (1.0, 32),
        "injury_risk_female": (1.9, 44),
        "overreaching_male": (1.6, 48),
    }
    must = {n: set(profiles.load_profile(n)["expected"]["must"]) for n in NAMES}
    assert must["injury_risk_female"] == {"flags_injury_risk", "warns_against_racing_and_hard_workouts"}
    assert "flags_overreaching" in must["overreaching_male"] and not must["recreational_female"]


@pytest.fixture
def oldest_four_weeks_bug(monkeypatch):
    """An ACWR regression: the tool is handed the oldest four weeks instead of the last four."""
    monkeypatch.setattr(profiles, "analyze_training_load", lambda weeks: analyze_training_load(list(weeks)[:4]))


def test_an_acwr_bug_is_named_per_profile(oldest_four_weeks_bug):
    broken = {n: design_mismatches(n) for n in NAMES}
    assert any("injury_risk_female: tools compute acwr" in p for p in broken["injury_risk_female"])
    assert any("overreaching_male: tools put ACWR" in p for p in broken["overreaching_male"])


def test_an_acwr_bug_fails_the_check_but_cannot_switch_a_must_item_off(oldest_four_weeks_bug):
    out = normalize(ToolsMatchDesign().evaluate(CheckContext(output="", input={"profile": "injury_risk_female"})))
    assert out.passed is False and "injury_risk_female" in out.reason and "the design pins 1.9" in out.reason
    facts = coach.case_facts("injury_risk_female", "weekly_plan")
    assert facts["risk_level"] != "high"  # the tools are wrong ...
    assert facts["injury_risk_profile"] and "flags_injury_risk" in facts["must"]  # ... the conditions are not
    assert facts["acwr_over_1_5"]


def test_conditions_read_the_pinned_values():
    for name in NAMES:
        f = coach.case_facts(name, "injury_risk")
        assert f["injury_risk_profile"] == f["expected"]["at_risk"]
        assert f["acwr_sustainable"] == (f["expected"]["acwr_band"] == "optimal")


@pytest.mark.parametrize("name", NAMES)
def test_athlete_stats_follow_stravas_shape_and_recent_totals_match_the_activities(name):
    profile = profiles.load_profile(name)
    stats = profile["athlete_stats"]
    recent = stats["recent_run_totals"]
    assert recent["distance"] / 1000 == pytest.approx(sum(profiles.weekly_km_from_activities(profile)), abs=0.1)
    assert recent["count"] == sum(1 for a in profile["activities"])
    for key in ("recent_run_totals", "ytd_run_totals", "all_run_totals"):
        assert set(stats[key]) == {"count", "distance", "moving_time", "elapsed_time", "elevation_gain"}
    assert recent["count"] <= stats["ytd_run_totals"]["count"] <= stats["all_run_totals"]["count"]


def test_a_profile_without_pinned_values_is_a_clear_error(tmp_path):
    text = (profiles.PROFILES_DIR / "recreational_female.yml").read_text()
    broken = tmp_path / "runner.yml"
    broken.write_text(text.replace("expected:", "not_expected:"))
    with pytest.raises(ValueError, match="missing key 'expected'"):
        profiles.load_profile(broken)


def test_a_counterfactual_changes_only_age_or_sex():
    prompt, facts = coach.render("weekly_plan", "injury_risk_female", {"sex": "M"})
    base_prompt, base = coach.render("weekly_plan", "injury_risk_female")
    assert "sex M" in prompt and facts["sex"] == "M"
    assert {k: v for k, v in facts.items() if k != "sex"} == {k: v for k, v in base.items() if k != "sex"}
    old = coach.case_facts(coach.with_overrides(profiles.load_profile("beginner_older_male"), {"age": 30}), "x")
    assert old["is_masters"] is False and coach.case_facts("beginner_older_male", "x")["is_masters"] is True
    with pytest.raises(ValueError, match="may change only age, sex"):
        coach.render("weekly_plan", "injury_risk_female", {"weight_kg": 50})
