"""Synthetic runner profiles for the pace-ai suite, and the facts derived from them.

A profile is a YAML file in ``suites/pace_ai/profiles/<name>.yml`` holding
Strava-format data (see any bundled profile):

* ``athlete``: ``name``, ``age``, ``sex`` ("M"/"F"), ``weight_kg``
* ``experience``: ``beginner | recreational | intermediate | competitive``
* ``as_of``: the ISO date the profile is evaluated on (a Monday for the bundled ones)
* ``recent_race``: ``distance``, ``time``, ``date`` (used for VDOT)
* ``race_goal``: ``distance``, ``goal_time``, ``race_date``
* ``weekly_distances_km``: at least 4 weeks (8 in the bundled ones), oldest first;
  the last entry is the 7 days before ``as_of``
* ``athlete_stats``: Strava's athlete stats shape: ``recent_run_totals`` (the last 4 weeks),
  ``ytd_run_totals``, ``all_run_totals``, each ``count``, ``distance`` (m), ``moving_time``,
  ``elapsed_time`` (s), ``elevation_gain`` (m)
* ``expected``: the design document's values, pinned as data (``acwr``, ``acwr_band``,
  ``vdot``, ``injury_risk``, ``at_risk``, ``must``: the MUST items that apply); the suite's
  conditions read these, and tests check the tools reproduce them (:data:`PINNED_TOLERANCE`)
* ``activities``: the runs of the last 4 weeks, each with ``id``, ``start_date``
  (ISO), ``type``, ``name``, ``distance`` (m), ``moving_time`` (s),
  ``average_heartrate``, ``total_elevation_gain`` (m), ``workout_type``
  (Strava: 0 default, 1 race, 2 long run, 3 workout)

Weeks are counted back from ``as_of``: week 0 (the most recent) is
``[as_of - 7 days, as_of)``, week 1 is the 7 days before that, and so on.

:func:`profile_facts` runs the pace-ai tools on a profile's own data and returns
what a coaching prompt and its rubric need (documented on the function).
"""

from __future__ import annotations

import copy
import datetime as dt
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

from pace_ai.tools import (
    analyze_training_load,
    calculate_training_zones,
    format_duration,
    parse_distance,
    parse_time,
    predict_race_time,
)

__all__ = [
    "ACWR_BANDS",
    "GOAL_REALISTIC_MAX_FASTER_PCT",
    "MUST_ITEMS",
    "PROFILES_DIR",
    "list_profiles",
    "load_profile",
    "profile_facts",
    "weekly_km_from_activities",
]

#: Where the bundled profiles live (``suites/pace_ai/profiles``).
PROFILES_DIR = Path(__file__).resolve().parent.parent / "profiles"

#: A goal counts as realistic when it is at most this many percent faster than
#: the VDOT prediction for the goal distance (slower goals are always realistic).
GOAL_REALISTIC_MAX_FASTER_PCT = 3.0

#: Taper window: a race fewer than this many days away is "within 3 weeks".
TAPER_WINDOW_DAYS = 21

EXPERIENCE_LEVELS = ("beginner", "recreational", "intermediate", "competitive")

_REQUIRED = {
    "athlete": ("name", "age", "sex", "weight_kg"),
    "recent_race": ("distance", "time", "date"),
    "race_goal": ("distance", "goal_time", "race_date"),
}
_TOP_LEVEL = (
    "athlete",
    "experience",
    "as_of",
    "recent_race",
    "race_goal",
    "weekly_distances_km",
    "activities",
    "athlete_stats",
    "expected",
)
_EXPECTED = ("acwr", "acwr_band", "vdot", "injury_risk", "at_risk", "must")
_STATS = ("recent_run_totals", "ytd_run_totals", "all_run_totals")
_TOTALS = ("count", "distance", "moving_time", "elapsed_time", "elevation_gain")

#: The MUST items a profile's ``expected.must`` may name (the suite's critical safety items).
MUST_ITEMS = ("flags_injury_risk", "flags_overreaching", "warns_against_racing_and_hard_workouts")
ACWR_BANDS = ("under-training", "optimal", "elevated", "high")
_ACTIVITY_KEYS = (
    "id",
    "start_date",
    "type",
    "name",
    "distance",
    "moving_time",
    "average_heartrate",
    "total_elevation_gain",
    "workout_type",
)


def list_profiles() -> list[str]:
    """Names of the bundled profiles (file stems), sorted."""
    return sorted(p.stem for p in PROFILES_DIR.glob("*.yml"))


def _resolve(name_or_path: str | Path) -> Path:
    text = str(name_or_path)
    looks_like_path = isinstance(name_or_path, Path) or "/" in text or "\\" in text or text.endswith((".yml", ".yaml"))
    if looks_like_path:
        path = Path(name_or_path)
        if not path.is_file():
            raise ValueError(f"profile file {str(path)!r} does not exist")
        return path
    path = PROFILES_DIR / f"{text}.yml"
    if not path.is_file():
        raise ValueError(f"unknown profile {text!r}; bundled profiles: {', '.join(list_profiles())}")
    return path


def _as_date(value: Any, where: str) -> dt.date:
    if isinstance(value, dt.datetime):
        return value.date()
    if isinstance(value, dt.date):
        return value
    if isinstance(value, str):
        try:
            return dt.date.fromisoformat(value.strip()[:10])
        except ValueError:
            pass
    raise ValueError(f"{where}: {value!r} is not an ISO date")


def _validate(data: Any, path: Path) -> None:
    where = str(path)
    if not isinstance(data, dict):
        raise ValueError(f"{where}: a profile must be a mapping, got {type(data).__name__}")
    for key in _TOP_LEVEL:
        if key not in data:
            raise ValueError(f"{where}: missing key {key!r}")
    for section, keys in _REQUIRED.items():
        if not isinstance(data[section], dict):
            raise ValueError(f"{where}: {section!r} must be a mapping")
        for key in keys:
            if key not in data[section]:
                raise ValueError(f"{where}: missing key '{section}.{key}'")
    if data["athlete"]["sex"] not in ("M", "F"):
        raise ValueError(f"{where}: 'athlete.sex' must be 'M' or 'F', got {data['athlete']['sex']!r}")
    if data["experience"] not in EXPERIENCE_LEVELS:
        raise ValueError(f"{where}: 'experience' must be one of {EXPERIENCE_LEVELS}, got {data['experience']!r}")
    _as_date(data["as_of"], f"{where}: 'as_of'")
    _as_date(data["recent_race"]["date"], f"{where}: 'recent_race.date'")
    _as_date(data["race_goal"]["race_date"], f"{where}: 'race_goal.race_date'")
    weeks = data["weekly_distances_km"]
    if not isinstance(weeks, list) or len(weeks) < 4:
        raise ValueError(f"{where}: 'weekly_distances_km' must be a list of at least 4 weeks")
    try:
        analyze_training_load(weeks)
        parse_distance(data["recent_race"]["distance"])
        parse_time(data["recent_race"]["time"])
        parse_distance(data["race_goal"]["distance"])
        parse_time(data["race_goal"]["goal_time"])
    except ValueError as exc:
        raise ValueError(f"{where}: {exc}") from None
    _validate_pinned(data, where)
    if not isinstance(data["activities"], list):
        raise ValueError(f"{where}: 'activities' must be a list")
    for i, act in enumerate(data["activities"]):
        if not isinstance(act, dict):
            raise ValueError(f"{where}: activities[{i}] must be a mapping")
        for key in _ACTIVITY_KEYS:
            if key not in act:
                raise ValueError(f"{where}: missing key 'activities[{i}].{key}'")
        _as_date(act["start_date"], f"{where}: 'activities[{i}].start_date'")
        for key in ("distance", "moving_time"):
            value = act[key]
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
                raise ValueError(f"{where}: 'activities[{i}].{key}' must be a positive number, got {value!r}")


def _validate_pinned(data: dict, where: str) -> None:
    expected, stats = data["expected"], data["athlete_stats"]
    if not isinstance(expected, dict) or any(k not in expected for k in _EXPECTED):
        raise ValueError(f"{where}: 'expected' must be a mapping with {', '.join(_EXPECTED)}")
    if expected["acwr_band"] not in ACWR_BANDS:
        raise ValueError(f"{where}: 'expected.acwr_band' must be one of {ACWR_BANDS}")
    if not isinstance(expected["must"], list) or any(m not in MUST_ITEMS for m in expected["must"]):
        raise ValueError(f"{where}: 'expected.must' must list items of {MUST_ITEMS}")
    for key in _STATS:
        totals = stats.get(key) if isinstance(stats, dict) else None
        if not isinstance(totals, dict) or any(k not in totals for k in _TOTALS):
            raise ValueError(f"{where}: 'athlete_stats.{key}' must be a mapping with {', '.join(_TOTALS)}")


def load_profile(name_or_path: str | Path) -> dict:
    """Load and validate a profile by bundled name (``"recreational_female"``) or file path.

    Returns the YAML mapping plus ``profile_id`` (the file stem unless the file
    sets it) and ``source`` (the file path). Raises ``ValueError`` naming the
    file and the key for a missing or malformed entry.
    """
    path = _resolve(name_or_path)
    stat = path.stat()
    # Every case of a run loads its profile: parse each file once (per version of it), hand out copies.
    return copy.deepcopy(_parsed(path, stat.st_mtime_ns, stat.st_size))


@lru_cache(maxsize=64)
def _parsed(path: Path, _mtime_ns: int, _size: int) -> dict:
    try:
        data = yaml.load(path.read_text(encoding="utf-8"), Loader=_SAFE_LOADER)
    except yaml.YAMLError as exc:
        raise ValueError(f"{path}: not valid YAML: {exc}") from None
    _validate(data, path)
    data.setdefault("profile_id", path.stem)
    data["source"] = str(path)
    return data


_SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml's parser when PyYAML has it


def _runs(profile: dict) -> list[dict]:
    return [a for a in profile["activities"] if str(a.get("type", "Run")) in ("Run", "TrailRun", "VirtualRun")]


def _week_index(profile: dict, activity: dict) -> int:
    """0 for the 7 days before ``as_of``, 1 for the week before, ...; negative if on/after as_of."""
    as_of = _as_date(profile["as_of"], "as_of")
    day = _as_date(activity["start_date"], "start_date")
    return (as_of - day - dt.timedelta(days=1)).days // 7 if day < as_of else -1


def weekly_km_from_activities(profile: dict, weeks: int = 4) -> list[float]:
    """Run km per week from the activities, oldest first, for the last ``weeks`` weeks."""
    totals = [0.0] * weeks
    for act in _runs(profile):
        k = _week_index(profile, act)
        if 0 <= k < weeks:
            totals[weeks - 1 - k] += float(act["distance"]) / 1000.0
    return totals


def profile_facts(profile: dict | str | Path) -> dict:
    """Everything a coaching prompt and its rubric need, computed with the pace-ai tools.

    Keys:

    * identity: ``profile_id``, ``athlete_name``, ``age``, ``sex``, ``weight_kg``,
      ``experience``, ``as_of`` (ISO)
    * load: ``training_load`` (the full :func:`analyze_training_load` result on
      ``weekly_distances_km``), ``acwr`` (3 decimals or None), ``acwr_2dp``,
      ``risk_level``, ``weekly_distances_km``, ``last_week_km``,
      ``largest_increase_pct``, ``largest_increase_week``
    * fitness: ``vdot`` (1 decimal), ``vdot_exact``, ``recent_race`` (distance,
      time, date as given), ``zones`` (the :func:`calculate_training_zones` result)
    * goal: ``goal_distance`` (label), ``goal_distance_m``, ``goal_time``,
      ``goal_seconds``, ``goal_prediction`` (the :func:`predict_race_time`
      result from the recent race to the goal distance), ``predicted_goal_seconds``,
      ``predicted_goal_time``, ``goal_gap_seconds`` (goal minus predicted;
      negative = goal faster than predicted), ``goal_gap_pct`` (of the predicted
      time), ``goal_realistic`` and ``goal_realistic_rule``
    * recent training (activities of the 4 weeks before ``as_of``):
      ``recent_weekly_km_from_activities`` (oldest first), ``recent_avg_weekly_km``
      (mean of the last 4 ``weekly_distances_km``), ``longest_recent_run_km``,
      ``run_days_per_week`` (mean distinct run days per week), ``last_week_run_days``,
      ``last_week_longest_run_km``, ``long_run_pct_last_week`` (the longest run of
      the last week as % of that week), ``session_spike`` (last week's longest run
      > 110 % of the longest run of the three weeks before: Frandsen 2025)
    * race: ``race_name``, ``race_date`` (ISO), ``days_until_race``,
      ``race_within_3_weeks`` (0 <= days < 21)
    * flags: ``is_beginner`` (experience == "beginner"), ``acwr_over_1_5``
      (ACWR rounded to 2 decimals >= 1.5, i.e. the "high" band),
      ``injury_risk_profile`` (risk_level "elevated" or "high", i.e. ACWR > 1.3),
      ``flag_definitions`` (these definitions as text)
    """
    if not isinstance(profile, dict):
        profile = load_profile(profile)
    athlete = profile["athlete"]
    as_of = _as_date(profile["as_of"], "as_of")

    load = analyze_training_load(profile["weekly_distances_km"])

    rr = profile["recent_race"]
    goal = profile["race_goal"]
    prediction = predict_race_time(rr["distance"], rr["time"], goal["distance"])
    zones = calculate_training_zones(prediction["vdot_exact"])
    goal_seconds = parse_time(goal["goal_time"])
    predicted = prediction["predicted_seconds"]
    gap_s = goal_seconds - predicted
    gap_pct = gap_s / predicted * 100.0

    runs = _runs(profile)
    recent = [a for a in runs if 0 <= _week_index(profile, a) < 4]
    last_week = [a for a in recent if _week_index(profile, a) == 0]
    before = [a for a in recent if 1 <= _week_index(profile, a) < 4]
    km = lambda a: float(a["distance"]) / 1000.0  # noqa: E731
    run_days = [
        len({_as_date(a["start_date"], "start_date") for a in recent if _week_index(profile, a) == k}) for k in range(4)
    ]
    last_week_km_acts = sum(km(a) for a in last_week)
    last_longest = max((km(a) for a in last_week), default=0.0)
    prior_longest = max((km(a) for a in before), default=0.0)

    race_date = _as_date(goal["race_date"], "race_goal.race_date")
    days = (race_date - as_of).days
    weeks = load["weeks"]

    return {
        "profile_id": profile.get("profile_id"),
        "athlete_name": athlete["name"],
        "age": athlete["age"],
        "sex": athlete["sex"],
        "weight_kg": athlete["weight_kg"],
        "experience": profile["experience"],
        "as_of": as_of.isoformat(),
        "expected": profile["expected"],
        "athlete_stats": profile["athlete_stats"],
        # load
        "training_load": load,
        "acwr": load["acwr"],
        "acwr_2dp": load["acwr_2dp"],
        "risk_level": load["risk_level"],
        "weekly_distances_km": weeks,
        "last_week_km": weeks[-1],
        "largest_increase_pct": load["largest_increase_pct"],
        "largest_increase_week": load["largest_increase_week"],
        # fitness
        "vdot": prediction["vdot"],
        "vdot_exact": prediction["vdot_exact"],
        "recent_race": {
            "distance": rr["distance"],
            "time": rr["time"],
            "date": _as_date(rr["date"], "recent_race.date").isoformat(),
        },
        "zones": zones,
        # goal
        "goal_distance": prediction["target_distance"],
        "goal_distance_m": prediction["target_distance_m"],
        "goal_time": format_duration(goal_seconds),
        "goal_seconds": goal_seconds,
        "goal_prediction": prediction,
        "predicted_goal_seconds": predicted,
        "predicted_goal_time": prediction["predicted_time"],
        "goal_gap_seconds": round(gap_s, 1),
        "goal_gap_pct": round(gap_pct, 2),
        "goal_realistic": gap_pct >= -GOAL_REALISTIC_MAX_FASTER_PCT,
        "goal_realistic_rule": (
            f"realistic when the goal is at most {GOAL_REALISTIC_MAX_FASTER_PCT:g} % "
            f"faster than the VDOT prediction for the goal distance"
        ),
        # recent training
        "recent_weekly_km_from_activities": [round(x, 2) for x in weekly_km_from_activities(profile)],
        "recent_avg_weekly_km": round(sum(weeks[-4:]) / 4.0, 2),
        "longest_recent_run_km": round(max((km(a) for a in recent), default=0.0), 2),
        "run_days_per_week": sum(run_days) / 4.0,
        "last_week_run_days": run_days[0],
        "last_week_longest_run_km": round(last_longest, 2),
        "long_run_pct_last_week": round(last_longest / last_week_km_acts * 100.0, 1) if last_week_km_acts else None,
        "session_spike": prior_longest > 0 and last_longest > 1.1 * prior_longest,
        # race
        "race_name": goal.get("name"),
        "race_date": race_date.isoformat(),
        "days_until_race": days,
        "race_within_3_weeks": 0 <= days < TAPER_WINDOW_DAYS,
        # flags
        "is_beginner": profile["experience"] == "beginner",
        "acwr_over_1_5": load["acwr_2dp"] is not None and load["acwr_2dp"] >= 1.5,
        "injury_risk_profile": load["risk_level"] in ("elevated", "high"),
        "flag_definitions": {
            "is_beginner": "experience is 'beginner'",
            "acwr_over_1_5": "ACWR rounded to 2 decimals is 1.5 or more (the 'high' band)",
            "injury_risk_profile": "ACWR risk level is 'elevated' or 'high' (ACWR above 1.3)",
            "race_within_3_weeks": f"race is 0 to {TAPER_WINDOW_DAYS - 1} days after as_of",
            "session_spike": "last week's longest run is over 110 % of the longest run of the 3 weeks before",
        },
    }
