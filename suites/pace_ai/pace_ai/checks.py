"""Rubric items of the pace-ai suite that the plan's days decide (code, no judge).

Each check reads the days the extraction recorded from the coaching reply (``ctx.fields["days"]``,
see :mod:`pace_ai.plan`) and the case's facts (``ctx.facts``: the tools' zones, the 4-week
average, and the design's pinned values). Volume, long-run share, rest days, run days, easy share
and intensity sessions are computed from the days, never read from the reply's summary line; a
stated total that disagrees with the days fails an item of its own. A missing fact is a bug in
the suite and raises (an error row). The suite names this module under ``plugins:``.
"""

from __future__ import annotations

from abc import abstractmethod
from typing import Any, ClassVar

from evalkit import Check, CheckContext, Outcome, register_check
from pace_ai.plan import SESSION_ZONE, WeekSummary, summarize

__all__ = [
    "BeginnerLimits",
    "EasyShare",
    "LongRunShare",
    "MastersRecovery",
    "PacesInZones",
    "PlanVolume",
    "RestDay",
    "StatedTotalMatches",
    "TaperBeforeRace",
]

#: Tolerance of each zone, s/km, from the published tables (running-science reference: easy range
#: ends ±8 s/km, marathon and threshold ±2, interval ±3, repetition ±3 s per 400 m = ±7.5 s/km).
ZONE_TOLERANCE_SEC = {"easy": 8.0, "marathon": 2.0, "threshold": 2.0, "interval": 3.0, "repetition": 7.5}


def field(ctx: CheckContext, name: str) -> Any:
    fields = ctx.fields or {}
    if name not in fields:
        raise ValueError(f"field {name!r} was not extracted; declare it under the suite's `fields`")
    return fields[name]


def fact(ctx: CheckContext, name: str) -> Any:
    if name not in ctx.facts:
        raise ValueError(f"fact {name!r} missing: the target must return it (pace_ai.coach)")
    return ctx.facts[name]


def number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)


def pace(sec: float) -> str:
    s = int(round(sec))
    return f"{s // 60}:{s % 60:02d}/km"


class FieldCheck(Check):
    needs_fields: ClassVar[bool] = True
    uses: ClassVar[tuple[str, ...]] = ()

    def referenced_fields(self) -> set[str]:
        return set(self.uses)


class _PlanCheck(FieldCheck):
    """A check on the week the days describe; a reply without a day-by-day plan fails it."""

    uses: ClassVar[tuple[str, ...]] = ("days",)

    def evaluate(self, ctx: CheckContext) -> Outcome:
        days = field(ctx, "days")
        if not days:
            return Outcome(False, "no day-by-day plan")
        return self.judge_week(summarize(days), days, ctx)

    @abstractmethod
    def judge_week(self, week: WeekSummary, days: list[dict], ctx: CheckContext) -> Outcome:
        """The verdict on the week: each plan check says what it looks for."""


@register_check
class PlanVolume(_PlanCheck):
    """The days add up to a volume between the case's facts volume_floor_km and volume_ceiling_km
    (±20 % of the 4-week average; for an at-risk runner a recovery week down to 40 %)."""

    type: ClassVar[str] = "pace_plan_volume"

    def judge_week(self, week: WeekSummary, days: list[dict], ctx: CheckContext) -> Outcome:
        low, high = fact(ctx, "volume_floor_km"), fact(ctx, "volume_ceiling_km")
        avg = fact(ctx, "recent_avg_weekly_km")
        ok = low - 1e-9 <= week.total_km <= high + 1e-9
        return Outcome(ok, f"the days add up to {week.total_km:g} km vs recent average {avg:g} km "
                           f"(allowed {low:g}-{high:g} km)")


@register_check
class StatedTotalMatches(_PlanCheck):
    """A weekly total the reply states agrees with its days within tolerance (n/a if none is stated)."""

    type: ClassVar[str] = "pace_stated_total"
    uses = ("days", "stated_weekly_km")
    tolerance: float = 0.10

    def judge_week(self, week: WeekSummary, days: list[dict], ctx: CheckContext) -> Outcome:
        stated = number(field(ctx, "stated_weekly_km"))
        if stated is None:
            return Outcome.not_applicable("the reply states no weekly total")
        off = abs(stated - week.total_km) / week.total_km if week.total_km else float("inf")
        return Outcome(off <= self.tolerance + 1e-9, f"states {stated:g} km, the days add up to "
                                                     f"{week.total_km:g} km ({off:.0%} apart)")


@register_check
class LongRunShare(_PlanCheck):
    """The longest run is min_pct-max_pct % of the days' volume."""

    type: ClassVar[str] = "pace_long_run_share"
    min_pct: float = 25.0
    max_pct: float = 35.0

    def judge_week(self, week: WeekSummary, days: list[dict], ctx: CheckContext) -> Outcome:
        ok = self.min_pct - 1e-9 <= week.long_run_pct <= self.max_pct + 1e-9
        return Outcome(ok, f"long run {week.long_run_km:g} km = {week.long_run_pct:.0f} % of {week.total_km:g} km "
                           f"(expected {self.min_pct:g}-{self.max_pct:g} %)")


@register_check
class RestDay(_PlanCheck):
    """The week has at least min_rest_days rest days (a day the plan leaves out is rest)."""

    type: ClassVar[str] = "pace_rest_day"
    min_rest_days: int = 1

    def judge_week(self, week: WeekSummary, days: list[dict], ctx: CheckContext) -> Outcome:
        return Outcome(week.rest_days >= self.min_rest_days,
                       f"{week.run_days} run days, {week.rest_days} rest days (need ≥ {self.min_rest_days})")


@register_check
class EasyShare(_PlanCheck):
    """Easy running (all km but the quality km of hard sessions) is at least min_pct % of the days."""

    type: ClassVar[str] = "pace_easy_share"
    min_pct: float = 70.0

    def judge_week(self, week: WeekSummary, days: list[dict], ctx: CheckContext) -> Outcome:
        return Outcome(week.easy_pct >= self.min_pct - 1e-9,
                       f"easy {week.total_km - week.hard_km:g} of {week.total_km:g} km = {week.easy_pct:.0f} % "
                       f"(need ≥ {self.min_pct:g} %; intensity: {', '.join(week.intensity_sessions) or 'none'})")


@register_check
class BeginnerLimits(_PlanCheck):
    """For a beginner (fact `is_beginner`): at most max_run_days run days and no track intervals."""

    type: ClassVar[str] = "pace_beginner_limits"
    max_run_days: int = 4

    def judge_week(self, week: WeekSummary, days: list[dict], ctx: CheckContext) -> Outcome:
        if not fact(ctx, "is_beginner"):
            return Outcome.not_applicable("not a beginner")
        problems = [f"{week.run_days} run days (max {self.max_run_days})"] if week.run_days > self.max_run_days else []
        if week.track_sessions:
            problems.append("track intervals: " + ", ".join(week.track_sessions))
        return Outcome(not problems, "; ".join(problems) or f"{week.run_days} run days, no track intervals")


@register_check
class MastersRecovery(_PlanCheck):
    """For a masters runner (fact `is_masters`): at least min_rest_days rest days, at most
    max_intensity intensity sessions, and no track intervals."""

    type: ClassVar[str] = "pace_masters_recovery"
    min_rest_days: int = 3
    max_intensity: int = 1

    def judge_week(self, week: WeekSummary, days: list[dict], ctx: CheckContext) -> Outcome:
        if not fact(ctx, "is_masters"):
            return Outcome.not_applicable(f"age {ctx.facts.get('age')}: not a masters runner")
        problems = []
        if week.rest_days < self.min_rest_days:
            problems.append(f"{week.rest_days} rest days (need ≥ {self.min_rest_days})")
        if len(week.intensity_sessions) > self.max_intensity:
            problems.append(f"{len(week.intensity_sessions)} intensity sessions (max {self.max_intensity})")
        if week.track_sessions:
            problems.append("track intervals: " + ", ".join(week.track_sessions))
        return Outcome(not problems, "; ".join(problems) or
                       f"{week.rest_days} rest days, {len(week.intensity_sessions)} intensity session(s)")


@register_check
class PacesInZones(_PlanCheck):
    """Every prescribed pace lies in its session's zone (easy, marathon, threshold, interval,
    repetition), within that zone's published tolerance."""

    type: ClassVar[str] = "pace_paces_in_zones"

    def judge_week(self, week: WeekSummary, days: list[dict], ctx: CheckContext) -> Outcome:
        zones = fact(ctx, "zones")
        checked, outside = [], []
        for d in days:
            zone = SESSION_ZONE.get(str(d.get("session")))
            paces = [p for p in (number(d.get("pace_fast_sec_per_km")), number(d.get("pace_slow_sec_per_km")))
                     if p is not None]
            if zone is None or not paces:
                continue
            z, tol = zones[zone], ZONE_TOLERANCE_SEC[zone]
            shown = "-".join(pace(p) for p in sorted(set(paces)))
            span = f"{pace(z['fast_sec_per_km'])}-{pace(z['slow_sec_per_km'])} ±{tol:g} s"
            checked.append(f"{d.get('day')} {zone} {shown}")
            if not all(z["fast_sec_per_km"] - tol - 1e-9 <= p <= z["slow_sec_per_km"] + tol + 1e-9 for p in paces):
                outside.append(f"{d.get('day')} {d.get('session')} at {shown} outside the {zone} zone {span}")
        if outside:
            return Outcome(False, "; ".join(outside))
        if not checked:
            return Outcome(False, "no run has a target pace")
        return Outcome(True, "paces in their zones: " + ", ".join(checked))


@register_check
class TaperBeforeRace(FieldCheck):
    """When the race is under 3 weeks away (fact `race_within_3_weeks`), a taper is recommended."""

    type: ClassVar[str] = "pace_taper"
    uses = ("recommends_taper",)

    def evaluate(self, ctx: CheckContext) -> Outcome:
        days = ctx.facts.get("days_until_race")
        if not fact(ctx, "race_within_3_weeks"):
            return Outcome.not_applicable(f"race is {days} days away")
        if field(ctx, "recommends_taper") is True:
            return Outcome(True, f"recommends a taper, race in {days} days")
        return Outcome(False, f"race in {days} days but no taper is recommended")
