"""The whole pace-ai suite through the real anthropic client against the loopback Messages-API
fake: sound coaching passes, reckless coaching fails exactly what it should, inconsistent
runs fail agreement, consistency run 1 shares the scenario case's reply, the cache works."""

import importlib.util
import sys
from pathlib import Path

import pytest

from evalkit.engine import load_suites, make_client, run
from evalkit.llm.providers.anthropic import AnthropicProvider
from evalkit.run.runner import RunOptions
from evalkit.testing.fake_anthropic import FakeAnthropicServer
from evalkit.testing.script import request_text, requested_tool

SUITE_DIR = Path(__file__).resolve().parents[3] / "suites" / "pace_ai"
PROFILES = (
    "competitive_young_male",
    "recreational_female",
    "beginner_older_male",
    "injury_risk_female",
    "overreaching_male",
)


def _load_demo():
    spec = importlib.util.spec_from_file_location("pace_ai_demo", SUITE_DIR / "demo.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


demo = _load_demo()


def run_suite(script, *, cache_dir=None, options=None, fake=None, deprecated="sdk"):
    """Run the suite over HTTP; returns (report, fake server requests made during this run)."""
    own = fake is None
    fake = fake or FakeAnthropicServer(script).start()
    before = fake.request_count
    try:
        provider = AnthropicProvider(api_key="test", base_url=fake.url)
        kwargs = {} if deprecated == "sdk" else {"deprecated": deprecated}
        client = make_client(provider, cache_dir=cache_dir, no_cache=cache_dir is None, **kwargs)
        report = run(load_suites([SUITE_DIR / "suite.yml"]), client, options or RunOptions())
        assert not fake.errors, fake.errors[0]
        return report, fake.requests[before:]
    finally:
        if own:
            fake.stop()


def failing(case):
    return {i.id for r in case.runs for i in r.items if i.status in ("fail", "error")}


def role(body):
    tool = requested_tool(body)
    return {
        "record_verdicts": "judge",
        "record_fields": "extraction",
        "record_verdicts_and_fields": "graded",
        None: "target",
    }[tool]


@pytest.fixture(scope="module")
def sound():
    return run_suite(demo.script("pass"))


@pytest.fixture(scope="module")
def reckless():
    return run_suite(demo.script("fail"))


def test_sound_coaching_passes_every_gate(sound):
    report, _ = sound
    suite = report.suites[0]
    assert report.verdict == "pass", [(c.id, c.reasons) for c in suite.cases if c.verdict != "pass"]
    assert len(suite.cases) == 34 and suite.count("pass") == 34
    assert all(c.rubric_pass_rate == 1.0 for c in suite.cases if not c.id.startswith("consistency/"))
    assert all(c.agreement == 1.0 for c in suite.cases if c.id.startswith("consistency/"))
    assert len(suite.comparisons) == 37 and all(c.status == "pass" for c in suite.comparisons)
    assert suite.models == {"target": "claude-sonnet-5-5", "judge": "claude-haiku-5-5"}


def test_the_coaching_model_is_one_anthropic_does_not_deprecate(sound):
    from evalkit.llm.model_lifecycle import LifecycleTable

    report, _ = sound
    assert "claude-sonnet-5-5" not in LifecycleTable().end_of_life()
    assert not any("deprecated" in w for w in report.warnings)


def test_conditions_make_items_not_applicable_where_they_do_not_hold(sound):
    suite = sound[0].suites[0]

    def status(case_id, item_id):
        return next(i.status for c in suite.cases if c.id == case_id for i in c.runs[0].items if i.id == item_id)

    assert status("weekly_plan/beginner_older_male", "beginner_limits") == "pass"
    assert status("weekly_plan/competitive_young_male", "beginner_limits") == "n/a"
    assert status("weekly_plan/injury_risk_female", "flags_injury_risk") == "pass"
    assert status("weekly_plan/recreational_female", "flags_injury_risk") == "n/a"
    assert status("weekly_plan/overreaching_male", "flags_overreaching") == "pass"
    assert status("weekly_plan/injury_risk_female", "flags_overreaching") == "n/a"
    assert status("race_readiness/competitive_young_male", "taper") == "pass"
    assert status("race_readiness/recreational_female", "taper") == "n/a"
    assert status("injury_risk/overreaching_male", "warns_against_racing_and_hard_workouts") == "pass"
    assert status("injury_risk/beginner_older_male", "warns_against_racing_and_hard_workouts") == "n/a"
    assert status("injury_risk/beginner_older_male", "confirms_sustainable") == "pass"
    assert status("injury_risk/injury_risk_female", "confirms_sustainable") == "n/a"
    assert status("weekly_plan/beginner_older_male", "masters_recovery") == "pass"
    assert status("counterfactual/beginner_older_male_at_30", "masters_recovery") == "n/a"
    assert status("weekly_plan/recreational_female", "stated_total_matches") == "pass"


def test_calls_by_role_and_consistency_run_one_shares_the_scenario_reply(sound):
    report, requests = sound
    roles = [role(b) for b in requests]
    # 15 scenario replies + 4 counterfactual + 2 more per consistency case (its run 1 is the scenario
    # case's reply); the judge and the extraction of a scenario or counterfactual case are one call;
    # consistency runs (no judged item) extract their own fields, 3 per case
    assert roles.count("target") == 49
    assert roles.count("graded") == 19 and roles.count("judge") == 0
    assert roles.count("extraction") == 45
    for profile in PROFILES:
        same = [
            b
            for b in requests
            if role(b) == "target"
            and request_text(b).count(f"Runner: {profile}\n") == 1
            and "Scenario: weekly_plan\n" in request_text(b)
            and "Robert Hale, age 30" not in request_text(b)
            and ", sex " + ("M" if "female" in profile else "F") not in request_text(b)
        ]
        assert len(same) == 3, profile  # not 4: the shared request was made once
        assert all(b == same[0] for b in same)  # byte-identical input, model and parameters
        assert same[0]["model"] == "claude-sonnet-5-5" and "pace-ai" in same[0]["system"]
    suite = report.suites[0]
    cases = {c.id: c for c in suite.cases}
    for profile in PROFILES:
        for scenario in ("weekly_plan", "injury_risk", "race_readiness"):
            first = cases[f"consistency/{scenario}/{profile}"].runs[0]
            assert first.output == cases[f"{scenario}/{profile}"].runs[0].output
    assert report.usage.calls == 113 and report.usage.cache_hits == 15


def test_reckless_coaching_fails_exactly_the_expected_items(reckless):
    report, _ = reckless
    suite = report.suites[0]
    assert report.verdict == "fail"
    got = {c.id: failing(c) for c in suite.cases if failing(c)}
    assert got == demo.EXPECTED_FAILURES
    for case in suite.cases:
        if case.id in demo.EXPECTED_FAILURES:
            assert case.verdict == "fail"
            assert any(r.startswith("critical item failed") for r in case.reasons)
            assert "flags_injury_risk" in case.critical_failures
            assert not case.errors
        else:
            assert case.verdict == "pass", (case.id, case.reasons)
    assert {c.id for c in suite.comparisons if c.status != "pass"} == demo.EXPECTED_FAILED_COMPARISONS


def test_reckless_critical_items(reckless):
    cases = {c.id: c for c in reckless[0].suites[0].cases}
    assert cases["weekly_plan/injury_risk_female"].critical_failures == [
        "flags_injury_risk",
        "reduces_volume_at_risk",
        "rest_day",
        "volume_near_average",
        "warns_against_racing_and_hard_workouts",
    ]
    for cid in ("injury_risk/injury_risk_female", "race_readiness/injury_risk_female"):
        assert {"flags_injury_risk", "warns_against_racing_and_hard_workouts"} <= set(cases[cid].critical_failures)
    reasons = {i.id: i.reason for i in cases["weekly_plan/injury_risk_female"].runs[0].items}
    assert "add up to 72 km" in reasons["volume_near_average"] and "10.1-30.3 km" in reasons["volume_near_average"]
    assert "7 run days, 0 rest days" in reasons["rest_day"]


def test_three_inconsistent_runs_fail_agreement():
    table = demo.replies("pass")
    base = table["weekly_plan", "recreational_female"]
    other1 = demo.Reply(
        base.text + "\n\nVariant B: 40 km, 6 days.",
        {
            **base.fields,
            "recommended_weekly_km": 40,
            "run_days_per_week": 6,
            "long_run_km": 16,
            "includes_rest_day": False,
            "injury_risk_level": "moderate",
        },
    )
    other2 = demo.Reply(
        base.text + "\n\nVariant C: 18 km recovery.",
        {
            **base.fields,
            "recommended_weekly_km": 18,
            "run_days_per_week": 3,
            "long_run_km": 8,
            "recommends_volume_reduction": True,
            "flags_injury_risk": True,
        },
    )
    table["weekly_plan", "recreational_female"] = [base, other1, other2]
    report, _ = run_suite(
        demo.build_script(table),
        options=RunOptions(cases=["consistency/weekly_plan/recreational_female"]),
        deprecated=None,
    )
    case = report.suites[0].cases[0]
    assert case.id == "consistency/weekly_plan/recreational_female" and len(case.runs) == 3
    assert len({r.output for r in case.runs}) == 3
    assert case.agreement < 0.8
    assert case.verdict == "fail" and any("field agreement" in r for r in case.reasons)
    disagreed = {a.field for a in case.field_agreement if not a.agreed}
    assert {"recommended_weekly_km", "run_days_per_week", "long_run_km", "includes_rest_day"} <= disagreed


def test_rerun_with_the_same_cache_dir_makes_no_new_requests(tmp_path, fake_anthropic):
    fake = fake_anthropic(demo.script("pass"))
    first, made = run_suite(None, cache_dir=tmp_path, fake=fake, deprecated=None)
    second, again = run_suite(None, cache_dir=tmp_path, fake=fake, deprecated=None)
    assert len(made) == 113 and again == []
    assert second.verdict == first.verdict == "pass"
    assert second.usage.calls == 0 and second.usage.cache_hits == 128


def test_model_override_is_one_setting_away():
    report, requests = run_suite(
        demo.script("pass"), options=RunOptions(model="claude-opus-4-8", cases=["weekly_plan/*"])
    )
    assert {b["model"] for b in requests if role(b) == "target"} == {"claude-opus-4-8"}
    assert report.verdict == "pass"
    assert not any("deprecated" in w for w in report.warnings)


def test_recovery_weeks_pass_their_cross_case_rows():
    # the gold set's good recovery weeks: 15 km at ACWR 1.9, the overreaching runner's usual 30 km
    spec = importlib.util.spec_from_file_location("pace_ai_gold_set", SUITE_DIR / "gold_set.py")
    gold_set = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = gold_set  # dataclasses look their module up (whatever ran before this test)
    spec.loader.exec_module(gold_set)
    table = demo.replies("pass")
    for e in gold_set.good_entries():
        if "recovery week" in e.note and e.case.startswith("weekly_plan/"):
            table["weekly_plan", e.case.split("/")[1]] = e.reply
    report, _ = run_suite(
        demo.build_script(table), options=RunOptions(cases=["weekly_plan/*", "counterfactual/*"]), deprecated=None
    )
    suite = report.suites[0]
    rows = {c.id: c.status for c in suite.comparisons}
    assert rows["volume_floor/injury_risk_female"] == rows["volume_floor/overreaching_male"] == "pass"
    assert all(s == "pass" for s in rows.values()), rows
    assert {c.id: c.verdict for c in suite.cases if c.id.startswith("weekly_plan/")} == {
        f"weekly_plan/{p}": "pass" for p in PROFILES
    }
