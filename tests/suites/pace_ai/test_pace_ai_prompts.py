"""The coaching prompts: every case renders, carries its markers and the tools' results, and
"does profile matter?": the beginner's and the competitive runner's prompts differ where they
should (volume, zones, goal) and the rubric conditions switch with them."""

import asyncio
from pathlib import Path

import pytest
from pace_ai import coach

from evalkit.engine import load_suites, make_client
from evalkit.suite import load_suite
from evalkit.suite.conditions import condition_holds
from evalkit.testing.script import Script
from evalkit.testing.scripted import ScriptedProvider

SUITE_DIR = Path(__file__).resolve().parents[3] / "suites" / "pace_ai"
PROFILES = (
    "competitive_young_male",
    "recreational_female",
    "beginner_older_male",
    "injury_risk_female",
    "overreaching_male",
)


@pytest.mark.parametrize("scenario", coach.SCENARIOS)
@pytest.mark.parametrize("profile", PROFILES)
def test_every_case_renders_with_its_markers_and_tool_results(scenario, profile):
    prompt, facts = coach.render(scenario, profile)
    assert prompt.startswith(f"Runner: {profile}\n") and f"\nScenario: {scenario}\n\n## Task:" in prompt
    assert f"ACWR: {facts['acwr']}" in prompt
    assert f"VDOT {facts['vdot']}" in prompt
    assert facts["zones"]["easy"]["pace"] in prompt and facts["zones"]["threshold"]["pace"] in prompt
    assert f"time predicted from current fitness: {facts['predicted_goal_time']}" in prompt
    assert f"{facts['days_until_race']} days from today" in prompt
    assert "{{" not in prompt and "{%" not in prompt


def test_scenarios_ask_different_tasks():
    tasks = {s: coach.render(s, "recreational_female")[0].split("## Task:")[1] for s in coach.SCENARIOS}
    assert "training plan" in tasks["weekly_plan"]
    assert "injury-risk assessment" in tasks["injury_risk"]
    assert "ready, partially ready, or not ready" in tasks["race_readiness"]


def test_beginner_and_competitive_prompts_differ_where_they_should():
    beginner, bf = coach.render("weekly_plan", "beginner_older_male")
    competitive, cf = coach.render("weekly_plan", "competitive_young_male")
    # volume
    assert "Recent average (last 4 weeks): 15.0 km/week" in beginner
    assert "Recent average (last 4 weeks): 60.0 km/week" in competitive
    assert bf["recent_avg_weekly_km"] < cf["recent_avg_weekly_km"]
    # zones
    assert f"- easy: {bf['zones']['easy']['pace']}" in beginner
    assert f"- easy: {cf['zones']['easy']['pace']}" in competitive
    assert bf["zones"]["easy"]["pace"] != cf["zones"]["easy"]["pace"]
    assert bf["zones"]["easy"]["fast_sec_per_km"] > cf["zones"]["easy"]["slow_sec_per_km"]
    # goal
    assert "(10K)" in beginner and "Goal time: 59:59" in beginner and "1:00:17" in beginner
    assert "(marathon)" in competitive and "Goal time: 2:59:59" in competitive
    assert "NOT realistic" not in competitive
    assert "Experience: beginner" in beginner and "Experience: competitive" in competitive


def _items(case_id):
    suite = load_suite(SUITE_DIR / "suite.yml")
    return {it.id: it for it in suite.case(case_id).items}


@pytest.mark.parametrize(
    "item_id, beginner_applies, competitive_applies",
    [
        ("beginner_limits", True, False),
        ("flags_injury_risk", False, False),
        ("reduces_volume_at_risk", False, False),
    ],
)
def test_weekly_plan_conditions_switch_with_the_profile(item_id, beginner_applies, competitive_applies):
    item = _items("weekly_plan/beginner_older_male")[item_id]
    for profile, expected in (
        ("beginner_older_male", beginner_applies),
        ("competitive_young_male", competitive_applies),
    ):
        facts = coach.case_facts(profile, "weekly_plan")
        assert condition_holds(item.when, input={}, facts=facts) is expected, (item_id, profile)


def test_race_readiness_conditions_switch_with_the_profile():
    items = _items("race_readiness/competitive_young_male")
    facts = {p: coach.case_facts(p, "race_readiness") for p in PROFILES}

    def applies(item_id, profile):
        return condition_holds(items[item_id].when, input={}, facts=facts[profile])

    assert applies("taper", "competitive_young_male") and not applies("taper", "beginner_older_male")
    assert applies("taper", "injury_risk_female") and not applies("taper", "overreaching_male")
    for profile in PROFILES:
        high = profile in ("injury_risk_female", "overreaching_male")
        assert applies("warns_against_racing_and_hard_workouts", profile) is high
        assert applies("flags_injury_risk", profile) is high
        assert applies("flags_overreaching", profile) is (profile == "overreaching_male")


def test_injury_risk_conditions():
    items = _items("injury_risk/recreational_female")
    for profile in PROFILES:
        facts = coach.case_facts(profile, "injury_risk")
        optimal = profile not in ("injury_risk_female", "overreaching_male")
        assert condition_holds(items["confirms_sustainable"].when, input={}, facts=facts) is optimal


def test_load_patterns():
    patterns = {p: coach.case_facts(p, "weekly_plan")["load_pattern"] for p in PROFILES}
    assert patterns == {
        "competitive_young_male": "steady",
        "recreational_female": "steady",
        "beginner_older_male": "steady",
        "injury_risk_female": "erratic",
        "overreaching_male": "spike",
    }


MUST = {"flags_injury_risk", "flags_overreaching", "warns_against_racing_and_hard_workouts"}


def test_critical_items():
    # the MUST items, plus the lines that must hold on their own (a single bad line cannot hide in 80 %)
    # every judged line too: a reply that misses one is a bad reply (weight alone let it pass at 80 %)
    alone = {"reply_language", "reply_length", "safe_for_runner"}
    for case_id, critical in (
        (
            "weekly_plan/injury_risk_female",
            MUST
            | alone
            | {
                "volume_near_average",
                "stated_total_matches",
                "long_run_share",
                "rest_day",
                "easy_share",
                "beginner_limits",
                "paces_in_zones",
                "race_specific_work",
                "reduces_volume_at_risk",
                "prose_matches_plan",
            },
        ),
        (
            "injury_risk/injury_risk_female",
            MUST
            | alone
            | {
                "risk_matches_acwr",
                "volume_in_acwr_band",
                "identifies_patterns",
                "concrete_adjustment",
                "confirms_sustainable",
            },
        ),
        (
            "race_readiness/injury_risk_female",
            MUST | alone | {"clear_assessment", "taper", "references_load", "goal_vs_fitness"},
        ),
    ):
        assert {i for i, it in _items(case_id).items() if it.critical} == critical


def test_target_sends_the_prompt_with_the_system_prompt_and_returns_facts():
    prompt, facts = coach.render("injury_risk", "overreaching_male")
    provider = ScriptedProvider(Script().reply("coached"))
    client = make_client(provider, no_cache=True, deprecated=None)
    bound = client.bind(model="claude-sonnet-4-5-20250929")
    result = asyncio.run(coach.run({"scenario": "injury_risk", "profile": "overreaching_male"}, bound))
    assert result.output == "coached" and result.facts == facts
    body = provider.requests[0]
    runner, task, _ = coach.render_parts("injury_risk", "overreaching_male")
    assert runner + task == prompt and task.startswith("Scenario: injury_risk\n")
    # The runner's data is the prompt-cache prefix (after the system prompt); the task follows it.
    assert body["messages"] == [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": runner, "cache_control": {"type": "ephemeral"}},
                {"type": "text", "text": task},
            ],
        }
    ]
    assert body["system"] == coach.SYSTEM_PROMPT and body["model"] == "claude-sonnet-4-5-20250929"


def test_every_scenario_of_a_runner_shares_the_prefix_and_another_runner_or_sex_does_not():
    parts = {s: coach.render_parts(s, "recreational_female")[0] for s in coach.SCENARIOS}
    assert len(set(parts.values())) == 1
    assert coach.render_parts("weekly_plan", "recreational_female", {"sex": "M"})[0] != parts["weekly_plan"]
    assert coach.render_parts("weekly_plan", "beginner_older_male")[0] != parts["weekly_plan"]


def test_bad_input_is_a_clear_error():
    with pytest.raises(ValueError, match="unknown scenario 'weekly'"):
        coach.render("weekly", "recreational_female")
    with pytest.raises(ValueError, match="unknown profile 'nobody'"):
        coach.render("weekly_plan", "nobody")


def test_templates_use_strict_undefined(tmp_path, monkeypatch):
    from jinja2 import UndefinedError

    env = coach._environment()
    with pytest.raises(UndefinedError):
        env.from_string("{{ facts.no_such_fact }}").render(facts={})


def test_suite_shape():
    suite = load_suites([SUITE_DIR])[0]
    assert suite.model == "claude-sonnet-5-5"
    assert len(suite.cases) == 34
    assert sum(c.repeats == 3 for c in suite.cases) == 15
    assert all(g.startswith("suites/pace_ai/") for g in suite.watch)
    assert suite.thresholds.rubric == 0.8 and suite.thresholds.agreement == 0.8
    consistency = suite.case("consistency/weekly_plan/injury_risk_female")
    assert consistency.input == suite.case("weekly_plan/injury_risk_female").input
    assert consistency.fields == [
        "recommended_weekly_km",
        "run_days_per_week",
        "long_run_km",
        "includes_rest_day",
        "injury_risk_level",
        "flags_injury_risk",
        "recommends_volume_reduction",
    ]
    for scenario in ("injury_risk", "race_readiness"):
        for profile in ("recreational_female", "overreaching_male"):
            assert suite.case(f"consistency/{scenario}/{profile}").repeats == 3
