"""Rubric items of the pace-ai suite that the plan's days decide (code, no judge).

Each check reads the days the extraction recorded from the coaching reply (``ctx.fields["days"]``,
see :mod:`pace_ai.plan`) and the case's facts (``ctx.facts``: the tools' zones, the 4-week
average, and the design's pinned values). Volume, long-run share, rest days, run days, easy share
and intensity sessions are computed from the days, never read from the reply's summary line; a
stated total that disagrees with the days fails an item of its own. A missing fact is a bug in
the suite and raises (an error row). The suite names this module under ``plugins:``.
"""

from __future__ import annotations

import re
from abc import abstractmethod
from typing import Any, ClassVar

from evalkit import Check, CheckContext, Outcome, register_check
from pace_ai.plan import SESSION_ZONE, WeekSummary, day_km, summarize, with_added_runs
from pace_ai.reading import added_runs, paces_in, parse_days, quantity, squash

__all__ = [
    "BeginnerLimits",
    "EasyShare",
    "LongRunShare",
    "MastersRecovery",
    "PacesInZones",
    "PlanVolume",
    "ProseMatchesPlan",
    "RestDay",
    "StatedTotalMatches",
    "TaperBeforeRace",
    "VolumeInAcwrBand",
]

#: Tolerance of each zone, s/km, from the published tables (running-science reference: easy range
#: ends ±8 s/km, marathon and threshold ±2, interval ±3, repetition ±3 s per 400 m = ±7.5 s/km).
ZONE_TOLERANCE_SEC = {
    "easy": 8.0,
    "marathon": 2.0,
    "threshold": 2.0,
    "interval": 3.0,
    "repetition": 7.5,
    "goal": 3.0,
    "race_equivalent": 3.0,
}

#: Goal race pace is a zone of its own: the goal time over the goal distance (±3 s/km, what a pace
#: written to the second or converted from min/mile is off by). Marathon-pace work at the runner's
#: goal marathon pace is sound even when that lies a few s/km outside the VDOT marathon zone, and a
#: half marathon's goal-pace work has no VDOT zone at all. Race-pace work may also use the pace
#: current fitness predicts for the goal race (the facts' race_equivalent zone).
SESSION_ZONES = {"marathon": ("marathon", "goal"), "race_pace": ("goal", "race_equivalent")}

#: How far the deterministic reading may differ from the extraction before they disagree.
AGREE_KM = 0.15


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
    """A check on the week the days describe; a reply without a day-by-day plan fails it.

    Two witnesses judge the week: the extraction's days (with the runs it recorded outside the list)
    and the reply's own day list as :mod:`pace_ai.reading` reads it (with the runs its prose adds).
    The item passes only when both pass, so a gullible or manipulated extraction cannot pass a
    week the reply does not hold. When the reply has no day list that reader can follow, every
    extracted run day must be quoted verbatim and its quote must carry the extracted distance."""

    uses: ClassVar[tuple[str, ...]] = ("days", "other_runs")

    def evaluate(self, ctx: CheckContext) -> Outcome:
        days = field(ctx, "days")
        if not days:
            return Outcome(False, "no day-by-day plan")
        zones = ctx.facts.get("zones")
        days = with_added_runs(days, (ctx.fields or {}).get("other_runs"), zones)
        first = self.judge_week(summarize(days, zones), days, ctx)
        parsed = parse_days(ctx.text, zones)
        if parsed is None:
            unquoted = unquoted_days(days, ctx.text, zones)
            if unquoted:
                return Outcome(False, "the extraction is not borne out by the reply: " + "; ".join(unquoted))
            return first
        read = [p.as_extracted() for p in parsed] + prose_runs(ctx.text)
        second = self.judge_parsed(summarize(read, zones), read, days, ctx)
        if second.passed is False and first.passed is not False:
            return Outcome(False, f"the reply's own day list: {second.reason} (the extraction: {first.reason})")
        return first

    @abstractmethod
    def judge_week(self, week: WeekSummary, days: list[dict], ctx: CheckContext) -> Outcome:
        """The verdict on the week: each plan check says what it looks for."""

    def judge_parsed(self, week: WeekSummary, read: list[dict], extracted: list[dict], ctx: CheckContext) -> Outcome:
        """The verdict on the week as read from the reply's words (by default the same test)."""
        return self.judge_week(week, read, ctx)


def unquoted_days(days: list[dict], text: str, zones: dict | None) -> list[str]:
    """Extracted run days whose quote is not in the reply, or whose quote states another distance."""
    reply, out = squash(text), []
    for d in days:
        if d.get("session") == "rest" or not day_km(d, zones):
            continue
        quote = d.get("quote")
        if not isinstance(quote, str) or not quote.strip() or squash(quote) not in reply:
            out.append(f"{d.get('day')}: quote {str(quote)[:60]!r} not found in the reply")
            continue
        q = quantity(quote)
        said = q.km if q.km is not None else None
        km = number(d.get("km"))
        if said is not None and km and abs(said - km) > max(1.0, AGREE_KM * km):
            out.append(f"{d.get('day')}: quoted {said:g} km, extracted {km:g} km")
    return out


def prose_runs(text: str) -> list[dict]:
    """The runs the reply's prose adds (a double, a second run), read deterministically: a day of
    its own each, with the distance or time its sentence names."""
    out = []
    for sentence in added_runs(prose_outside_the_list(text)):  # a day's own line already counts its double
        q = quantity(sentence)
        out.append(
            {"day": "added", "session": "easy", "km": q.km or 0.1, "minutes": q.minutes, "quote": sentence[:120]}
        )
    return out


@register_check
class PlanVolume(_PlanCheck):
    """The days add up to a volume between the case's facts volume_floor_km and volume_ceiling_km
    (±20 % of the 4-week average; for an at-risk runner a recovery week down to 40 %)."""

    type: ClassVar[str] = "pace_plan_volume"

    def judge_week(self, week: WeekSummary, days: list[dict], ctx: CheckContext) -> Outcome:
        low, high = fact(ctx, "volume_floor_km"), fact(ctx, "volume_ceiling_km")
        avg = fact(ctx, "recent_avg_weekly_km")
        ok = low - 1e-9 <= week.total_km <= high + 1e-9
        return Outcome(
            ok, f"the days add up to {week.total_km:g} km vs recent average {avg:g} km (allowed {low:g}-{high:g} km)"
        )


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
        return Outcome(
            off <= self.tolerance + 1e-9,
            f"states {stated:g} km, the days add up to {week.total_km:g} km ({off:.0%} apart)",
        )

    def judge_parsed(self, week: WeekSummary, read: list[dict], extracted: list[dict], ctx: CheckContext) -> Outcome:
        """The reply's own total lines ("**Total: 52 km**", "| Total | 52 km |"), read by code, and the
        extraction's stated total, each against the week the reply's day list adds up to."""
        problems = []
        for km in written_totals(ctx.text):
            if week.total_km and abs(km - week.total_km) / week.total_km > self.tolerance + 1e-9:
                problems.append(f"the reply writes a total of {km:g} km, its days add up to {week.total_km:g} km")
        if problems:
            return Outcome(False, "; ".join(problems))
        return self.judge_week(week, read, ctx)


_TOTAL_LINE = re.compile(
    r"^[\s*_#|>\-]*(?:weekly\s+|week\s+)?total(?:\s+(?:weekly\s+)?(?:volume|distance|mileage|km|running))?"
    r"[\s*_|:=]*(?:about|approx\.?|~|≈|ca\.?)?\s*(\d+(?:[.,]\d+)?)\s*(km|kilomet\w*|mi\b|miles?)",
    re.I | re.M,
)


def written_totals(text: str) -> list[float]:
    """The weekly totals the reply writes on a line of their own, in km (miles converted)."""
    return [
        round(float(m.group(1).replace(",", ".")) * (1.609344 if m.group(2).lower().startswith("mi") else 1.0), 2)
        for m in _TOTAL_LINE.finditer(text)
    ]


@register_check
class LongRunShare(_PlanCheck):
    """The longest run is min_pct-max_pct % of the days' volume."""

    type: ClassVar[str] = "pace_long_run_share"
    min_pct: float = 25.0
    max_pct: float = 35.0
    #: A week of few_run_days run days or fewer may hold a longer share: with three runs, one
    #: long run and two shorter ones make the long run 35-45 % by construction.
    few_run_days: int = 3
    few_days_max_pct: float = 45.0

    def judge_week(self, week: WeekSummary, days: list[dict], ctx: CheckContext) -> Outcome:
        high = self.few_days_max_pct if week.run_days <= self.few_run_days else self.max_pct
        ok = self.min_pct - 1e-9 <= week.long_run_pct <= high + 1e-9
        return Outcome(
            ok,
            f"long run {week.long_run_km:g} km = {week.long_run_pct:.0f} % of {week.total_km:g} km "
            f"over {week.run_days} run days (expected {self.min_pct:g}-{high:g} %)",
        )


@register_check
class RestDay(_PlanCheck):
    """The week has at least min_rest_days rest days (a day the plan leaves out is rest)."""

    type: ClassVar[str] = "pace_rest_day"
    min_rest_days: int = 1

    def judge_week(self, week: WeekSummary, days: list[dict], ctx: CheckContext) -> Outcome:
        return Outcome(
            week.rest_days >= self.min_rest_days,
            f"{week.run_days} run days, {week.rest_days} rest days (need ≥ {self.min_rest_days})",
        )


@register_check
class EasyShare(_PlanCheck):
    """Easy running (all km but the quality km of hard sessions) is at least min_pct % of the days."""

    type: ClassVar[str] = "pace_easy_share"
    min_pct: float = 70.0

    def judge_week(self, week: WeekSummary, days: list[dict], ctx: CheckContext) -> Outcome:
        return Outcome(
            week.easy_pct >= self.min_pct - 1e-9,
            f"easy {week.total_km - week.hard_km:g} of {week.total_km:g} km = {week.easy_pct:.0f} % "
            f"(need ≥ {self.min_pct:g} %; intensity: {', '.join(week.intensity_sessions) or 'none'})",
        )


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
        return Outcome(
            not problems,
            "; ".join(problems) or f"{week.rest_days} rest days, {len(week.intensity_sessions)} intensity session(s)",
        )


@register_check
class PacesInZones(_PlanCheck):
    """Every prescribed pace lies in its session's zone (easy, marathon, threshold, interval,
    repetition), within that zone's published tolerance."""

    type: ClassVar[str] = "pace_paces_in_zones"

    def judge_week(self, week: WeekSummary, days: list[dict], ctx: CheckContext) -> Outcome:
        zones = {**fact(ctx, "zones"), **ctx.facts.get("race_pace_zones", {})}
        checked, outside = [], []
        for d in days:
            session = str(d.get("session"))
            names = SESSION_ZONES.get(session) or ((SESSION_ZONE[session],) if session in SESSION_ZONE else ())
            if session == "marathon" and ctx.facts.get("goal_distance") != "marathon":
                names = ("marathon",)  # the goal's pace is marathon pace only when the goal is a marathon
            names = tuple(n for n in names if n in zones)
            paces = [
                p
                for p in (number(d.get("pace_fast_sec_per_km")), number(d.get("pace_slow_sec_per_km")))
                if p is not None
            ]
            if not names or not paces:
                continue
            shown = "-".join(pace(p) for p in sorted(set(paces)))
            checked.append(f"{d.get('day')} {session} {shown}")
            if not any(in_zone(paces, zones[n], ZONE_TOLERANCE_SEC[n]) for n in names):
                spans = " or ".join(
                    f"{n} {pace(zones[n]['fast_sec_per_km'])}-{pace(zones[n]['slow_sec_per_km'])} "
                    f"±{ZONE_TOLERANCE_SEC[n]:g} s"
                    for n in names
                )
                outside.append(f"{d.get('day')} {session} at {shown} outside {spans}")
        if outside:
            return Outcome(False, "; ".join(outside))
        if not checked:
            return Outcome(False, "no run has a target pace")
        return Outcome(True, "paces in their zones: " + ", ".join(checked))

    def judge_parsed(self, week: WeekSummary, read: list[dict], extracted: list[dict], ctx: CheckContext) -> Outcome:
        """The reply's own words: an easy or long day's written paces lie in the easy zone (the kind
        of a quality day is too coarse to pick its zone), and every pace the extraction recorded for
        a day is written in that day's words (converted from min/mile where it is given so)."""
        zones, problems = fact(ctx, "zones"), []
        words = {str(d.get("day"))[:3].lower(): d for d in read}
        for d in read:
            if d["session"] in ("easy", "long"):
                paces = paces_in(d.get("quote") or "")
                # none of its written paces easy (a fast finish of a long run may add a faster one)
                if paces and not any(in_zone([p], zones["easy"], ZONE_TOLERANCE_SEC["easy"]) for p in paces):
                    problems.append(f"{d['day']} easy at {'-'.join(pace(p) for p in paces)} outside the easy zone")
        for d in extracted:
            mine = words.get(str(d.get("day"))[:3].lower())
            written = paces_in(mine.get("quote") or "") if mine else []
            for key in ("pace_fast_sec_per_km", "pace_slow_sec_per_km"):
                p = number(d.get(key))
                if p is not None and written and not any(abs(p - w) <= 3 for w in written):
                    problems.append(f"{d.get('day')}: extracted pace {pace(p)} is not written for that day")
        return Outcome(not problems, "; ".join(problems) or "written paces agree")


def in_zone(paces: list[float], zone: dict, tol: float) -> bool:
    return all(zone["fast_sec_per_km"] - tol - 1e-9 <= p <= zone["slow_sec_per_km"] + tol + 1e-9 for p in paces)


#: Taper size by race week, % below the current weekly volume: Bosquet 2007 found 41-60 % best;
#: the band is wider because replies give round or approximate figures, but "cut a little" (under
#: 20 %) is no taper and over 75 % is detraining, not a taper.
TAPER_CUT_PCT = (20.0, 75.0)

_SKIP_RE = re.compile(
    r"\b(skip|withdraw|postpone|defer|pull out of|drop out of|sit (?:this one |it )?out|do not start|"
    r"don't start|dns|(?:do not|don't|not|shouldn't|should not) (?:run|race) (?:the|this|it)|choose a later|"
    r"pick a later|another race|later race|against racing|against running (?:the|it|this)|downgrade|"
    r"switch to (?:the|a) (?:shorter|10\s?k|5\s?k)|run it (?:easy|easily|gently|for fun)|"
    r"(?:run|jog|do) (?:it|the race|the half|the marathon|race day) (?:as|at) (?:an? )?(?:\w+ ){0,2}"
    r"(?:easy|training|relaxed|long|slow|gentle|comfortable|workout)|"
    r"jog it|treat (?:it|the race|race day) as an? (?:\w+ )?(?:easy|training|long|workout))\b",
    re.I,
)


def _pcts(text: str) -> list[float]:
    """Percentages written in `text`; a range ("40-60 %") gives both ends and its middle."""
    out = [float(m.group(1)) for m in re.finditer(r"(\d+(?:\.\d+)?)\s*(?:%|per ?cent)", text)]
    for m in re.finditer(r"(\d+(?:\.\d+)?)\s*%?\s*(?:-|–|to)\s*(\d+(?:\.\d+)?)\s*(?:%|per ?cent)", text):
        lo, hi = float(m.group(1)), float(m.group(2))
        out += [lo, hi, (lo + hi) / 2]
    if re.search(r"\b(halve|in half|by half)\b", text, re.I):
        out.append(50.0)
    return out


@register_check
class TaperBeforeRace(FieldCheck):
    """When the race is under 3 weeks away (fact `race_within_3_weeks`): a taper that starts within
    the coming week (it lasts at least until race day from then) and cuts volume by race week by
    TAPER_CUT_PCT; or the reply advises not racing at all (skipping the race needs no taper).

    Both need a second witness in the reply's words: a skip is read by a regular expression, and the
    taper's size must be written in its verbatim quote (a percentage, or a km figure that gives it)."""

    type: ClassVar[str] = "pace_taper"
    uses = ("recommends_taper", "skips_race", "taper_weeks", "taper_volume_cut_pct", "taper_quote")

    def evaluate(self, ctx: CheckContext) -> Outcome:
        days = ctx.facts.get("days_until_race")
        if not fact(ctx, "race_within_3_weeks"):
            return Outcome.not_applicable(f"race is {days} days away")
        fields = ctx.fields or {}
        if fields.get("skips_race") is True and _SKIP_RE.search(ctx.text):
            return Outcome(
                True, f"advises not racing in {days} days: no taper needed ({_SKIP_RE.search(ctx.text).group(0)!r})"
            )
        if field(ctx, "recommends_taper") is not True:
            return Outcome(False, f"race in {days} days but no taper is recommended")
        weeks, cut = number(fields.get("taper_weeks")), number(fields.get("taper_volume_cut_pct"))
        problems = []
        if weeks is None or weeks * 7 < days - 7 - 1e-9:
            problems.append(
                f"a taper of {weeks if weeks is not None else 'unstated'} weeks does not start within "
                f"the coming week (race in {days} days)"
            )
        low, high = TAPER_CUT_PCT
        if cut is None or not low <= cut <= high:
            problems.append(
                f"volume cut {'unstated' if cut is None else f'{cut:g} %'} by race week (expected {low:g}-{high:g} %)"
            )
        quote = fields.get("taper_quote")
        if not isinstance(quote, str) or not quote.strip() or squash(quote) not in squash(ctx.text):
            problems.append(f"the taper's quote {str(quote)[:60]!r} is not in the reply")
        elif cut is not None and not _quote_gives_cut(quote, cut, fact(ctx, "recent_avg_weekly_km")):
            problems.append(f"the quote {quote[:60]!r} does not give a {cut:g} % cut")
        return Outcome(
            not problems,
            "; ".join(problems) or f"a {weeks:g}-week taper cutting volume {cut:g} % by race week, race in {days} days",
        )


def _quote_gives_cut(quote: str, cut: float, avg_km: float) -> bool:
    """The cut is written in the quote: as a percentage (±5 points), or as a race-week volume in km
    or miles against the recent average (±10 points)."""
    if any(abs(p - cut) <= 5 for p in _pcts(quote)):
        return True
    kms = [m for m in (quantity(part).km for part in re.split(r"[,;]| then | and ", quote)) if m]
    return any(abs((avg_km - km) / avg_km * 100 - cut) <= 10 for km in kms)


@register_check
class VolumeInAcwrBand(FieldCheck):
    """The volume recommended for next week keeps the ACWR in range: computed by code as next week's
    load over the mean of the last three weeks and next week. It must not exceed 1.3 (the sweet
    spot's top); a runner in range must not fall under 0.8 without cause, and an at-risk runner's
    recovery week may, down to the volume floor (40 % of the 4-week average). The figure needs its
    verbatim quote, whose km (or % change from last week) must give it."""

    type: ClassVar[str] = "pace_volume_in_acwr_band"
    uses = ("recommended_weekly_km", "volume_quote")
    top: float = 1.3
    bottom: float = 0.8

    def evaluate(self, ctx: CheckContext) -> Outcome:
        km = number(field(ctx, "recommended_weekly_km"))
        if km is None:
            return Outcome(False, "no volume is recommended for next week")
        weeks, last = fact(ctx, "weekly_distances_km"), fact(ctx, "last_week_km")
        ratio = km / ((sum(weeks[-3:]) + km) / 4) if km > 0 else 0.0
        problems = []
        if round(ratio, 2) > self.top:
            problems.append(f"{km:g} km next week puts the ACWR at {ratio:.2f}, above {self.top:g}")
        if fact(ctx, "injury_risk_profile"):
            if km < fact(ctx, "volume_floor_km") - 1e-9:
                problems.append(f"{km:g} km is under the recovery floor {fact(ctx, 'volume_floor_km'):g} km")
        elif fact(ctx, "race_within_3_weeks"):  # a taper is due: down to 40 % of the average is sound
            if km < 0.4 * fact(ctx, "recent_avg_weekly_km") - 1e-9:
                problems.append(
                    f"{km:g} km is under 40 % of the {fact(ctx, 'recent_avg_weekly_km'):g} km average, even for a taper"
                )
        elif round(ratio, 2) < self.bottom:
            problems.append(
                f"{km:g} km next week drops the ACWR to {ratio:.2f}, under {self.bottom:g}, without a load problem"
            )
        quote = (ctx.fields or {}).get("volume_quote")
        if not isinstance(quote, str) or not quote.strip() or squash(quote) not in squash(ctx.text):
            problems.append(f"the volume's quote {str(quote)[:60]!r} is not in the reply")
        elif not _quote_gives_km(quote, km, last):
            problems.append(f"the quote {quote[:60]!r} does not give {km:g} km")
        return Outcome(not problems, "; ".join(problems) or f"{km:g} km next week: ACWR {ratio:.2f}")


def _quote_gives_km(quote: str, km: float, last_km: float) -> bool:
    """The km figure is written in the quote (a range's either end or middle, miles converted), or
    follows from a % change of last week's volume (within 10 %)."""
    close = lambda v: abs(v - km) <= max(1.0, 0.10 * km)  # noqa: E731
    for m in re.finditer(
        r"(\d+(?:[.,]\d+)?)(?:\s*(?:-|–|to)\s*(\d+(?:[.,]\d+)?))?\s*(km|kilomet\w*|mi\b|miles?)", quote, re.I
    ):
        factor = 1.609344 if m.group(3).lower().startswith("mi") else 1.0
        lo = float(m.group(1).replace(",", ".")) * factor
        hi = float(m.group(2).replace(",", ".")) * factor if m.group(2) else lo
        if any(close(v) for v in (lo, hi, (lo + hi) / 2)):
            return True
    for p in _pcts(quote):
        sign = -1 if re.search(r"(cut|reduce|drop|down|lower|less|-\s*\d|decrease|back off)", quote, re.I) else 1
        if close(last_km * (1 + sign * p / 100)) or close(last_km * (1 - p / 100)):
            return True
    return False


#: A later week may not jump more than this over the planned week (Nielsen 2014: > 30 % in two weeks
#: raised injury rates).
LATER_WEEK_JUMP = 1.30

_PAST_RE = re.compile(
    r"\b(last|previous|past|ago|average|avg|was|were|ran|history|chronic|acute|peak\w*|"
    r"used to|recent\w*|so far|month|year|acwr|swung|spiked?|jump\w*|"
    # a horizon of several weeks is a gradual build, not this week's plan
    r"weeks|season|block|cycle|gradual\w*|eventually|long[- ]term|over time|once|when)\b",
    re.I,
)
_WEEK_RE = re.compile(r"\bweek", re.I)


@register_check
class ProseMatchesPlan(FieldCheck):
    """The prose around the day list does not change the week: no run or double it adds, no listed run
    it cancels, no total for the planned week that disagrees with the days (±10 %), and no later week
    that jumps over LATER_WEEK_JUMP x the planned week ("next week 80 km" after a 50 km list fails
    whichever week it means). Two witnesses: the extraction's `other_runs` (each quote must be in the
    reply), and a deterministic reading of the lines outside the day list for added runs and for
    week volumes far above the list's."""

    type: ClassVar[str] = "pace_prose_matches_plan"
    uses = ("days", "other_runs")
    tolerance: float = 0.10

    def evaluate(self, ctx: CheckContext) -> Outcome:
        days = field(ctx, "days")
        if not days:
            return Outcome.not_applicable("no day list to compare the prose with")
        zones = ctx.facts.get("zones")
        total = summarize(days, zones).total_km
        parsed = parse_days(ctx.text, zones)
        read_total = summarize([p.as_extracted() for p in parsed], zones).total_km if parsed else total
        problems = []
        for run in field(ctx, "other_runs") or []:
            if not isinstance(run, dict):
                continue
            quote, kind, km = run.get("quote"), run.get("kind"), number(run.get("km"))
            if not isinstance(quote, str) or squash(quote) not in squash(ctx.text):
                problems.append(f"{kind}: quote {str(quote)[:60]!r} not found in the reply")
                continue
            later = run.get("week") == "later"
            if kind in ("extra_run", "double") and not later:
                problems.append(f"the prose adds a run the list does not hold: {quote!r}")
            elif kind == "cancelled_run" and not later:
                problems.append(f"the prose cancels a listed run: {quote!r}")
            elif kind == "weekly_volume" and km is not None and total:
                if not later and abs(km - total) / total > self.tolerance + 1e-9:
                    problems.append(
                        f"the prose says {km:g} km for the week, the days add up to {total:g} km: {quote!r}"
                    )
                if later and km > LATER_WEEK_JUMP * total + 1e-9:
                    problems.append(
                        f"a later week of {km:g} km jumps {km / total - 1:.0%} over this week's {total:g} km"
                    )
        outside = prose_outside_the_list(ctx.text)
        for sentence in added_runs(outside):
            problems.append(f"the prose adds a run: {sentence[:80]!r}")
        history = [*fact(ctx, "weekly_distances_km"), fact(ctx, "recent_avg_weekly_km"), fact(ctx, "last_week_km")]
        for sentence, km in week_volumes(outside):
            if any(abs(km - h) <= 0.5 for h in history):
                continue  # the runner's own history, quoted back: not a plan
            if km > LATER_WEEK_JUMP * max(total, read_total) + 1e-9:
                problems.append(f"the prose names a {km:g} km week against the list's {total:g} km: {sentence[:80]!r}")
        problems = list(dict.fromkeys(problems))
        return Outcome(not problems, "; ".join(problems) or f"the prose agrees with the {total:g} km list")


def prose_outside_the_list(text: str) -> str:
    """The reply without the lines of its day list (a line or table row that begins with a day)."""
    day_line = re.compile(r"^[\s>*_#|\-•·\d.)]*(?:mon|tue|wed|thu|fri|sat|sun|day\s+[1-7])", re.I)
    return "\n".join(line for line in text.splitlines() if not day_line.match(line))


def week_volumes(text: str) -> list[tuple[str, float]]:
    """(sentence, km) for each distance named in a sentence about a week that is not about the past."""
    out = []
    for sentence in re.split(r"(?<=[.!?;])\s+|\n+", text):
        if not _WEEK_RE.search(sentence) or _PAST_RE.search(sentence):
            continue
        for m in re.finditer(r"(\d+(?:[.,]\d+)?)\s*(km|kilomet\w*|mi\b|miles?)", sentence, re.I):
            km = float(m.group(1).replace(",", ".")) * (1.609344 if m.group(2).lower().startswith("mi") else 1.0)
            out.append((sentence.strip(), round(km, 1)))
    return out
