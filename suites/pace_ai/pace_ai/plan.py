"""A week's plan read day by day: the figures the rubric needs, computed from the days, never from
the reply's own summary line.

A day is what the extraction records per day of the reply (the suite's ``days`` field):
``day``, ``session`` (one of :data:`SESSIONS`), ``km``, ``quality_km`` (the km of a quality
session run at its target pace; the rest of that day is easy), ``pace_fast_sec_per_km`` and
``pace_slow_sec_per_km`` (the target pace range; both the same for a single pace) and ``quote``
(the reply's words for that day, as evidence).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["HARD_SESSIONS", "SESSIONS", "SESSION_ZONE", "TRACK_SESSIONS", "WeekSummary", "summarize"]

SESSIONS = ("rest", "easy", "long", "tempo", "threshold", "marathon", "interval", "repetition", "race")

#: Sessions that are not easy running: counted as intensity sessions, none allowed at ACWR >= 1.5.
HARD_SESSIONS = frozenset({"tempo", "threshold", "marathon", "interval", "repetition", "race"})

#: Track intervals (VO2max intervals and repetitions): none for a beginner.
TRACK_SESSIONS = frozenset({"interval", "repetition"})

#: The zone each session's target pace is checked against (Daniels: tempo runs are threshold pace;
#: an easy long run is easy pace). A race has the goal's pace, not a training zone.
SESSION_ZONE = {"easy": "easy", "long": "easy", "tempo": "threshold", "threshold": "threshold",
                "marathon": "marathon", "interval": "interval", "repetition": "repetition"}


def _km(day: dict[str, Any]) -> float:
    value = day.get("km")
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else 0.0


def _runs(day: dict[str, Any]) -> bool:
    return day.get("session") != "rest" and _km(day) > 0


@dataclass(frozen=True)
class WeekSummary:
    """The week's figures, each computed from the days."""

    days: int
    total_km: float
    run_days: int
    rest_days: int
    long_run_km: float
    hard_km: float
    intensity_sessions: list[str]
    track_sessions: list[str]

    @property
    def long_run_pct(self) -> float:
        return self.long_run_km / self.total_km * 100 if self.total_km else 0.0

    @property
    def easy_pct(self) -> float:
        return (self.total_km - self.hard_km) / self.total_km * 100 if self.total_km else 0.0

    def describe(self) -> str:
        return (f"{self.total_km:g} km over {self.run_days} run days, {self.rest_days} rest days, "
                f"long run {self.long_run_km:g} km")


def summarize(days: list[dict[str, Any]]) -> WeekSummary:
    """The week's figures from its days; a day the plan leaves out of a 7-day week is a rest day."""
    runs = [d for d in days if _runs(d)]
    hard = [d for d in runs if d.get("session") in HARD_SESSIONS]
    hard_km = 0.0
    for d in hard:  # a quality session's warm-up and cool-down are easy km
        quality = d.get("quality_km")
        ok = isinstance(quality, (int, float)) and not isinstance(quality, bool) and 0 <= quality <= _km(d)
        hard_km += float(quality) if ok else _km(d)
    label = lambda d: f"{d.get('day') or '?'} {d.get('session')}"  # noqa: E731
    return WeekSummary(
        days=len(days), total_km=round(sum(_km(d) for d in runs), 2), run_days=len(runs),
        rest_days=max(7, len(days)) - len(runs), long_run_km=max((_km(d) for d in runs), default=0.0),
        hard_km=round(hard_km, 2), intensity_sessions=[label(d) for d in hard],
        track_sessions=[label(d) for d in runs if d.get("session") in TRACK_SESSIONS])
