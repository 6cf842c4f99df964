"""A week's plan read day by day: the figures the rubric needs, computed from the days, never from
the reply's own summary line.

A day is what the extraction records per day of the reply (the suite's ``days`` field):
``day``, ``session`` (one of :data:`SESSIONS`), ``km``, ``quality_km`` (the km of a quality
session run at its target pace; the rest of that day is easy), ``pace_fast_sec_per_km`` and
``pace_slow_sec_per_km`` (the target pace range; both the same for a single pace), ``minutes``
(a session given by time: its distance is then estimated from the runner's own zones, see
:func:`pace_ai.reading.estimate_km`) and ``quote`` (the reply's words for that day, as evidence).
Runs the reply adds outside the day list (the ``other_runs`` field: a double, an extra run) join
the week through :func:`with_added_runs`, so every figure is the whole week's.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pace_ai.reading import DAY_ORDER, estimate_km

__all__ = [
    "HARD_SESSIONS",
    "SESSIONS",
    "SESSION_ZONE",
    "TRACK_SESSIONS",
    "WeekSummary",
    "day_km",
    "summarize",
    "with_added_runs",
]

SESSIONS = ("rest", "easy", "long", "tempo", "threshold", "marathon", "race_pace", "interval", "repetition", "race")

#: Sessions that are not easy running: counted as intensity sessions, none allowed at ACWR >= 1.5.
#: race_pace is goal-race-pace work other than the marathon's (half-marathon or 10K pace).
HARD_SESSIONS = frozenset({"tempo", "threshold", "marathon", "race_pace", "interval", "repetition", "race"})

#: Track intervals (VO2max intervals and repetitions): none for a beginner.
TRACK_SESSIONS = frozenset({"interval", "repetition"})

#: The zone each session's target pace is checked against (Daniels: tempo runs are threshold pace;
#: an easy long run is easy pace). A race has the goal's pace, not a training zone.
SESSION_ZONE = {
    "easy": "easy",
    "long": "easy",
    "tempo": "threshold",
    "threshold": "threshold",
    "marathon": "marathon",
    "race_pace": "goal",
    "interval": "interval",
    "repetition": "repetition",
}


def _num(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def day_km(day: dict[str, Any], zones: dict[str, Any] | None = None) -> float:
    """The day's km; for a session given only by time ("45 min easy"), estimated from its minutes
    and the runner's zones, so that a time-based run day counts as a run day with its volume."""
    km = _num(day.get("km"))
    if km is not None and km > 0:
        return km
    minutes = _num(day.get("minutes"))
    if minutes and minutes > 0 and day.get("session") not in (None, "rest"):
        paces = [p for p in (_num(day.get("pace_fast_sec_per_km")), _num(day.get("pace_slow_sec_per_km"))) if p]
        own = paces if day.get("session") in ("easy", "long") else None
        return estimate_km(minutes, str(day.get("session")), zones, own)
    return 0.0


def with_added_runs(
    days: list[dict[str, Any]], added: list[dict[str, Any]] | None, zones: dict[str, Any] | None = None
) -> list[dict[str, Any]]:
    """The days with the runs the reply adds outside the list (``other_runs`` entries of kind
    extra_run or double for this week): a run on a listed rest day makes it a run day; any other
    added run is an entry of its own (a run of unstated length counts 0.1 km: still a run)."""
    out = [dict(d) for d in days]
    for run in added or []:
        if not isinstance(run, dict) or run.get("kind") not in ("extra_run", "double") or run.get("week") == "later":
            continue
        session = run.get("session") or "easy"
        km = day_km({"km": run.get("km"), "minutes": run.get("minutes"), "session": session}, zones)
        target = next((d for d in out if _same_day(d.get("day"), run.get("day"))), None)
        if target is None:
            out.append(
                {
                    "day": run.get("day") or "extra",
                    "session": session,
                    "km": km or 0.1,
                    "quality_km": None,
                    "quote": run.get("quote"),
                }
            )
            continue
        if target.get("session") in (None, "rest"):  # a run added on a rest day: no longer a rest day
            target.update(session=session, km=km or 0.1, minutes=None, quote=run.get("quote"))
        else:  # a second run that day: a run of its own (it does not lengthen the day's long run)
            out.append(
                {
                    "day": target.get("day"),
                    "session": session,
                    "km": km or 0.1,
                    "quality_km": None,
                    "quote": run.get("quote"),
                }
            )
    return out


def _same_day(a: Any, b: Any) -> bool:
    norm = lambda x: str(x or "").strip().lower()[:3]  # noqa: E731
    return bool(norm(a)) and norm(a) == norm(b) and norm(a) in {d.lower() for d in DAY_ORDER}


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
        return (
            f"{self.total_km:g} km over {self.run_days} run days, {self.rest_days} rest days, "
            f"long run {self.long_run_km:g} km"
        )


def summarize(days: list[dict[str, Any]], zones: dict[str, Any] | None = None) -> WeekSummary:
    """The week's figures from its days; a day the plan leaves out of a 7-day week is a rest day.
    `zones` (the case's facts) estimate the distance of sessions given by time."""
    _km = lambda d: day_km(d, zones)  # noqa: E731
    runs = [d for d in days if d.get("session") != "rest" and _km(d) > 0]
    hard = [d for d in runs if d.get("session") in HARD_SESSIONS]
    hard_km = 0.0
    for d in hard:  # a quality session's warm-up and cool-down are easy km
        quality = d.get("quality_km")
        ok = isinstance(quality, (int, float)) and not isinstance(quality, bool) and 0 <= quality <= _km(d)
        hard_km += float(quality) if ok else _km(d)
    label = lambda d: f"{d.get('day') or '?'} {d.get('session')}"  # noqa: E731
    return WeekSummary(
        days=len(days),
        total_km=round(sum(_km(d) for d in runs), 2),
        run_days=len(runs),
        rest_days=max(7, len(days)) - len(runs),
        long_run_km=max((_km(d) for d in runs), default=0.0),
        hard_km=round(hard_km, 2),
        intensity_sessions=[label(d) for d in hard],
        track_sessions=[label(d) for d in runs if d.get("session") in TRACK_SESSIONS],
    )
