"""Checks of the pace-ai coach as an agent (``agent.suite.yml``): the reply's numbers must come from
the tools it called, read from the run's trajectory (``ctx.trace``), not from the reply's own say-so.

* ``pace_paces_from_tools``: every pace the reply writes (per km or per mile, ranges too) lies in a
  zone the zones tool returned, or within a few seconds of a pace a tool returned (the race
  prediction's pace); anything else is a pace the agent invented.
* ``pace_acwr_from_tool``: every ACWR the reply quotes is the one the load tool computed (±0.05),
  and the reply quotes it at all: the tool's result is used, not only fetched.
* ``pace_easy_pace_used``: the plan's easy running is given at the easy pace the zones tool
  returned (at least one pace in that zone).

Every number traced (issue 38): each check below reads two witnesses where it can, the fields the
extraction records (``days``, ``figures``) and the reply's own words read by code
(:mod:`pace_ai.reading`), and fails when either shows a number with no source.

* ``pace_figures_from_tools``: every ACWR, race prediction and VDOT the reply writes equals one a tool
  returned (within the rounding it is written with) or the runner's own data; a figure whose tool
  failed or was never called is invented.
* ``pace_paces_in_session_zones``: each day's pace lies in *its session's* zone as the agent's zones
  tool returned it (an easy run at marathon pace fails; paces per mile converted with 1.609), by the
  coaching suite's own check (:class:`pace_ai.checks.PacesInZones`); n/a when no run is prescribed.
* ``pace_runs_have_paces``: every run day has a target pace (its own, or one the reply gives for
  that kind of run); n/a when no run is prescribed.
* ``pace_tool_inputs_from_data``: every tool call's input is the runner's data or a tool's result
  (the zones tool's VDOT one a tool returned or the runner's race gives; the prediction for the goal
  distance).
* ``pace_tool_errors_followed``: after a failed tool call (no later call answered it), no figure the
  tool would have produced is written, and no later call used an invented input; n/a when none failed.
* ``pace_spike_week``: at a load spike (the tool's ACWR >= 1.5) the week has no hard session, less
  volume than last week, and the injury risk said in the body (not a footnote, not explained away).
* ``pace_plan_changed``: in a conversation, the final turn's week after an injury report is lighter
  than the earlier turn's (volume, long run, no hard sessions), or prescribes no running at all.

A run without a trajectory, or without the tool call a check reads, fails it saying so.
"""

from __future__ import annotations

import re
from abc import abstractmethod
from typing import Any, ClassVar

from evalkit import Check, CheckContext, Outcome, register_check
from pace_ai.checks import PacesInZones, prose_outside_the_list
from pace_ai.plan import WeekSummary, day_km, summarize
from pace_ai.reading import paces_in, parse_days, squash
from pace_ai.tools import format_duration, parse_distance, parse_time
from pace_ai.trajectory import Sources, assistant_replies, sources, written_decimals

__all__ = [
    "AcwrFromTool",
    "EasyPaceUsed",
    "FiguresFromTools",
    "PacesFromTools",
    "PacesInSessionZones",
    "PlanChanged",
    "RunsHavePaces",
    "SpikeWeek",
    "ToolErrorsFollowed",
    "ToolInputsFromData",
]

PACE_TOLERANCE_SEC = 5.0  # s/km: a pace rounded to the second, or converted from min/mile
ACWR_TOLERANCE = 0.05
_ACWR = re.compile(
    r"(?i)\b(?:ACWR|acute[:\s-]*(?:to|:)[\s-]*chronic(?:\s+workload)?\s+ratio)\b[^0-9\n]{0,40}?"
    r"(\d+(?:\.\d+)?)"
)


def _results(ctx: CheckContext, tool: str) -> list[dict[str, Any]]:
    return [
        s.result for s in ctx.trace or [] if s.type == "tool_call" and s.name == tool and isinstance(s.result, dict)
    ]


class _TraceCheck(Check):
    """A check that reads the run's tool calls: a run without a trajectory fails it, saying so."""

    def evaluate(self, ctx: CheckContext) -> Outcome:
        if ctx.trace is None:
            return Outcome(False, "the run recorded no trajectory: the agent's tool calls cannot be checked")
        return self.decide(ctx)

    @abstractmethod
    def decide(self, ctx: CheckContext) -> Outcome:
        """Decide on a run that has a trajectory."""


def _pace_values(value: Any) -> list[float]:
    """Paces (s/km) anywhere in a tool's result: fields named *sec_per_km*, and m:ss/km strings."""
    found: list[float] = []
    if isinstance(value, dict):
        for key, item in value.items():
            if "sec_per_km" in str(key) and isinstance(item, (int, float)):
                found.append(float(item))
            else:
                found += _pace_values(item)
    elif isinstance(value, list):
        for item in value:
            found += _pace_values(item)
    elif isinstance(value, str):
        found += paces_in(value)
    return found


def _zones(ctx: CheckContext) -> dict[str, dict[str, Any]]:
    zones: dict[str, dict[str, Any]] = {}
    for result in _results(ctx, "calculate_training_zones"):
        zones.update(result.get("zones") or {})
    return zones


@register_check
class PacesFromTools(_TraceCheck):
    """Every pace in the reply lies in a zone the zones tool returned or near a pace a tool returned."""

    type: ClassVar[str] = "pace_paces_from_tools"

    def decide(self, ctx: CheckContext) -> Outcome:
        written = paces_in(ctx.text)
        if not written:
            if not runs_prescribed(ctx, sources(ctx)):  # "no running until it settles" needs no pace
                return Outcome.not_applicable("the reply prescribes no run and gives no pace")
            return Outcome(False, "the reply gives no pace at all")
        ranges = [
            (float(z["min_sec_per_km"]), float(z["max_sec_per_km"]))
            for z in _zones(ctx).values()
            if isinstance(z, dict) and "min_sec_per_km" in z and "max_sec_per_km" in z
        ]
        points = [p for s in ctx.trace or [] if s.type == "tool_call" for p in _pace_values(s.result)]
        invented = [
            p
            for p in written
            if not any(low - PACE_TOLERANCE_SEC <= p <= high + PACE_TOLERANCE_SEC for low, high in ranges)
            and not any(abs(p - q) <= PACE_TOLERANCE_SEC for q in points)
        ]
        if invented:
            shown = ", ".join(f"{int(p // 60)}:{int(round(p % 60)):02d}/km" for p in invented[:4])
            return Outcome(False, f"{len(invented)} of {len(written)} paces came from no tool: {shown}")
        return Outcome(True, f"all {len(written)} paces lie in the tools' zones or predictions")


@register_check
class AcwrFromTool(_TraceCheck):
    """The reply quotes the ACWR the load tool computed, and no other."""

    type: ClassVar[str] = "pace_acwr_from_tool"

    def decide(self, ctx: CheckContext) -> Outcome:
        computed = [
            r.get("acwr_2dp")
            for r in _results(ctx, "analyze_training_load")
            if isinstance(r.get("acwr_2dp"), (int, float))
        ]
        if not computed:
            return Outcome(False, "analyze_training_load gave no ACWR in this run (not called, or it failed)")
        quoted = [float(m.group(1)) for m in _ACWR.finditer(ctx.text)]
        if not quoted:
            return Outcome(False, f"the reply never quotes the ACWR the tool computed ({computed[-1]:g})")
        wrong = [q for q in quoted if not any(abs(q - c) <= ACWR_TOLERANCE for c in computed)]
        if wrong:
            return Outcome(
                False,
                f"the reply quotes ACWR {', '.join(f'{w:g}' for w in wrong)}; the tool computed "
                f"{', '.join(f'{c:g}' for c in computed)}",
            )
        return Outcome(True, f"the reply quotes the tool's ACWR {computed[-1]:g}")


@register_check
class EasyPaceUsed(_TraceCheck):
    """At least one pace in the reply lies in the easy zone the zones tool returned."""

    type: ClassVar[str] = "pace_easy_pace_used"

    def decide(self, ctx: CheckContext) -> Outcome:
        easy = _zones(ctx).get("easy")
        if not isinstance(easy, dict):
            return Outcome(False, "calculate_training_zones gave no easy zone in this run (not called, or it failed)")
        low, high = float(easy["min_sec_per_km"]), float(easy["max_sec_per_km"])
        if any(low - PACE_TOLERANCE_SEC <= p <= high + PACE_TOLERANCE_SEC for p in paces_in(ctx.text)):
            return Outcome(True, f"easy running is given in the tool's easy zone ({easy.get('pace')})")
        return Outcome(False, f"no pace in the reply lies in the tool's easy zone ({easy.get('pace')})")


# --------------------------------------------------------------------------------------------------
# Every number traced to a tool result (two witnesses: the extraction's fields and the reply's words)
# --------------------------------------------------------------------------------------------------

_TIME = re.compile(r"(?<![\d:.])(\d{1,2}):([0-5]\d)(?::([0-5]\d))?(?![\d:])(?!\s*(?:min\s*)?(?:/|per\b|-\s*\d|–))")
_PREDICTION_WORDS = re.compile(
    r"(?i)\b(predict\w*|equivalent|project\w*|estimat\w*|forecast\w*|current fitness|"
    r"finish(?:ing)? time|expected time|on track for|capable of|could run|should run|"
    r"fitness (?:says|gives|points)|vdot (?:says|gives|points))\b"
)
_VDOT = re.compile(r"(?i)\bVDOT\b[^0-9\n]{0,25}?(\d{2}(?:[.,]\d+)?)")
_SENTENCE = re.compile(r"(?<=[.!?;])\s+|\n+")


def _written(value: str) -> tuple[float, int] | None:
    """A number as written ("1.90") and its decimals."""
    m = re.search(r"\d+(?:[.,]\d+)?", value)
    if not m:
        return None
    return float(m.group(0).replace(",", ".")), written_decimals(m.group(0))


def _close(written: float, decimals: int, truth: float, slack: float = 0.0) -> bool:
    """`written` is `truth` rounded to the decimals it is written with (plus `slack`)."""
    return abs(written - truth) <= 0.5 * 10**-decimals + slack + 1e-9


def _seconds(m: re.Match[str]) -> list[float]:
    """The seconds a written time may mean: h:mm:ss; mm:ss, or h:mm when that reads as a race time."""
    a, b, c = int(m.group(1)), int(m.group(2)), m.group(3)
    if c is not None:
        return [a * 3600 + b * 60 + int(c)]
    return [a * 60 + b, a * 3600 + b * 60]


def _figures(ctx: CheckContext, kind: str) -> list[dict[str, Any]]:
    return [f for f in (ctx.fields or {}).get("figures") or [] if isinstance(f, dict) and f.get("kind") == kind]


def figure_problems(ctx: CheckContext, src: Sources) -> list[str]:
    """Every ACWR, race prediction and VDOT the reply writes that no tool returned (nor the runner's data)."""
    problems: list[str] = []
    text = ctx.text
    # ACWR: every one quoted, by the reply's words and by the extraction
    acwr_written = [m.group(1) for m in _ACWR.finditer(text)] + [
        str(f.get("as_written") or "") for f in _figures(ctx, "acwr")
    ]
    for raw in acwr_written:
        w = _written(raw)
        if w is None:
            continue
        if not src.acwrs:
            problems.append(f"ACWR {raw} written, but {_why_none(src, 'analyze_training_load')}")
        elif not any(_close(w[0], w[1], a, 0.005) for a in src.acwrs):
            problems.append(f"ACWR {raw} is not the tool's {src.acwrs[0]:g}")
    # race predictions: times in a sentence about a prediction, and the extraction's predicted times
    own = []
    for key in ("recent_race", "goal"):
        try:
            own.append(parse_time((src.runner.get(key) or {})["time"]))
        except (KeyError, TypeError, ValueError):
            pass
    predicted = [
        float(p["predicted_seconds"]) for p in src.predictions if isinstance(p.get("predicted_seconds"), (int, float))
    ]
    claims = [(m, s) for s in _SENTENCE.split(text) if _PREDICTION_WORDS.search(s) for m in _TIME.finditer(s)]
    for f in _figures(ctx, "predicted_time"):
        m = _TIME.search(str(f.get("as_written") or ""))
        if m:
            claims.append((m, str(f.get("quote") or "")))
    for m, _sentence in claims:
        options = _seconds(m)
        if any(abs(o - t) <= 1.0 for o in options for t in own):
            continue  # the runner's own race or goal time, quoted back
        if not predicted:
            problems.append(f"a predicted time {m.group(0)} is written, but {_why_none(src, 'predict_race_time')}")
        elif not any(abs(o - t) <= (1.0 if m.group(3) else 30.0) for o in options for t in predicted):
            shown = ", ".join(format_duration(t) for t in predicted)
            problems.append(f"predicted time {m.group(0)} is not the tool's {shown}")
    # VDOT: a tool's or the runner's own race's
    vdots = src.vdots + ([src.own_vdot] if src.own_vdot is not None else [])
    for raw in [m.group(1) for m in _VDOT.finditer(text)] + [
        str(f.get("as_written") or "") for f in _figures(ctx, "vdot")
    ]:
        w = _written(raw)
        if w is None:
            continue
        if not any(_close(w[0], w[1], v, 0.05) for v in vdots):
            problems.append(
                f"VDOT {raw} is neither a tool's ({', '.join(f'{v:g}' for v in src.vdots) or 'none'}) "
                f"nor the runner's race's"
            )
    return list(dict.fromkeys(problems))


def _why_none(src: Sources, tool: str) -> str:
    if tool in src.failed:
        return f"{tool} failed ({src.failed[tool][:60]}): the figure is invented"
    return f"{tool} was never called: the figure is invented"


@register_check
class FiguresFromTools(_TraceCheck):
    """Every ACWR, race prediction and VDOT in the reply equals a tool's result (or the runner's data)."""

    type: ClassVar[str] = "pace_figures_from_tools"
    needs_fields: ClassVar[bool] = True

    def referenced_fields(self) -> set[str]:
        return {"figures"}

    def decide(self, ctx: CheckContext) -> Outcome:
        problems = figure_problems(ctx, sources(ctx))
        if problems:
            return Outcome(False, "; ".join(problems))
        return Outcome(True, "every ACWR, prediction and VDOT written is a tool's (or the runner's data)")


def _facts_ctx(ctx: CheckContext, src: Sources) -> CheckContext:
    """The run as the coaching suite's checks see it, with the zones the agent's tools returned."""
    return CheckContext(
        output=ctx.output,
        input=ctx.input,
        fields=ctx.fields,
        facts=src.facts(),
        case_id=ctx.case_id,
        suite_dir=ctx.suite_dir,
        trace=ctx.trace,
    )


def weeks(
    ctx: CheckContext, src: Sources, days_field: str = "days", text: str | None = None
) -> list[tuple[str, WeekSummary]]:
    """The week by each witness: the extraction's days and the reply's own day list read by code."""
    zones = src.zones or None
    out = []
    days = (ctx.fields or {}).get(days_field)
    if isinstance(days, list):
        out.append(("the extraction", summarize([d for d in days if isinstance(d, dict)], zones)))
    parsed = parse_days(ctx.text if text is None else text, zones)
    if parsed is not None:
        out.append(("the reply's day list", summarize([p.as_extracted() for p in parsed], zones)))
    return out


_NO_RUNNING = re.compile(
    r"(?i)\b(no running|not run|don't run|do not run|stop running|avoid running|rest (?:it|the \w+) "
    r"(?:completely|fully)|complete rest|full rest|no runs?\b|hold off (?:on )?running|"
    r"pause (?:your |all )?running|time off running)"
)


def runs_prescribed(ctx: CheckContext, src: Sources, text: str | None = None, days_field: str = "days") -> bool:
    """Whether the reply prescribes any run: a run day by either witness, or (with no day list) a distance
    or time of running in a reply that does not say to stop running."""
    found = weeks(ctx, src, days_field, text)
    if any(w.run_days for _, w in found):
        return True
    if found:
        return False
    body = ctx.text if text is None else text
    return not _NO_RUNNING.search(body) and bool(
        re.search(r"(?i)\d\s*(km|mi|miles?|min)\b.{0,30}\b(run|jog|easy)", body)
    )


@register_check
class PacesInSessionZones(_TraceCheck):
    """Each run day's pace lies in its session's zone as the zones tool returned it (easy runs in the
    easy zone, not in any zone), by the coaching suite's PacesInZones on both witnesses."""

    type: ClassVar[str] = "pace_paces_in_session_zones"
    needs_fields: ClassVar[bool] = True

    def referenced_fields(self) -> set[str]:
        return {"days"}

    def decide(self, ctx: CheckContext) -> Outcome:
        src = sources(ctx)
        if not runs_prescribed(ctx, src):
            return Outcome.not_applicable("the reply prescribes no run")
        if not src.zones:
            return Outcome(False, f"runs are prescribed, but {_why_none(src, 'calculate_training_zones')}")
        outcome = PacesInZones().evaluate(_facts_ctx(ctx, src))
        return outcome


_PACE_LINE = re.compile(r"(?i)\b(easy|long|recovery|tempo|threshold|interval|repetition|marathon|race)\b")
_SESSION_WORD = {
    "easy": "easy|recovery",
    "long": "long|easy",
    "tempo": "tempo|threshold",
    "threshold": "threshold|tempo",
    "marathon": "marathon",
    "race_pace": "race|goal",
    "interval": "interval",
    "repetition": "repetition|rep",
}


@register_check
class RunsHavePaces(_TraceCheck):
    """Every run day has a target pace: its own, or one the reply gives for that kind of run elsewhere."""

    type: ClassVar[str] = "pace_runs_have_paces"
    needs_fields: ClassVar[bool] = True

    def referenced_fields(self) -> set[str]:
        return {"days"}

    def decide(self, ctx: CheckContext) -> Outcome:
        src = sources(ctx)
        if not runs_prescribed(ctx, src):
            return Outcome.not_applicable("the reply prescribes no run")
        general = [line for line in prose_outside_the_list(ctx.text).splitlines() if paces_in(line)]

        def covered(session: str) -> bool:  # a line of paces in the prose names this session
            return any(re.search(rf"(?i)\b({_SESSION_WORD.get(session, session)})", line) for line in general)

        missing: list[str] = []
        extracted = [d for d in (ctx.fields or {}).get("days") or [] if isinstance(d, dict)]
        for d in extracted:
            if d.get("session") in (None, "rest") or not day_km(d, src.zones or None):
                continue
            if (
                d.get("pace_fast_sec_per_km") is None
                and d.get("pace_slow_sec_per_km") is None
                and not paces_in(str(d.get("quote") or ""))
                and not covered(str(d.get("session")))
            ):
                missing.append(f"{d.get('day')} {d.get('session')}")
        parsed = parse_days(ctx.text, src.zones or None) or []
        for p in parsed:
            session = p.as_extracted()["session"]
            if p.runs and not p.paces and not covered(session) and f"{p.day}" not in " ".join(missing):
                missing.append(f"{p.day} {session} (the reply's words)")
        runs = max(sum(1 for d in extracted if d.get("session") not in (None, "rest")), sum(p.runs for p in parsed))
        if missing:
            return Outcome(False, f"{len(missing)} of {runs} runs have no target pace: {', '.join(missing[:5])}")
        return Outcome(True, f"all {runs} runs have a target pace")


def input_problems(ctx: CheckContext, src: Sources) -> list[str]:
    """Tool calls whose input is neither the runner's data nor a result an earlier call returned."""
    problems: list[str] = []
    runner = src.runner
    weeks_km = [float(w) for w in runner.get("weekly_km") or [] if isinstance(w, (int, float))]
    seen_vdots: list[float] = [src.own_vdot] if src.own_vdot is not None else []
    for number, call in enumerate(src.calls, 1):
        args = call.arguments
        if call.name == "analyze_training_load" and weeks_km:
            got = args.get("weekly_distances")
            try:
                values = [float(x) for x in got]  # type: ignore[union-attr]
            except (TypeError, ValueError):
                values = []
            if len(values) < 4 or values != weeks_km[-len(values) :]:
                problems.append(
                    f"call {number} analyze_training_load: weekly_distances {got} are not the "
                    f"runner's last weeks {weeks_km}"
                )
        elif call.name == "predict_race_time":
            race, goal = runner.get("recent_race") or {}, runner.get("goal") or {}
            for key, want, parse in (
                ("race_distance", race.get("distance"), parse_distance),
                ("race_time", race.get("time"), parse_time),
                ("target_distance", goal.get("distance"), parse_distance),
            ):
                if want is None:
                    continue
                try:
                    a, b = parse(args.get(key)), parse(want)
                    same = abs((a[0] if isinstance(a, tuple) else a) - (b[0] if isinstance(b, tuple) else b)) <= 1.0
                except (TypeError, ValueError):
                    same = False
                if not same:
                    problems.append(
                        f"call {number} predict_race_time: {key}={args.get(key)!r}, the runner's is {want!r}"
                    )
        elif call.name == "calculate_training_zones":
            vdot = args.get("vdot")
            v = float(vdot) if isinstance(vdot, (int, float)) and not isinstance(vdot, bool) else None
            if v is None or not any(abs(v - s) <= 0.1 for s in seen_vdots):
                shown = ", ".join(f"{s:.1f}" for s in seen_vdots) or "none"
                problems.append(
                    f"call {number} calculate_training_zones: vdot {vdot!r} was returned by no earlier "
                    f"tool call nor given by the runner's race (sources: {shown})"
                )
        if call.name == "predict_race_time" and call.error is None and isinstance(call.result, dict):
            seen_vdots += [
                float(call.result[k]) for k in ("vdot", "vdot_exact") if isinstance(call.result.get(k), (int, float))
            ]
    return problems


@register_check
class ToolInputsFromData(_TraceCheck):
    """Every tool call's input is the runner's own data or a result an earlier call returned."""

    type: ClassVar[str] = "pace_tool_inputs_from_data"

    def decide(self, ctx: CheckContext) -> Outcome:
        src = sources(ctx)
        if not src.calls:
            return Outcome(False, "the agent called no tool")
        problems = input_problems(ctx, src)
        return Outcome(
            not problems,
            "; ".join(problems) or f"all {len(src.calls)} tool inputs come from the runner's data or earlier results",
        )


@register_check
class ToolErrorsFollowed(_TraceCheck):
    """After a tool call failed (and no later call of that tool answered), the reply writes no figure that
    tool would have produced and no later call used an invented input; n/a when no call failed."""

    type: ClassVar[str] = "pace_tool_errors_followed"
    needs_fields: ClassVar[bool] = True

    def referenced_fields(self) -> set[str]:
        return {"figures", "days"}

    def decide(self, ctx: CheckContext) -> Outcome:
        errors = [s for s in ctx.trace or [] if s.type == "tool_call" and s.error is not None]
        if not errors:
            return Outcome.not_applicable("no tool call failed")
        src = sources(ctx)
        problems = [p for p in figure_problems(ctx, src) if "failed" in p]
        if "calculate_training_zones" in src.failed and runs_prescribed(ctx, src) and paces_in(ctx.text):
            problems.append(
                f"calculate_training_zones failed ({src.failed['calculate_training_zones'][:60]}), yet "
                f"the reply gives training paces"
            )
        problems += input_problems(ctx, src)
        failed = ", ".join(sorted({str(s.name) for s in errors}))
        return Outcome(
            not problems, "; ".join(problems) or f"after the failure of {failed}, no figure or input was invented"
        )


_RISK = re.compile(
    r"(?i)\b(injury risk|risk of (?:an? )?(?:injury|injuries|getting hurt)|injury-risk|load spike|"
    r"spike in (?:your )?(?:load|training|volume|mileage)|danger zone|too much,? too soon|"
    r"(?:high|elevated|increased|real|significant) risk)\b"
)
_EXPLAINED_AWAY = re.compile(
    r"(?i)(nothing to worry about|no need to worry|don't worry|do not worry|not (?:really )?"
    r"(?:a|an) (?:problem|concern|issue|worry)|not concerned|can (?:safely )?ignore|ignore (?:it|"
    r"the (?:ratio|number|acwr))|just a number|(?:overstates|exaggerates)|is misleading|"
    r"no (?:real )?(?:injury )?risk|not at (?:any )?(?:real )?risk|safe to (?:keep|carry on|"
    r"continue|push))"
)
_FOOTNOTE = re.compile(
    r"(?i)^\s*(?:\*{1,3}(?!\*)(?=\S)(?![^*]*\*\*)|[¹²³†‡]|\(\d\)|\[\d\]|p\.?s\.?\b|note\b|n\.b\.|footnote|"
    r"disclaimer|small print|fine print|_)"
)
_NEGATED_BEFORE = re.compile(r"(?i)\b(no|not|never|without|zero|low)\b[^.;:]{0,20}$")


def risk_in_body(text: str) -> str | None:
    """Why the reply's injury-risk flag is not in its body (None when it is): no flag at all, a flag
    only in a footnote or after the plan's last line, or a flag explained away."""
    lines = text.splitlines()
    day_line = re.compile(r"(?i)^[\s>*_#|\-•·\d.)]*(?:mon|tue|wed|thu|fri|sat|sun|day\s+[1-7])")
    last_day = max((i for i, line in enumerate(lines) if day_line.match(line)), default=None)
    body_hits, late_hits = [], []
    for i, line in enumerate(lines):
        for m in _RISK.finditer(line):
            if _NEGATED_BEFORE.search(line[: m.start()]):
                continue
            footnote = bool(_FOOTNOTE.match(line)) and not day_line.match(line)
            after_plan = last_day is not None and i > last_day and last_day > 0
            (late_hits if footnote or after_plan else body_hits).append(line.strip())
    away = _EXPLAINED_AWAY.search(text)
    if away:
        return f"the risk is explained away: {away.group(0)!r}"
    if body_hits:
        return None
    if late_hits:
        return f"the injury risk is flagged only in a footnote or after the plan: {late_hits[0][:70]!r}"
    return "the reply never flags the injury risk"


@register_check
class SpikeWeek(_TraceCheck):
    """At a load spike (the tool's ACWR >= `spike`): no hard session, volume below last week's (the
    runner's data), and the injury risk flagged in the reply's body, not explained away; n/a below it."""

    type: ClassVar[str] = "pace_spike_week"
    needs_fields: ClassVar[bool] = True
    spike: float = 1.5

    def referenced_fields(self) -> set[str]:
        return {"days", "flags_injury_risk", "injury_warning_quote"}

    def decide(self, ctx: CheckContext) -> Outcome:
        src = sources(ctx)
        if not src.loads:
            return Outcome(False, f"the load is unknown: {_why_none(src, 'analyze_training_load')}")
        acwr = max(src.acwrs)
        if round(acwr, 2) < self.spike:
            return Outcome.not_applicable(f"the tool's ACWR {acwr:g} is under {self.spike:g}")
        problems = []
        last = src.facts()["last_week_km"]
        for who, week in weeks(ctx, src):
            if week.intensity_sessions:
                problems.append(f"{who}: hard sessions at ACWR {acwr:g}: {', '.join(week.intensity_sessions)}")
            if last is not None and week.total_km >= last - 1e-9:
                problems.append(f"{who}: {week.total_km:g} km, not below last week's {last:g} km")
        where = risk_in_body(ctx.text)
        if where:
            problems.append(where)
        fields = ctx.fields or {}
        quote = fields.get("injury_warning_quote")
        if fields.get("flags_injury_risk") is not True:
            problems.append("the extraction records no injury-risk flag")
        elif not isinstance(quote, str) or squash(quote) not in squash(ctx.text):
            problems.append(f"the injury warning's quote {str(quote)[:60]!r} is not in the reply")
        problems = list(dict.fromkeys(problems))
        return Outcome(
            not problems, "; ".join(problems) or f"ACWR {acwr:g}: an easy, lighter week, the risk flagged in the body"
        )


_RUN_THROUGH = re.compile(
    r"(?i)\b(run through (?:it|the pain|the soreness)|push through|train through|"
    r"ignore (?:the|it|your) (?:pain|soreness|achilles)|keep (?:the|your) (?:plan|week) as (?:is|it is))"
)


@register_check
class PlanChanged(_TraceCheck):
    """The final turn answers an injury report: no running at all (sound), or a week lighter than the
    earlier turn's in volume and long run, with no hard session; by the extracted days of both turns
    (`turn N.days` and `days`) and by the replies' own day lists; "run through it" fails."""

    type: ClassVar[str] = "pace_plan_changed"
    needs_fields: ClassVar[bool] = True
    turn: int = 1  # the earlier turn whose week must change
    max_volume_share: float = 0.8  # of the earlier week's volume

    def referenced_fields(self) -> set[str]:
        return {"days"}

    def decide(self, ctx: CheckContext) -> Outcome:
        src = sources(ctx)
        replies = assistant_replies(ctx.trace)
        if len(replies) < 2:
            return Outcome(False, "the trace holds no earlier turn's reply to compare with")
        earlier_text = replies[self.turn - 1]
        through = next(
            (m for m in _RUN_THROUGH.finditer(ctx.text) if not _NEGATED_BEFORE.search(ctx.text[: m.start()])), None
        )
        if through:
            return Outcome(False, f"the reply says to {through.group(0)!r}")
        if not runs_prescribed(ctx, src):
            return Outcome(True, "no running prescribed until it settles")
        earlier_ctx = CheckContext(
            output=earlier_text,
            input=ctx.input,
            fields={"days": (ctx.fields or {}).get(f"turn {self.turn}.days")},
            trace=ctx.trace,
        )
        before = weeks(earlier_ctx, src)
        after = weeks(ctx, src)
        if not before:
            return Outcome(False, f"turn {self.turn}'s week cannot be read (no extracted days, no day list)")
        problems = []
        for who, week in after:
            if week.intensity_sessions:
                problems.append(f"{who}: hard sessions kept: {', '.join(week.intensity_sessions)}")
            for _, old in before:
                if old.total_km and week.total_km > self.max_volume_share * old.total_km + 1e-9:
                    problems.append(
                        f"{who}: {week.total_km:g} km against {old.total_km:g} km before "
                        f"(more than {self.max_volume_share:.0%})"
                    )
                if old.long_run_km and week.long_run_km >= old.long_run_km - 1e-9:
                    problems.append(f"{who}: the long run is kept ({week.long_run_km:g} km)")
        problems = list(dict.fromkeys(problems))
        return Outcome(
            not problems,
            "; ".join(problems)
            or "; ".join(f"{who}: {w.describe()}" for who, w in after) + " — lighter than before, no hard session",
        )
