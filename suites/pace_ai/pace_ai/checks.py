"""Rubric items of the pace-ai suite that numbers decide: code on extracted fields and facts.

Each check reads fields the judge model extracted from the coaching reply (``ctx.fields``)
and the values the pace-ai tools computed for the case (``ctx.facts``). A field the reply
does not state fails the item (the rubric asks for specifics); a missing fact is a bug in the
suite and raises, which the runner reports as an error row. The suite names this module
under ``plugins:``.
"""

from __future__ import annotations

from typing import Any, ClassVar

from evalkit import Check, CheckContext, Outcome, register_check

__all__ = [
    "BeginnerLimits",
    "EasyPaceInZone",
    "EasyShare",
    "LongRunShare",
    "RestDay",
    "RiskMatchesAcwr",
    "TaperBeforeRace",
    "VolumeNearAverage",
]


def _field(ctx: CheckContext, name: str) -> Any:
    fields = ctx.fields or {}
    if name not in fields:
        raise ValueError(f"field {name!r} was not extracted; declare it under the suite's `fields`")
    return fields[name]


def _fact(ctx: CheckContext, name: str) -> Any:
    if name not in ctx.facts:
        raise ValueError(f"fact {name!r} missing: the target must return it (pace_ai.coach)")
    return ctx.facts[name]


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)


def _pace(sec: float) -> str:
    s = int(round(sec))
    return f"{s // 60}:{s % 60:02d}/km"


class _FieldCheck(Check):
    needs_fields: ClassVar[bool] = True
    uses: ClassVar[tuple[str, ...]] = ()

    def referenced_fields(self) -> set[str]:
        return set(self.uses)


@register_check
class VolumeNearAverage(_FieldCheck):
    """The recommended weekly km lies within ±tolerance of the runner's recent average."""

    type: ClassVar[str] = "pace_volume_near_average"
    uses = ("recommended_weekly_km",)
    tolerance: float = 0.20
    fact: str = "recent_avg_weekly_km"

    def evaluate(self, ctx: CheckContext) -> Outcome:
        km = _number(_field(ctx, "recommended_weekly_km"))
        avg = _number(_fact(ctx, self.fact))
        if km is None:
            return Outcome(False, "no weekly volume is stated")
        if not avg:
            return Outcome.not_applicable(f"{self.fact} is {avg!r}: no recent volume to compare with")
        low, high = avg * (1 - self.tolerance), avg * (1 + self.tolerance)
        change = (km - avg) / avg * 100
        ok = low - 1e-9 <= km <= high + 1e-9  # 28 * 0.8 is 22.400000000000002
        return Outcome(ok, f"{km:g} km vs recent average {avg:g} km ({change:+.0f} %; allowed "
                           f"{low:.1f}-{high:.1f} km)")


@register_check
class LongRunShare(_FieldCheck):
    """The long run is min_pct-max_pct % of the recommended weekly volume."""

    type: ClassVar[str] = "pace_long_run_share"
    uses = ("long_run_km", "recommended_weekly_km")
    min_pct: float = 25.0
    max_pct: float = 35.0

    def evaluate(self, ctx: CheckContext) -> Outcome:
        long_run = _number(_field(ctx, "long_run_km"))
        week = _number(_field(ctx, "recommended_weekly_km"))
        if long_run is None or not week:
            return Outcome(False, "the long run or the weekly volume is not stated")
        share = long_run / week * 100
        ok = self.min_pct - 1e-9 <= share <= self.max_pct + 1e-9
        return Outcome(ok, f"long run {long_run:g} km = {share:.0f} % of {week:g} km "
                           f"(expected {self.min_pct:g}-{self.max_pct:g} %)")


@register_check
class RestDay(_FieldCheck):
    """The week has at least one rest day (and so at most max_run_days run days)."""

    type: ClassVar[str] = "pace_rest_day"
    uses = ("includes_rest_day", "run_days_per_week")
    max_run_days: int = 6

    def evaluate(self, ctx: CheckContext) -> Outcome:
        rest = _field(ctx, "includes_rest_day")
        days = _number(_field(ctx, "run_days_per_week"))
        if days is not None and days > self.max_run_days:
            return Outcome(False, f"{days:g} run days: no rest day")
        if rest is not True:
            return Outcome(False, "no rest day" if rest is False else "a rest day is not stated")
        return Outcome(True, "includes a rest day" + (f" ({days:g} run days)" if days is not None else ""))


@register_check
class EasyShare(_FieldCheck):
    """Easy running makes up at least min_pct % of the recommended weekly volume."""

    type: ClassVar[str] = "pace_easy_share"
    uses = ("easy_km", "recommended_weekly_km")
    min_pct: float = 70.0

    def evaluate(self, ctx: CheckContext) -> Outcome:
        easy = _number(_field(ctx, "easy_km"))
        week = _number(_field(ctx, "recommended_weekly_km"))
        if easy is None or not week:
            return Outcome(False, "the easy km or the weekly volume is not stated")
        share = easy / week * 100
        return Outcome(share >= self.min_pct - 1e-9, f"easy {easy:g} of {week:g} km = {share:.0f} % "
                                              f"(need ≥ {self.min_pct:g} %)")


@register_check
class BeginnerLimits(_FieldCheck):
    """For a beginner (fact `is_beginner`): at most max_run_days run days and no track intervals."""

    type: ClassVar[str] = "pace_beginner_limits"
    uses = ("run_days_per_week", "includes_track_intervals")
    max_run_days: int = 4

    def evaluate(self, ctx: CheckContext) -> Outcome:
        if not _fact(ctx, "is_beginner"):
            return Outcome.not_applicable("not a beginner")
        days = _number(_field(ctx, "run_days_per_week"))
        track = _field(ctx, "includes_track_intervals")
        problems = []
        if days is None:
            problems.append("the number of run days is not stated")
        elif days > self.max_run_days:
            problems.append(f"{days:g} run days (max {self.max_run_days})")
        if track is True:
            problems.append("prescribes track intervals")
        if problems:
            return Outcome(False, "; ".join(problems))
        return Outcome(True, f"{days:g} run days, no track intervals")


@register_check
class EasyPaceInZone(_FieldCheck):
    """The easy paces prescribed lie inside the computed easy zone (± tolerance_sec)."""

    type: ClassVar[str] = "pace_easy_pace_in_zone"
    uses = ("easy_pace_fastest_sec_per_km", "easy_pace_slowest_sec_per_km")
    tolerance_sec: float = 5.0
    zone: str = "easy"

    def evaluate(self, ctx: CheckContext) -> Outcome:
        zones = _fact(ctx, "zones")
        if self.zone not in zones:
            raise ValueError(f"facts.zones has no zone {self.zone!r}")
        fast_limit = zones[self.zone]["fast_sec_per_km"] - self.tolerance_sec
        slow_limit = zones[self.zone]["slow_sec_per_km"] + self.tolerance_sec
        paces = [p for p in (_number(_field(ctx, "easy_pace_fastest_sec_per_km")),
                             _number(_field(ctx, "easy_pace_slowest_sec_per_km"))) if p is not None]
        zone_text = f"{self.zone} zone {_pace(zones[self.zone]['fast_sec_per_km'])}-" \
                    f"{_pace(zones[self.zone]['slow_sec_per_km'])}"
        if not paces:
            return Outcome(False, f"no {self.zone} pace is prescribed ({zone_text})")
        outside = [p for p in paces if not fast_limit <= p <= slow_limit]
        shown = "-".join(_pace(p) for p in sorted(set(paces)))
        if outside:
            return Outcome(False, f"{self.zone} pace {shown} falls outside the {zone_text}")
        return Outcome(True, f"{self.zone} pace {shown} inside the {zone_text}")


@register_check
class RiskMatchesAcwr(_FieldCheck):
    """The risk level stated matches the ACWR category the tools computed (fact `risk_level`)."""

    type: ClassVar[str] = "pace_risk_matches_acwr"
    uses = ("risk_level",)

    def evaluate(self, ctx: CheckContext) -> Outcome:
        expected = _fact(ctx, "risk_level")
        if expected not in ("low", "optimal", "elevated", "high"):
            return Outcome.not_applicable(f"no ACWR category ({expected})")
        stated = _field(ctx, "risk_level")
        if stated is None:
            return Outcome(False, f"no risk level is stated (ACWR {ctx.facts.get('acwr')} is {expected})")
        return Outcome(stated == expected, f"stated {stated}, ACWR {ctx.facts.get('acwr')} is {expected}")


@register_check
class TaperBeforeRace(_FieldCheck):
    """When the race is under 3 weeks away (fact `race_within_3_weeks`), a taper is recommended."""

    type: ClassVar[str] = "pace_taper"
    uses = ("recommends_taper",)

    def evaluate(self, ctx: CheckContext) -> Outcome:
        days = ctx.facts.get("days_until_race")
        if not _fact(ctx, "race_within_3_weeks"):
            return Outcome.not_applicable(f"race is {days} days away")
        taper = _field(ctx, "recommends_taper")
        if taper is True:
            return Outcome(True, f"recommends a taper, race in {days} days")
        return Outcome(False, f"race in {days} days but no taper is recommended")
