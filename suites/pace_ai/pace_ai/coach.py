"""The coach: the system under test of the pace-ai suite (target ``pace_ai.coach:run``).

For a case input ``{scenario, profile}`` it runs the pace-ai tools on the profile's own
data (``profile_facts``), renders ``prompts/<scenario>.j2`` with the profile and the tool
results, asks the coaching model once, and returns the reply together with the facts the
rubric's conditions (``when:``) and code-decided checks read.
"""

from __future__ import annotations

import statistics
from functools import lru_cache
from pathlib import Path
from typing import Any

from pace_ai.profiles import load_profile, profile_facts
from pace_ai.tools import format_pace

__all__ = ["PROMPTS_DIR", "SCENARIOS", "SYSTEM_PROMPT", "case_facts", "render", "run"]

PROMPTS_DIR = Path(__file__).resolve().parent.parent / "prompts"
SCENARIOS = ("weekly_plan", "injury_risk", "race_readiness")

SYSTEM_PROMPT = (
    "You are pace-ai, an evidence-based running coach. Base every recommendation on the runner's "
    "own data and the computed values you are given (training load, VDOT, training zones, goal "
    "prediction); do not invent other numbers. Be specific: give distances in km, paces in min:ss/km, "
    "and named days. Put the runner's long-term health before any race."
)

#: The prior weeks vary this much (coefficient of variation) or more: an erratic load history.
ERRATIC_CV = 0.30

ZONE_NAMES = ("easy", "marathon", "threshold", "interval", "repetition")


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


def case_facts(profile_name: str, scenario: str) -> dict[str, Any]:
    """The trusted facts of one case: compact, JSON-able, what the rubric and the judge need."""
    f = profile_facts(profile_name)
    zones = {name: {"fast_sec_per_km": round(f["zones"][name]["min_sec_per_km"], 1),
                    "slow_sec_per_km": round(f["zones"][name]["max_sec_per_km"], 1),
                    "pace": _pace_range(f["zones"][name])}
             for name in ZONE_NAMES}
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
        "race_date": f["race_date"],
        "days_until_race": f["days_until_race"],
        "race_within_3_weeks": f["race_within_3_weeks"],
        "is_beginner": f["is_beginner"],
        "injury_risk_profile": f["injury_risk_profile"],
        "acwr_over_1_5": f["acwr_over_1_5"],
        "acwr_sustainable": f["acwr_2dp"] is not None and 0.8 <= f["acwr_2dp"] <= 1.3,
    }


def _pace_range(zone: dict) -> str:
    fast, slow = zone["min_sec_per_km"], zone["max_sec_per_km"]
    if abs(fast - slow) < 0.5:
        return f"{format_pace(fast)}/km"
    return f"{format_pace(fast)}-{format_pace(slow)}/km"


@lru_cache(maxsize=1)
def _environment() -> Any:
    from jinja2 import Environment, FileSystemLoader, StrictUndefined

    return Environment(loader=FileSystemLoader(str(PROMPTS_DIR)), undefined=StrictUndefined,
                       keep_trailing_newline=True, trim_blocks=True, lstrip_blocks=True)


def render(scenario: str, profile_name: str) -> tuple[str, dict[str, Any]]:
    """The coaching prompt of one case and its facts; ValueError for an unknown scenario or profile."""
    if scenario not in SCENARIOS:
        raise ValueError(f"unknown scenario {scenario!r}; choose one of {', '.join(SCENARIOS)}")
    profile = load_profile(profile_name)
    full = profile_facts(profile)
    facts = case_facts(profile_name, scenario)
    prompt = _environment().get_template(f"{scenario}.j2").render(
        scenario=scenario, profile=profile, tools=full, facts=facts,
        load=full["training_load"], prediction=full["goal_prediction"], zones=facts["zones"])
    return prompt, facts


async def run(input: dict, llm: Any):
    """Target: ``{scenario, profile}`` -> TargetResult(reply text, facts)."""
    from evalkit.targets import TargetResult

    if not isinstance(input, dict) or "scenario" not in input or "profile" not in input:
        raise ValueError(f"input must be a mapping with `scenario` and `profile`, got {input!r}")
    prompt, facts = render(input["scenario"], input["profile"])
    reply = await llm.complete(prompt, system=SYSTEM_PROMPT)
    return TargetResult(output=reply, facts=facts)
