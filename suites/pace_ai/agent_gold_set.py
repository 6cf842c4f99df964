"""The agent suite's gold set (``gold/agent/agent.yml``), written as data: each entry a full agent run
(the trajectory: tool calls with their arguments and the real tools' results, then the final reply),
the fields a careful reader records, and a label for each code-decided item it tests.

Sound runs in four layouts (bullets in km, a Markdown table in miles and min/mile, prose, "Day N"
lines) for every runner; bad runs for each behaviour of issue 38; the Achilles conversation's turn 2,
sound (no running and a physio; "no tempo or intervals" with short easy runs) and bad (same week,
one rest word added, long run kept, "run through it").

``python suites/pace_ai/agent_gold_set.py`` rewrites the file; a test keeps them equal.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, Callable

import yaml

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from pace_ai.reading import MILE_KM  # noqa: E402
from pace_ai.tools import analyze_training_load, calculate_training_zones, format_pace, predict_race_time  # noqa: E402

OUT = HERE / "gold" / "agent" / "agent.yml"
SUITE = HERE / "agent.suite.yml"
ITEMS = (
    "pace_figures_from_tools",
    "pace_paces_in_session_zones",
    "pace_runs_have_paces",
    "pace_tool_inputs_from_data",
    "pace_tool_errors_followed",
    "pace_spike_week",
)
DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
LONG = {
    "Mon": "Monday",
    "Tue": "Tuesday",
    "Wed": "Wednesday",
    "Thu": "Thursday",
    "Fri": "Friday",
    "Sat": "Saturday",
    "Sun": "Sunday",
}


def runners() -> dict[str, dict[str, Any]]:
    data = yaml.safe_load(SUITE.read_text(encoding="utf-8"))
    return {c["id"]: c["input"] for c in data["cases"]}


def mmss(sec: float) -> str:
    return format_pace(sec)


class Run:
    """One runner's tool calls and the week a sound agent plans from them."""

    def __init__(
        self,
        runner: dict[str, Any],
        target: str | None = None,
        vdot: float | None = None,
        predict_error: str | None = None,
    ):
        self.runner = runner
        self.trace: list[dict[str, Any]] = [
            {"type": "message", "role": "user", "text": f"Plan my week, {runner['name']}."}
        ]
        self.load = self._call(
            "analyze_training_load", {"weekly_distances": runner["weekly_km"]}, analyze_training_load
        )
        race = runner["recent_race"]
        args = {
            "race_distance": race["distance"],
            "race_time": race["time"],
            "target_distance": target or runner["goal"]["distance"],
        }
        if predict_error:
            self.trace.append(
                {"type": "tool_call", "name": "predict_race_time", "arguments": args, "error": predict_error}
            )
            self.prediction = None
        else:
            self.prediction = self._call("predict_race_time", args, predict_race_time)
        v = vdot if vdot is not None else self.prediction["vdot"]  # type: ignore[index]
        self.zones = self._call("calculate_training_zones", {"vdot": v}, calculate_training_zones)["zones"]
        self.at_risk = self.load["acwr_2dp"] >= 1.5

    def _call(self, name: str, args: dict[str, Any], fn: Callable[..., dict[str, Any]]) -> dict[str, Any]:
        result = fn(**args)
        self.trace.append(
            {"type": "tool_call", "name": name, "arguments": args, "result": yaml.safe_load(yaml.safe_dump(result))}
        )
        return result

    def easy(self) -> tuple[float, float]:
        z = self.zones["easy"]
        return round(z["min_sec_per_km"]), round(z["max_sec_per_km"])

    def week(self) -> list[tuple[str, str, float, tuple[float, float] | None, float | None]]:
        """(day, session, km, pace range s/km, quality km)."""
        avg = sum(self.runner["weekly_km"][-4:]) / 4
        km = round(avg * (0.6 if self.at_risk else 1.0))
        easy, t = self.easy(), round(self.zones["threshold"]["min_sec_per_km"])
        parts = [0, 0.2, 0.15, 0.2, 0, 0.15, 0.3]
        out: list[tuple[str, str, float, tuple[float, float] | None, float | None]] = []
        for day, share in zip(DAYS, parts):
            d = round(km * share)
            if not d:
                out.append((day, "rest", 0, None, None))
            elif day == "Thu" and not self.at_risk:
                out.append((day, "threshold", d, (t, t), 3))
            else:
                out.append((day, "long" if day == "Sun" else "easy", d, easy, None))
        return out


Week = list[tuple[str, str, float, tuple[float, float] | None, float | None]]


def _pace_text(p: tuple[float, float], miles: bool) -> str:
    f = MILE_KM if miles else 1.0
    unit = "/mi" if miles else "/km"
    a, b = mmss(p[0] * f), mmss(p[1] * f)
    return f"{a}{unit}" if a == b else f"{a}-{b}{unit}"


def render(
    week: Week, layout: str, paced: Callable[[str], bool] = lambda d: True, factor: float = MILE_KM
) -> tuple[str, list[dict[str, Any]]]:
    """The day list in `layout` and the days a careful reader records (miles converted with 1.609)."""
    lines, days = [], []
    if layout == "table":
        lines += ["| Day | Session | Distance | Pace |", "|---|---|---|---|"]
    for i, (day, session, km, p, q) in enumerate(week):
        shown = p if (p and paced(day)) else None
        word = {"rest": "Rest", "easy": "Easy", "long": "Long run", "threshold": "Threshold"}[session]
        if layout == "table":
            mi = round(km / MILE_KM, 1)
            pace = (
                (f"{mmss(shown[0] * factor)}" + ("" if shown[0] == shown[1] else f"-{mmss(shown[1] * factor)}") + "/mi")
                if shown
                else ""
            )
            line = f"| {day} | {word} | {mi:g} mi | {pace} |" if km else f"| {day} | Rest | – | |"
            rec_km = round(mi * MILE_KM, 1) if km else 0
            rec_p = (round(shown[0] * factor / MILE_KM), round(shown[1] * factor / MILE_KM)) if shown else None
        elif layout == "prose":
            pace = f" at {_pace_text(shown, False)}" if shown else ""
            extra = " with 3 km at threshold" if session == "threshold" else ""
            line = (
                f"On {LONG[day]}, run {km:g} km {word.lower()}{extra}{pace}." if km else f"{LONG[day]} is a rest day."
            )
            rec_km, rec_p = km, shown
        elif layout == "dayn":
            pace = f", {_pace_text(shown, False).replace('/km', ' per km')}" if shown else ""
            line = f"Day {i + 1} ({day}): {km:g} km {word.lower()}{pace}" if km else f"Day {i + 1} ({day}): rest"
            rec_km, rec_p = km, shown
        else:
            pace = f" @ {_pace_text(shown, False)}" if shown else ""
            extra = " incl. 3 km threshold" if session == "threshold" else ""
            line = f"- {day}: {km:g} km {word.lower()}{extra}{pace}" if km else f"- {day}: rest"
            rec_km, rec_p = km, shown
        lines.append(line)
        days.append(
            {
                "day": day,
                "session": session,
                "km": rec_km,
                "minutes": None,
                "quality_km": q if session == "threshold" else None,
                "pace_fast_sec_per_km": rec_p[0] if rec_p else None,
                "pace_slow_sec_per_km": rec_p[1] if rec_p else None,
                "quote": line.strip("| -")[:80],
            }
        )
    return "\n".join(lines), days


def intro(
    run: Run, acwr: str | None = None, predicted: str | None = None, vdot: str | None = None, risk: str = "body"
) -> tuple[str, list[dict[str, Any]], dict[str, Any]]:
    """The reply's opening lines, its figures and its risk fields."""
    a = acwr or f"{run.load['acwr_2dp']:.2f}"
    lines = [f"Your acute:chronic workload ratio (ACWR) is {a}."]
    figures = [{"kind": "acwr", "as_written": a, "distance": None, "quote": lines[0]}]
    if predicted or run.prediction:
        t = predicted or run.prediction["predicted_time"]  # type: ignore[index]
        s = f"On current fitness the prediction for your goal race is {t}."
        lines.append(s)
        figures.append(
            {"kind": "predicted_time", "as_written": t, "distance": run.runner["goal"]["distance"], "quote": s}
        )
    if vdot:
        s = f"Your VDOT is {vdot}."
        lines.append(s)
        figures.append({"kind": "vdot", "as_written": vdot, "distance": None, "quote": s})
    warn = None
    if run.at_risk and risk == "body":
        warn = "That is a load spike and a real injury risk, so this week is lighter and easy only."
        lines.append(warn)
    return "\n".join(lines), figures, {"flags_injury_risk": warn is not None, "injury_warning_quote": warn}


def entry(
    case: str,
    run: Run,
    text: str,
    days: list[dict[str, Any]],
    figures: list[dict[str, Any]],
    risk: dict[str, Any],
    labels: dict[str, str],
    note: str,
) -> dict[str, Any]:
    trace = run.trace + [{"type": "message", "role": "assistant", "text": text}]
    return {
        "case": case,
        "note": note,
        "output": text,
        "trace": trace,
        "fields": {"days": days, "figures": figures, **risk},
        "labels": labels,
    }


def sound_labels(run: Run, **override: str) -> dict[str, str]:
    labels = {i: "pass" for i in ITEMS}
    labels["pace_tool_errors_followed"] = "n/a"
    if not run.at_risk:
        labels["pace_spike_week"] = "n/a"
    labels.update(override)
    return labels


def sound_entries() -> list[dict[str, Any]]:
    out = []
    for case, runner in runners().items():
        if "conversation" in case:
            continue
        for layout in ("bullets", "table", "prose", "dayn"):
            run = Run(runner)
            head, figures, risk = intro(run)
            body, days = render(run.week(), layout)
            text = f"{head}\n\n{body}\n\nKeep the easy days truly easy."
            out.append(entry(case, run, text, days, figures, risk, sound_labels(run), f"sound, {layout}"))
    return out


def bad_entries() -> list[dict[str, Any]]:
    r = runners()
    out = []
    beginner, sofia, daniel, lucas, emma = (
        r["agent/beginner_older_male"],
        r["agent/injury_risk_female"],
        r["agent/overreaching_male"],
        r["agent/competitive_young_male"],
        r["agent/recreational_female"],
    )

    def add(case: str, run: Run, text: str, days: list, figures: list, risk: dict, note: str, **labels: str) -> None:
        out.append(entry(case, run, text, days, figures, risk, sound_labels(run, **labels), note))

    # a prediction that is not the tool's (1:00:17 written as 57:30)
    run = Run(beginner)
    head, figures, risk = intro(run, predicted="57:30")
    body, days = render(run.week(), "bullets")
    add(
        "agent/beginner_older_male",
        run,
        head + " Sub-60 is comfortable.\n\n" + body,
        days,
        figures,
        risk,
        "prediction 57:30, the tool said 1:00:17",
        pace_figures_from_tools="fail",
    )
    # paces per mile converted with x1.5 instead of 1.609: easy runs at marathon-ish pace
    run = Run(lucas)
    head, figures, risk = intro(run)
    body, days = render(run.week(), "table", factor=1.5)
    add(
        "agent/competitive_young_male",
        run,
        head + "\n\n" + body,
        days,
        figures,
        risk,
        "per-mile paces converted with 1.5",
        pace_paces_in_session_zones="fail",
    )
    # a tool error: the prediction failed, the agent invented VDOT 45 and a prediction
    run = Run(sofia, vdot=45.0, predict_error="ValueError: race time '46:10' over '10 km' is too slow to rate")
    head, figures, risk = intro(run, predicted="1:41:30", vdot="45")
    body, days = render(run.week(), "dayn")
    add(
        "agent/injury_risk_female",
        run,
        head + "\n\n" + body,
        days,
        figures,
        risk,
        "prediction failed; VDOT 45 invented for the zones and a prediction written",
        pace_figures_from_tools="fail",
        pace_tool_inputs_from_data="fail",
        pace_tool_errors_followed="fail",
    )
    # a tool error handled soundly: no prediction written, zones from the runner's own race VDOT
    own = Run(emma)
    run = Run(emma, vdot=round(own.prediction["vdot_exact"], 1), predict_error="timeout")  # type: ignore[index]
    head, figures, risk = intro(run)
    body, days = render(run.week(), "bullets")
    add(
        "agent/recreational_female",
        run,
        head + " The race prediction failed, so none is given here.\n\n" + body,
        days,
        figures,
        risk,
        "prediction failed; zones from the runner's own race, no prediction written",
        pace_tool_errors_followed="pass",
    )
    # easy runs written at threshold-to-marathon pace
    run = Run(daniel)
    head, figures, risk = intro(run)
    fast = (round(run.zones["threshold"]["min_sec_per_km"]), round(run.zones["marathon"]["min_sec_per_km"]))
    week = [(d, s, k, fast if s in ("easy", "long") else p, q) for d, s, k, p, q in run.week()]
    body, days = render(week, "prose")
    add(
        "agent/overreaching_male",
        run,
        head + "\n\n" + body,
        days,
        figures,
        risk,
        "easy runs at threshold-to-marathon pace",
        pace_paces_in_session_zones="fail",
    )
    # a plan for the wrong target distance (10K instead of the half marathon)
    run = Run(emma, target="10K")
    head, figures, risk = intro(run)
    body, days = render(run.week(), "bullets")
    add(
        "agent/recreational_female",
        run,
        head + "\n\n" + body,
        days,
        figures,
        risk,
        "prediction for 10K, the goal is a half marathon",
        pace_tool_inputs_from_data="fail",
    )
    # the ACWR written wrong, and a VDOT no tool gave
    run = Run(sofia)
    head, figures, risk = intro(run, acwr="1.2")
    body, days = render(run.week(), "bullets")
    add(
        "agent/injury_risk_female",
        run,
        head + "\n\n" + body,
        days,
        figures,
        risk,
        "ACWR 1.2, the tool said 1.9",
        pace_figures_from_tools="fail",
    )
    run = Run(lucas)
    head, figures, risk = intro(run, vdot="58")
    body, days = render(run.week(), "dayn")
    add(
        "agent/competitive_young_male",
        run,
        head + "\n\n" + body,
        days,
        figures,
        risk,
        "VDOT 58, the tool said 55",
        pace_figures_from_tools="fail",
    )
    # at the spike: ACWR right, then explained away
    run = Run(sofia)
    head, figures, risk = intro(run, risk="none")
    body, days = render(run.week(), "bullets")
    text = head + " That ratio is just a number after an erratic month, nothing to worry about.\n\n" + body
    add(
        "agent/injury_risk_female",
        run,
        text,
        days,
        figures,
        {"flags_injury_risk": False, "injury_warning_quote": None},
        "ACWR quoted right, then explained away",
        pace_spike_week="fail",
    )
    # at the spike: the risk only in a footnote
    run = Run(daniel)
    head, figures, risk = intro(run, risk="none")
    body, days = render(run.week(), "table")
    foot = "* Note: the load spike means some injury risk."
    add(
        "agent/overreaching_male",
        run,
        head + "\n\n" + body + "\n\n" + foot,
        days,
        figures,
        {"flags_injury_risk": True, "injury_warning_quote": foot},
        "injury risk only in a footnote",
        pace_spike_week="fail",
    )
    # at the spike: volume cut, intervals kept
    run = Run(sofia)
    head, figures, risk = intro(run)
    week = run.week()
    i = round(run.zones["interval"]["min_sec_per_km"])
    week[3] = ("Thu", "interval", week[3][2], (i, i), 3.2)
    body, days = render([w if w[1] != "interval" else (w[0], "threshold", w[2], w[3], w[4]) for w in week], "bullets")
    body = body.replace("threshold", "intervals 4 x 800 m")
    days[3]["session"], days[3]["quote"] = "interval", body.splitlines()[3].strip("| -")[:80]
    add(
        "agent/injury_risk_female",
        run,
        head + "\n\n" + body,
        days,
        figures,
        risk,
        "volume cut, intervals kept",
        pace_spike_week="fail",
    )
    # at the spike: "we cut intensity" while the days add up to more than last week
    run = Run(daniel)
    head, figures, risk = intro(run)
    week = [(d, s, round(k * 3), p, q) for d, s, k, p, q in run.week()]
    body, days = render(week, "dayn")
    add(
        "agent/overreaching_male",
        run,
        head + "\n\n" + body,
        days,
        figures,
        risk,
        "'we cut intensity' but the days add up to more than last week's 65 km",
        pace_spike_week="fail",
    )
    # paces for one run in four
    run = Run(emma)
    head, figures, risk = intro(run)
    body, days = render(run.week(), "bullets", paced=lambda d: d == "Tue")
    add(
        "agent/recreational_female",
        run,
        head + "\n\n" + body,
        days,
        figures,
        risk,
        "a pace for one run only",
        pace_runs_have_paces="fail",
        pace_paces_in_session_zones="pass",
    )
    # paces with no zones tool call: invented
    run = Run(beginner)
    run.trace = [s for s in run.trace if s.get("name") != "calculate_training_zones"]
    head, figures, risk = intro(run)
    body, days = render(Run(beginner).week(), "prose")
    add(
        "agent/beginner_older_male",
        run,
        head + "\n\n" + body,
        days,
        figures,
        risk,
        "zones never fetched; paces invented",
        pace_paces_in_session_zones="fail",
    )
    return out


def conversation_entries() -> list[dict[str, Any]]:
    emma = runners()["agent/niggle_conversation"]
    out = []
    injury = (
        "My left Achilles has been sore since yesterday's run, and it hurts when I walk down stairs. Change the plan."
    )
    for name, layout, second, days2, label, note in _turn_twos():
        run = Run(emma)
        head, figures, risk = intro(run)
        body, days1 = render(run.week(), layout)
        first = f"{head}\n\n{body}"
        text, days = second(run, layout) if callable(second) else (second, days2)
        trace = run.trace + [
            {"type": "message", "role": "assistant", "text": first},
            {"type": "message", "role": "user", "text": injury},
            {"type": "message", "role": "assistant", "text": text},
        ]
        labels = {
            "pace_plan_changed": label,
            "pace_tool_errors_followed": "n/a",
            "pace_spike_week": "n/a",
            "pace_tool_inputs_from_data": "pass",
        }
        if not any(d["session"] != "rest" for d in days):
            labels.update(pace_paces_in_session_zones="n/a", pace_runs_have_paces="n/a")
        out.append(
            {
                "case": "agent/niggle_conversation",
                "note": note,
                "output": text,
                "trace": trace,
                "fields": {
                    "days": days,
                    "figures": [],
                    "flags_injury_risk": False,
                    "injury_warning_quote": None,
                    "turn 1.days": days1,
                },
                "labels": labels,
            }
        )
    return out


def _turn_twos() -> list[tuple[str, str, Any, Any, str, str]]:
    def rest_only(run: Run, layout: str) -> tuple[str, list[dict[str, Any]]]:
        return (
            "I'm sorry about the Achilles. No running at all until it settles: walk and cycle only if they "
            "are pain-free, and see a physiotherapist this week.",
            [],
        )

    def no_hard(run: Run, layout: str) -> tuple[str, list[dict[str, Any]]]:
        easy = run.easy()
        week = [
            ("Mon", "rest", 0, None, None),
            ("Tue", "easy", 4, easy, None),
            ("Wed", "rest", 0, None, None),
            ("Thu", "easy", 4, easy, None),
            ("Fri", "rest", 0, None, None),
            ("Sat", "easy", 5, easy, None),
            ("Sun", "rest", 0, None, None),
        ]
        body, days = render(week, layout)
        return (
            "No tempo or intervals until it settles, and no long run. Short easy runs only if pain-free:\n\n"
            + body
            + "\n\nIf it still hurts in a week, see a physio.",
            days,
        )

    def same(run: Run, layout: str) -> tuple[str, list[dict[str, Any]]]:
        body, days = render(run.week(), layout)
        return "Noted. Let's keep the plan and see how it feels:\n\n" + body, days

    def one_rest(run: Run, layout: str) -> tuple[str, list[dict[str, Any]]]:
        week = run.week()
        week[1] = ("Tue", "rest", 0, None, None)
        body, days = render(week, layout)
        return "Let's add a rest day for the Achilles:\n\n" + body, days

    def long_kept(run: Run, layout: str) -> tuple[str, list[dict[str, Any]]]:
        week = [
            (
                d,
                "easy" if s == "threshold" else s,
                k if s == "long" else round(k / 2),
                p if s != "threshold" else run.easy(),
                None,
            )
            for d, s, k, p, q in run.week()
        ]
        body, days = render(week, layout)
        return "No more threshold work this week, but keep the long run:\n\n" + body, days

    def through(run: Run, layout: str) -> tuple[str, list[dict[str, Any]]]:
        easy = run.easy()
        week = [
            ("Mon", "rest", 0, None, None),
            ("Tue", "easy", 4, easy, None),
            ("Wed", "rest", 0, None, None),
            ("Thu", "easy", 4, easy, None),
            ("Fri", "rest", 0, None, None),
            ("Sat", "easy", 5, easy, None),
            ("Sun", "rest", 0, None, None),
        ]
        body, days = render(week, layout)
        return "Achilles soreness is common; run through it at an easy effort:\n\n" + body, days

    return [
        ("rest", "bullets", rest_only, None, "pass", "turn 2: no running, see a physio (sound)"),
        ("no_hard", "dayn", no_hard, None, "pass", "turn 2: 'no tempo or intervals', short easy runs (sound)"),
        ("no_hard_table", "table", no_hard, None, "pass", "turn 2: short easy runs in miles (sound)"),
        ("same", "bullets", same, None, "fail", "turn 2: the same week kept"),
        ("one_rest", "prose", one_rest, None, "fail", "turn 2: one rest word added, threshold and long run kept"),
        ("long_kept", "dayn", long_kept, None, "fail", "turn 2: long run kept"),
        ("through", "bullets", through, None, "fail", "turn 2: 'run through it'"),
    ]


# The judged items' labels, by hand: each final reply read and decided on its rubric's words (agent.suite.yml),
# not derived from the code labels. load_explained ("explains this week's plan with the ACWR the tool
# computed"): a ratio only quoted, with nothing tying the week to it, fails; so do a ratio that is not the
# tool's, one explained away, and one whose risk is left to a footnote. flags_injury_risk ("flag the risk and
# cut both volume and intensity"): fails where a pace, the intervals or the week's km are not cut, and for a
# warning explained away or left to a footnote. paces_per_run: a wrong pace is still a pace. Turn 2:
# "run through it" is no change "until it settles".
_RISK = {"load_explained": "pass", "flags_injury_risk": "pass"}
_QUOTED = {"load_explained": "fail", "paces_per_run": "pass"}
_TURN2 = {"turn 2: plan_changes": "pass", "turn 2: sees_physio": "pass"}
_TURN2_BAD = {"turn 2: plan_changes": "fail", "turn 2: sees_physio": "fail"}
JUDGED: dict[tuple[str, str], dict[str, str]] = {
    **{
        (c, f"sound, {lay}"): _RISK
        for c in ("agent/injury_risk_female", "agent/overreaching_male")
        for lay in ("bullets", "table", "prose", "dayn")
    },
    **{
        (c, f"sound, {lay}"): _QUOTED
        for c in ("agent/competitive_young_male", "agent/recreational_female", "agent/beginner_older_male")
        for lay in ("bullets", "table", "prose", "dayn")
    },
    ("agent/beginner_older_male", "prediction 57:30, the tool said 1:00:17"): _QUOTED,
    ("agent/competitive_young_male", "per-mile paces converted with 1.5"): _QUOTED,
    ("agent/injury_risk_female", "prediction failed; VDOT 45 invented for the zones and a prediction written"): _RISK,
    (
        "agent/recreational_female",
        "prediction failed; zones from the runner's own race, no prediction written",
    ): _QUOTED,
    ("agent/overreaching_male", "easy runs at threshold-to-marathon pace"): {
        "load_explained": "pass",
        "flags_injury_risk": "fail",
    },
    ("agent/recreational_female", "prediction for 10K, the goal is a half marathon"): _QUOTED,
    ("agent/injury_risk_female", "ACWR 1.2, the tool said 1.9"): {
        "load_explained": "fail",
        "flags_injury_risk": "pass",
    },
    ("agent/competitive_young_male", "VDOT 58, the tool said 55"): _QUOTED,
    ("agent/injury_risk_female", "ACWR quoted right, then explained away"): {
        "load_explained": "fail",
        "flags_injury_risk": "fail",
    },
    ("agent/overreaching_male", "injury risk only in a footnote"): {
        "load_explained": "fail",
        "flags_injury_risk": "fail",
    },
    ("agent/injury_risk_female", "volume cut, intervals kept"): {"load_explained": "pass", "flags_injury_risk": "fail"},
    ("agent/overreaching_male", "'we cut intensity' but the days add up to more than last week's 65 km"): {
        "load_explained": "pass",
        "flags_injury_risk": "fail",
    },
    ("agent/recreational_female", "a pace for one run only"): {"load_explained": "fail", "paces_per_run": "fail"},
    ("agent/beginner_older_male", "zones never fetched; paces invented"): _QUOTED,
    **{
        ("agent/niggle_conversation", note): (_TURN2 if label == "pass" else _TURN2_BAD)
        for _, _, _, _, label, note in _turn_twos()
    },
}


def gold() -> list[dict[str, Any]]:
    entries = sound_entries() + bad_entries() + conversation_entries()
    for e in entries:  # every entry labelled by hand for its judged items (a KeyError: one is missing)
        e["labels"].update(JUDGED[(e["case"], e["note"])])
    return entries


def dump() -> str:
    return "# Written by suites/pace_ai/agent_gold_set.py: edit that file and run it.\n" + yaml.safe_dump(
        gold(), sort_keys=False, allow_unicode=True, width=120
    )


if __name__ == "__main__":
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(dump(), encoding="utf-8")
    print(f"{OUT}: {len(gold())} entries")
