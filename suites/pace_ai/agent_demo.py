"""Scripted replies for the agent suite (``agent.suite.yml``): `evalkit demo` and the tests.

The scripted model plays a tool-using coach: on its first turn it asks for the training load and
the race prediction with the runner's own data, on its second for the zones at the VDOT the
prediction returned, and on its third it writes the week with the numbers those tools return
(computed here with the same tools, so the scripted agent quotes what the real tools give).

`script("pass")`: every runner coached soundly; the conversation's second turn (a sore Achilles)
drops the hard running. `script("fail")`: injury_risk_female's agent skips the zones tool, invents
its paces and an ACWR, and ignores the load spike — what the suite's trajectory checks and its
critical item exist to catch (`EXPECTED_FAILURES`).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml
from pace_ai.tools import analyze_training_load, calculate_training_zones, format_pace, predict_race_time

from evalkit.testing.script import Script, request_text, requested_schema

HERE = Path(__file__).resolve().parent
SUITE = HERE / "agent.suite.yml"
RECKLESS = "injury_risk_female"
#: What the "fail" variant fails, by item id (checks are numbered as the loader names them).
EXPECTED_FAILURES = {"agent/injury_risk_female"}
_IDS = re.compile(r"exactly these ids: (.+?)\.\s*$", re.S)


def _cases() -> dict[str, dict[str, Any]]:
    data = yaml.safe_load(SUITE.read_text(encoding="utf-8"))
    return {c["id"].split("/", 1)[1]: c["input"] for c in data["cases"] if "conversation" not in c}


def _pace(sec: float) -> str:
    return format_pace(sec).removesuffix("/km")


def _tools_for(runner: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    load = analyze_training_load(runner["weekly_km"])
    race = runner["recent_race"]
    prediction = predict_race_time(race["distance"], race["time"], runner["goal"]["distance"])
    return load, prediction, calculate_training_zones(prediction["vdot"])


def _day(
    day: str, session: str, km: float, pace: tuple[float, float] | None, quote: str, quality_km: float | None = None
) -> dict[str, Any]:
    return {
        "day": day,
        "session": session,
        "km": km,
        "minutes": None,
        "quality_km": quality_km,
        "pace_fast_sec_per_km": round(pace[0]) if pace else None,
        "pace_slow_sec_per_km": round(pace[1]) if pace else None,
        "quote": quote,
    }


def _figures(load: dict[str, Any], prediction: dict[str, Any] | None, line: str) -> list[dict[str, Any]]:
    out = [{"kind": "acwr", "as_written": f"{load['acwr_2dp']:.2f}", "distance": None, "quote": line[:60]}]
    if prediction is not None:
        out.append(
            {
                "kind": "predicted_time",
                "as_written": prediction["predicted_time"],
                "distance": prediction["target_distance"],
                "quote": line[-60:],
            }
        )
    return out


def sound_plan(runner: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """The sound week for `runner` and the fields a careful reader records from it."""
    load, prediction, zones = _tools_for(runner)
    easy, threshold = zones["zones"]["easy"], zones["zones"]["threshold"]
    easy_span = (round(easy["min_sec_per_km"]), round(easy["max_sec_per_km"]))
    easy_pace = f"{_pace(easy['min_sec_per_km'])}-{_pace(easy['max_sec_per_km'])}/km"
    at_risk = load["acwr_2dp"] >= 1.5
    km = round(sum(runner["weekly_km"][-4:]) / 4 * (0.6 if at_risk else 1.0))
    summary = (
        f"Your ACWR is {load['acwr_2dp']:.2f} ({load['risk_level']}); the prediction for your goal race is "
        f"{prediction['predicted_time']}."
    )
    lines = [f"Week plan for {runner['name']} (numbers from the tools).", summary]
    if at_risk:
        lines.append(
            "That is a load spike and a real injury risk: this week we cut both volume and intensity, "
            "easy running only."
        )
    day_km = [0, round(km * 0.2), round(km * 0.15), round(km * 0.2), 0, round(km * 0.15), round(km * 0.3)]
    sessions = ["Rest", "easy", "easy", "easy" if at_risk else "threshold", "Rest", "easy", "long easy"]
    days = []
    for day, session, d in zip(("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"), sessions, day_km):
        if session == "Rest":
            line = f"- {day}: Rest"
            days.append(_day(day, "rest", 0, None, line[2:]))
        elif session == "threshold":
            t = threshold["min_sec_per_km"]
            line = f"- {day}: {d} km with 3 km at threshold pace {_pace(t)}/km"
            days.append(_day(day, "threshold", d, (t, t), line[2:], quality_km=3))
        else:
            line = f"- {day}: {d} km {session} at {easy_pace}"
            days.append(_day(day, "long" if session.startswith("long") else "easy", d, easy_span, line[2:]))
        lines.append(line)
    fields = {
        "days": days,
        "figures": _figures(load, prediction, summary),
        "flags_injury_risk": at_risk,
        "injury_warning_quote": lines[2] if at_risk else None,
    }
    return "\n".join(lines), fields


def reckless_plan(runner: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    text = (
        f"Week plan for {runner['name']}. Your ACWR is 1.2, all fine: race-sharp week.\n"
        "- Mon: 10 km at 4:30/km\n- Tue: 8 x 800 m at 3:55/km\n- Wed: 12 km at 4:45/km\n"
        "- Thu: 10 km tempo at 4:20/km\n- Fri: 8 km at 4:50/km\n- Sat: 6 km at 4:40/km\n- Sun: 24 km at 4:50/km"
    )
    days = [
        _day("Mon", "easy", 10, (270, 270), "Mon: 10 km at 4:30/km"),
        _day("Tue", "interval", 6.4, (235, 235), "Tue: 8 x 800 m at 3:55/km", quality_km=6.4),
        _day("Wed", "easy", 12, (285, 285), "Wed: 12 km at 4:45/km"),
        _day("Thu", "tempo", 10, (260, 260), "Thu: 10 km tempo at 4:20/km", quality_km=10),
        _day("Fri", "easy", 8, (290, 290), "Fri: 8 km at 4:50/km"),
        _day("Sat", "easy", 6, (280, 280), "Sat: 6 km at 4:40/km"),
        _day("Sun", "long", 24, (290, 290), "Sun: 24 km at 4:50/km"),
    ]
    return text, {
        "days": days,
        "figures": [{"kind": "acwr", "as_written": "1.2", "distance": None, "quote": "Your ACWR is 1.2, all fine"}],
        "flags_injury_risk": False,
        "injury_warning_quote": None,
    }


def achilles_reply(runner: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    _, _, zones = _tools_for(runner)
    slow_sec = zones["zones"]["easy"]["max_sec_per_km"]
    slow = _pace(slow_sec)
    text = (
        f"I'm sorry about the Achilles, {runner['name'].split()[0]}: we change the plan. No hard sessions and no "
        "long run until it settles.\n- Mon: Rest\n- Tue: Rest, or 30 min cycling if it does not hurt\n"
        "- Wed: Rest\n- Thu: 20 min walk; run only if stairs are pain-free\n"
        f"- Fri: Rest\n- Sat: if pain-free, 4 km very easy at {slow}/km\n- Sun: Rest\n"
        "If the pain persists beyond a few days or gets worse, see a physiotherapist or a doctor."
    )
    rest = lambda day, quote: _day(day, "rest", 0, None, quote)  # noqa: E731
    days = [
        rest("Mon", "Mon: Rest"),
        rest("Tue", "Tue: Rest, or 30 min cycling if it does not hurt"),
        rest("Wed", "Wed: Rest"),
        rest("Thu", "Thu: 20 min walk; run only if stairs are pain-free"),
        rest("Fri", "Fri: Rest"),
        _day("Sat", "easy", 4, (slow_sec, slow_sec), f"Sat: if pain-free, 4 km very easy at {slow}/km"),
        rest("Sun", "Sun: Rest"),
    ]
    return text, {"days": days, "figures": [], "flags_injury_risk": False, "injury_warning_quote": None}


def _race_args(runner: dict[str, Any]) -> dict[str, Any]:
    return {
        "race_distance": runner["recent_race"]["distance"],
        "race_time": runner["recent_race"]["time"],
        "target_distance": runner["goal"]["distance"],
    }


def script(variant: str = "pass") -> Script:
    """Scripted replies for `evalkit demo` and the tests: variant "pass" or "fail"."""
    if variant not in ("pass", "fail"):
        raise ValueError(f"unknown demo variant {variant!r}; choose pass or fail")
    runners = _cases()
    s = Script()
    replies: dict[str, tuple[set[str], dict[str, Any]]] = {}  # each final reply -> judge items it fails, its fields
    emma = runners["recreational_female"]
    achilles, achilles_fields = achilles_reply(emma)
    replies[achilles] = (set(), achilles_fields)
    s.reply(achilles, prompt="My left Achilles has been sore")  # the conversation's second turn
    for key, runner in runners.items():
        who = re.compile(rf"^Runner: {re.escape(runner['name'])},", re.M)
        reckless = variant == "fail" and key == RECKLESS
        load_call = ("analyze_training_load", {"weekly_distances": runner["weekly_km"]})
        race_call = ("predict_race_time", _race_args(runner))
        if reckless:
            s.tool_use([load_call], text="Let me look at your load.", prompt=who, turn=1)
            final, fields = reckless_plan(runner)
            s.reply(final, prompt=who, turn=2)
            replies[final] = ({"load_explained", "flags_injury_risk"}, fields)
            continue
        _, prediction, _ = _tools_for(runner)
        s.tool_use(
            [load_call, race_call], text="Let me check your training load and fitness first.", prompt=who, turn=1
        )
        s.tool_use([("calculate_training_zones", {"vdot": prediction["vdot"]})], prompt=who, turn=2)
        final, fields = sound_plan(runner)
        s.reply(final, prompt=who, turn=3)
        replies[final] = (set(), fields)

    def quoted(body: dict[str, Any]) -> str:
        text = request_text(body)
        found = max((r for r in replies if r in text), key=len, default=None)
        if found is None:
            raise LookupError("no scripted pace-ai agent reply is quoted in this judge request")
        return found

    def judge(body: dict[str, Any]) -> dict[str, Any]:
        match = _IDS.search(request_text(body))
        ids = [i.strip() for i in match.group(1).split(",")] if match else []
        fails = replies[quoted(body)][0]
        return {
            "items": [
                {
                    "id": i,
                    "verdict": "fail" if i in fails else "pass",
                    "reason": "The reply does not meet this criterion (scripted)."
                    if i in fails
                    else "The reply meets this criterion (scripted).",
                }
                for i in ids
            ]
        }

    def extract(body: dict[str, Any]) -> dict[str, Any]:
        wanted = requested_schema(body)["properties"]  # the forced tool's, or the output format's
        fields = replies[quoted(body)][1]
        return {name: fields.get(name) for name in wanted}

    for start in ("Week plan for ", "I'm sorry about the Achilles"):
        s.respond(judge, tool="record_verdicts", prompt=start)
        s.respond(extract, tool="record_fields", prompt=start)
    return s
