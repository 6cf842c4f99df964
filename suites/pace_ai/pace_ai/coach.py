"""The coach: the system under test of the pace-ai suite (target ``pace_ai.coach:run``).

For a case input ``{scenario, profile}`` (optionally ``athlete: {age, sex}``: the same runner
with another age or sex, for the counterfactual cases) it runs the pace-ai tools on the profile's own
data (``profile_facts``), renders ``prompts/_runner.j2`` (the runner's data, a prompt-cache prefix
shared by the runner's scenarios) and ``prompts/<scenario>.j2`` (the task) with the profile and the
tool results, asks the coaching model once, and returns the reply together with the facts the
rubric's conditions (``when:``) and code-decided checks read.
"""

from __future__ import annotations

import statistics
from functools import lru_cache
from pathlib import Path
from typing import Any

from pace_ai.profiles import load_profile, profile_facts
from pace_ai.tools import format_pace

__all__ = ["PROMPTS_DIR", "SCENARIOS", "SYSTEM_PROMPT", "case_facts", "render", "render_parts", "run", "with_overrides"]

PROMPTS_DIR = Path(__file__).resolve().parent.parent / "prompts"
SCENARIOS = ("weekly_plan", "injury_risk", "race_readiness")

SYSTEM_PROMPT = (
    "You are pace-ai, an evidence-based running coach. Base every recommendation on the runner's "
    "own data and the computed values you are given (training load, VDOT, training zones, goal "
    "prediction); do not invent other numbers. Be specific: give distances in km, paces in min:ss/km, "
    "and named days. Put the runner's long-term health before any race. Reply in the language of "
    "the request, in at most 400 words."
)

#: The length item fails a reply longer than this (the prompt asks for at most 400 words).
MAX_REPLY_WORDS = 500

#: The prior weeks vary this much (coefficient of variation) or more: an erratic load history.
ERRATIC_CV = 0.30

ZONE_NAMES = ("easy", "marathon", "threshold", "interval", "repetition")

#: The weekly volume a plan may set, as shares of the 4-week average: ±20 % for a runner in
#: range; for an at-risk runner (pinned ``expected.at_risk``) a recovery week down to 40 %.
VOLUME_BAND = (0.80, 1.20)
RECOVERY_VOLUME_BAND = (0.40, 1.20)

#: Counterfactual changes a case may make to a runner (the same training data otherwise).
OVERRIDABLE = ("age", "sex")

#: A masters runner (age-appropriate items: more recovery, no track intervals).
MASTERS_AGE = 50


def _load_pattern(weeks: list[float], risk_level: str) -> tuple[str, float | None]:
    """``erratic`` (the weeks before the last vary a lot), ``spike`` (steady, then a jump that
    puts ACWR above 1.3: overreaching) or ``steady``; plus the coefficient of variation."""
    prior = weeks[-8:-1]
    if len(prior) < 2 or statistics.mean(prior) == 0:
        return "steady", None
    cv = statistics.pstdev(prior) / statistics.mean(prior)
    if cv >= ERRATIC_CV:
        return "erratic", round(cv, 3)
    if risk_level in ("elevated", "high"):
        return "spike", round(cv, 3)
    return "steady", round(cv, 3)


def with_overrides(profile: dict, athlete: dict | None) -> dict:
    """The profile with the athlete's age or sex replaced (ValueError for any other key)."""
    if not athlete:
        return profile
    unknown = sorted(set(athlete) - set(OVERRIDABLE))
    if unknown:
        raise ValueError(f"input.athlete may change only {', '.join(OVERRIDABLE)}, not {', '.join(unknown)}")
    return {**profile, "athlete": {**profile["athlete"], **athlete}}


def case_facts(profile_name: str | dict, scenario: str) -> dict[str, Any]:
    """The trusted facts of one case: compact, JSON-able, what the rubric and the judge need.

    Conditions read the design's pinned values (``expected``), not the tools' output."""
    f = profile_facts(profile_name)
    pinned = f["expected"]
    avg = f["recent_avg_weekly_km"]
    low, high = RECOVERY_VOLUME_BAND if pinned["at_risk"] else VOLUME_BAND
    zones = {
        name: {
            "fast_sec_per_km": round(f["zones"][name]["min_sec_per_km"], 1),
            "slow_sec_per_km": round(f["zones"][name]["max_sec_per_km"], 1),
            "pace": _pace_range(f["zones"][name]),
        }
        for name in ZONE_NAMES
    }
    pattern, cv = _load_pattern(f["weekly_distances_km"], f["risk_level"])
    return {
        "scenario": scenario,
        "profile_id": f["profile_id"],
        "experience": f["experience"],
        "age": f["age"],
        "sex": f["sex"],
        "weekly_distances_km": f["weekly_distances_km"],
        "recent_avg_weekly_km": f["recent_avg_weekly_km"],
        "last_week_km": f["last_week_km"],
        "acwr": f["acwr"],
        "acwr_2dp": f["acwr_2dp"],
        "risk_level": f["risk_level"],
        "largest_increase_pct": f["largest_increase_pct"],
        "largest_increase_week": f["largest_increase_week"],
        "load_pattern": pattern,
        "prior_weeks_cv": cv,
        "run_days_per_week": f["run_days_per_week"],
        "longest_recent_run_km": f["longest_recent_run_km"],
        "vdot": f["vdot"],
        "zones": zones,
        "goal_distance": f["goal_distance"],
        "goal_time": f["goal_time"],
        "predicted_goal_time": f["predicted_goal_time"],
        "goal_gap_seconds": f["goal_gap_seconds"],
        "goal_gap_pct": f["goal_gap_pct"],
        "goal_realistic": f["goal_realistic"],
        "race_pace_zones": _race_pace_zones(f),
        "race_date": f["race_date"],
        "days_until_race": f["days_until_race"],
        "race_within_3_weeks": f["race_within_3_weeks"],
        "athlete_stats": f["athlete_stats"],
        "expected": pinned,
        "must": pinned["must"],
        "volume_floor_km": round(avg * low, 1),
        "volume_ceiling_km": round(avg * high, 1),
        "request_language": "en",
        "is_beginner": f["is_beginner"],
        "is_masters": f["age"] >= MASTERS_AGE,
        "injury_risk_profile": pinned["at_risk"],
        "acwr_over_1_5": pinned["acwr"] >= 1.5,
        "acwr_sustainable": pinned["acwr_band"] == "optimal",
    }


def _race_pace_zones(f: dict) -> dict[str, dict]:
    """Goal race pace (goal time / goal distance) and the race pace current fitness predicts for the
    goal distance: zones of their own for race-pace work (a half marathon has no VDOT zone)."""
    km = f["goal_distance_m"] / 1000.0
    out = {}
    for name, seconds in (("goal", f["goal_seconds"]), ("race_equivalent", f["predicted_goal_seconds"])):
        sec = round(seconds / km, 1)
        out[name] = {"fast_sec_per_km": sec, "slow_sec_per_km": sec, "pace": f"{format_pace(sec)}/km"}
    return out


def _pace_range(zone: dict) -> str:
    fast, slow = zone["min_sec_per_km"], zone["max_sec_per_km"]
    if abs(fast - slow) < 0.5:
        return f"{format_pace(fast)}/km"
    return f"{format_pace(fast)}-{format_pace(slow)}/km"


@lru_cache(maxsize=1)
def _environment() -> Any:
    from jinja2 import Environment, FileSystemLoader, StrictUndefined

    return Environment(
        loader=FileSystemLoader(str(PROMPTS_DIR)),
        undefined=StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )


def render(scenario: str, profile_name: str, athlete: dict | None = None) -> tuple[str, dict[str, Any]]:
    """The coaching prompt of one case and its facts; ValueError for an unknown scenario or profile."""
    runner, task, facts = render_parts(scenario, profile_name, athlete)
    return runner + task, facts


def render_parts(scenario: str, profile_name: str, athlete: dict | None = None) -> tuple[str, str, dict[str, Any]]:
    """The prompt in two parts: the runner's data (``_runner.j2``, the same for every scenario of a
    runner: a prompt-cache prefix) and the scenario's task (``<scenario>.j2``); and the facts."""
    if scenario not in SCENARIOS:
        raise ValueError(f"unknown scenario {scenario!r}; choose one of {', '.join(SCENARIOS)}")
    profile = with_overrides(load_profile(profile_name), athlete)
    full = profile_facts(profile)
    facts = case_facts(profile, scenario)
    context = dict(
        scenario=scenario,
        profile=profile,
        tools=full,
        facts=facts,
        load=full["training_load"],
        prediction=full["goal_prediction"],
        zones=facts["zones"],
    )
    env = _environment()
    return env.get_template("_runner.j2").render(**context), env.get_template(f"{scenario}.j2").render(**context), facts


async def run(input: dict, llm: Any):
    """Target: ``{scenario, profile}`` -> TargetResult(reply text, facts)."""
    from evalkit.run.targets import TargetResult

    if not isinstance(input, dict) or "scenario" not in input or "profile" not in input:
        raise ValueError(f"input must be a mapping with `scenario` and `profile`, got {input!r}")
    runner, task, facts = render_parts(input["scenario"], input["profile"], input.get("athlete"))
    # The system prompt and the runner's data are the same for the runner's every scenario and repeat:
    # marked as a prompt-cache prefix (read at a tenth of the input price once written).
    content = [{"type": "text", "text": runner, "cache_control": {"type": "ephemeral"}}, {"type": "text", "text": task}]
    reply = await llm.complete([{"role": "user", "content": content}], system=SYSTEM_PROMPT)
    return TargetResult(output=reply, facts=facts)
