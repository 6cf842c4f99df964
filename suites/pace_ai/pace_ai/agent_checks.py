"""Checks of the pace-ai coach as an agent (``agent.suite.yml``): the reply's numbers must come from
the tools it called, read from the run's trajectory (``ctx.trace``), not from the reply's own say-so.

* ``pace_paces_from_tools``: every pace the reply writes (per km or per mile, ranges too) lies in a
  zone the zones tool returned, or within a few seconds of a pace a tool returned (the race
  prediction's pace); anything else is a pace the agent invented.
* ``pace_acwr_from_tool``: every ACWR the reply quotes is the one the load tool computed (±0.05),
  and the reply quotes it at all: the tool's result is used, not only fetched.
* ``pace_easy_pace_used``: the plan's easy running is given at the easy pace the zones tool
  returned (at least one pace in that zone).

A run without a trajectory, or without the tool call a check reads, fails it saying so.
"""

from __future__ import annotations

import re
from abc import abstractmethod
from typing import Any, ClassVar

from evalkit import Check, CheckContext, Outcome, register_check
from pace_ai.reading import paces_in

__all__ = ["AcwrFromTool", "EasyPaceUsed", "PacesFromTools"]

PACE_TOLERANCE_SEC = 5.0  # s/km: a pace rounded to the second, or converted from min/mile
ACWR_TOLERANCE = 0.05
_ACWR = re.compile(r"(?i)\b(?:ACWR|acute[:\s-]*(?:to|:)[\s-]*chronic(?:\s+workload)?\s+ratio)\b[^0-9\n]{0,40}?"
                   r"(\d+(?:\.\d+)?)")


def _results(ctx: CheckContext, tool: str) -> list[dict[str, Any]]:
    return [s.result for s in ctx.trace or [] if s.type == "tool_call" and s.name == tool
            and isinstance(s.result, dict)]


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
            return Outcome(False, "the reply gives no pace at all")
        ranges = [(float(z["min_sec_per_km"]), float(z["max_sec_per_km"])) for z in _zones(ctx).values()
                  if isinstance(z, dict) and "min_sec_per_km" in z and "max_sec_per_km" in z]
        points = [p for s in ctx.trace or [] if s.type == "tool_call" for p in _pace_values(s.result)]
        invented = [p for p in written
                    if not any(low - PACE_TOLERANCE_SEC <= p <= high + PACE_TOLERANCE_SEC for low, high in ranges)
                    and not any(abs(p - q) <= PACE_TOLERANCE_SEC for q in points)]
        if invented:
            shown = ", ".join(f"{int(p // 60)}:{int(round(p % 60)):02d}/km" for p in invented[:4])
            return Outcome(False, f"{len(invented)} of {len(written)} paces came from no tool: {shown}")
        return Outcome(True, f"all {len(written)} paces lie in the tools' zones or predictions")


@register_check
class AcwrFromTool(_TraceCheck):
    """The reply quotes the ACWR the load tool computed, and no other."""

    type: ClassVar[str] = "pace_acwr_from_tool"

    def decide(self, ctx: CheckContext) -> Outcome:
        computed = [r.get("acwr_2dp") for r in _results(ctx, "analyze_training_load")
                    if isinstance(r.get("acwr_2dp"), (int, float))]
        if not computed:
            return Outcome(False, "analyze_training_load gave no ACWR in this run (not called, or it failed)")
        quoted = [float(m.group(1)) for m in _ACWR.finditer(ctx.text)]
        if not quoted:
            return Outcome(False, f"the reply never quotes the ACWR the tool computed ({computed[-1]:g})")
        wrong = [q for q in quoted if not any(abs(q - c) <= ACWR_TOLERANCE for c in computed)]
        if wrong:
            return Outcome(False, f"the reply quotes ACWR {', '.join(f'{w:g}' for w in wrong)}; the tool computed "
                                  f"{', '.join(f'{c:g}' for c in computed)}")
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
