"""What an agent run's tools returned and what the runner's own data says: the sources every number
of the agent's reply must trace to.

From the trajectory (``ctx.trace``) come the tools' successful results (a failed call is no source)
and the calls that failed; from the case's input come the runner's own figures (weekly km, the
recent race, the goal). :func:`sources` puts them in the shape of the coaching suite's facts
(``zones`` with ``fast_sec_per_km``/``slow_sec_per_km``, ``race_pace_zones``, ``goal_distance``,
``last_week_km``), so the coaching suite's checks on the plan's days (:mod:`pace_ai.checks`) judge
an agent's week the same way, with the zones the agent's own tools returned.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from evalkit import CheckContext
from evalkit.trace.steps import Step
from pace_ai.tools import parse_distance, parse_time, vdot_from_performance

__all__ = ["Sources", "assistant_replies", "sources", "written_decimals"]

TOOLS = ("analyze_training_load", "predict_race_time", "calculate_training_zones")
#: The figures each tool produces: a reply that writes one with no successful call of its tool invents it.
PRODUCES = {
    "analyze_training_load": "ACWR",
    "predict_race_time": "race prediction",
    "calculate_training_zones": "training paces",
}


@dataclass
class Sources:
    """The tools' results and the runner's data, for one run."""

    loads: list[dict[str, Any]] = field(default_factory=list)
    predictions: list[dict[str, Any]] = field(default_factory=list)
    zone_sets: list[dict[str, Any]] = field(default_factory=list)
    failed: dict[str, str] = field(default_factory=dict)  # tool -> error, for tools no later call answered
    calls: list[Step] = field(default_factory=list)
    runner: dict[str, Any] = field(default_factory=dict)

    @property
    def acwrs(self) -> list[float]:
        return [float(r[k]) for r in self.loads for k in ("acwr_2dp", "acwr") if _num(r.get(k)) is not None]

    @property
    def vdots(self) -> list[float]:
        """VDOTs a tool returned (the prediction's, the zones tool's echo of its input)."""
        out = [float(r[k]) for r in self.predictions for k in ("vdot", "vdot_exact") if _num(r.get(k)) is not None]
        return out

    @property
    def own_vdot(self) -> float | None:
        """The VDOT of the runner's own recent race (their data, not a tool's)."""
        race = self.runner.get("recent_race") or {}
        try:
            return vdot_from_performance(parse_distance(race["distance"])[0], parse_time(race["time"]))
        except (KeyError, TypeError, ValueError):
            return None

    @property
    def zones(self) -> dict[str, dict[str, Any]]:
        """The last zones the tool returned, in the coaching facts' shape (s/km, fast and slow ends)."""
        if not self.zone_sets:
            return {}
        raw = self.zone_sets[-1].get("zones") or {}
        return {
            name: {"fast_sec_per_km": float(z["min_sec_per_km"]), "slow_sec_per_km": float(z["max_sec_per_km"])}
            for name, z in raw.items()
            if isinstance(z, dict)
            and _num(z.get("min_sec_per_km")) is not None
            and _num(z.get("max_sec_per_km")) is not None
        }

    @property
    def goal_km(self) -> float | None:
        try:
            return parse_distance((self.runner.get("goal") or {})["distance"])[0] / 1000.0
        except (KeyError, TypeError, ValueError):
            return None

    def race_pace_zones(self) -> dict[str, dict[str, float]]:
        """The goal's pace (the runner's data) and the predicted race pace (the tool's), s/km."""
        out: dict[str, dict[str, float]] = {}
        km = self.goal_km
        goal = self.runner.get("goal") or {}
        if km:
            try:
                sec = parse_time(goal["time"]) / km
                out["goal"] = {"fast_sec_per_km": sec, "slow_sec_per_km": sec}
            except (KeyError, TypeError, ValueError):
                pass
        for p in self.predictions:
            if _num(p.get("predicted_sec_per_km")) is not None and _same_distance(p.get("target_distance_m"), km):
                sec = float(p["predicted_sec_per_km"])
                out["race_equivalent"] = {"fast_sec_per_km": sec, "slow_sec_per_km": sec}
        return out

    def facts(self) -> dict[str, Any]:
        """The coaching suite's facts, as far as this run's tools and data give them."""
        weeks = [float(w) for w in self.runner.get("weekly_km") or [] if _num(w) is not None]
        goal_label = None
        try:
            goal_label = parse_distance((self.runner.get("goal") or {})["distance"])[1]
        except (KeyError, TypeError, ValueError):
            pass
        return {
            "zones": self.zones,
            "race_pace_zones": self.race_pace_zones(),
            "goal_distance": goal_label,
            "weekly_distances_km": weeks,
            "last_week_km": weeks[-1] if weeks else None,
            "recent_avg_weekly_km": round(sum(weeks[-4:]) / 4, 2) if len(weeks) >= 4 else None,
        }


def _num(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _same_distance(metres: Any, km: float | None) -> bool:
    m = _num(metres)
    return km is not None and m is not None and abs(m / 1000.0 - km) <= 0.01


def sources(ctx: CheckContext) -> Sources:
    """The run's tool results (successful calls only) and the runner's data from the case's input."""
    out = Sources(runner=ctx.input if isinstance(ctx.input, dict) else {})
    for step in ctx.trace or []:
        if step.type != "tool_call":
            continue
        out.calls.append(step)
        name = str(step.name)
        if step.error is not None or not isinstance(step.result, dict):
            out.failed[name] = step.error or "no result"
            continue
        out.failed.pop(name, None)  # a later call that succeeded answers the failure
        {
            "analyze_training_load": out.loads,
            "predict_race_time": out.predictions,
            "calculate_training_zones": out.zone_sets,
        }.get(name, []).append(step.result)
    return out


def assistant_replies(trace: list[Step] | None) -> list[str]:
    """Each turn's final reply in a conversation's trace: the last assistant message before each user
    message after the first, and the last one of all."""
    replies: list[str] = []
    last: str | None = None
    for step in trace or []:
        if step.type == "message" and step.role == "assistant" and step.text:
            last = step.text
        elif step.type == "message" and step.role == "user" and last is not None:
            replies.append(last)
            last = None
    if last is not None:
        replies.append(last)
    return replies


def written_decimals(text: str) -> int:
    """How many decimals a number is written with ("1.90" -> 2, "44" -> 0)."""
    m = re.search(r"[.,](\d+)$", text.strip())
    return len(m.group(1)) if m else 0
