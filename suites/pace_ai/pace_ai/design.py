"""The design document's values, pinned in each profile (``expected:``), against what the tools compute.

The suite's ``when:`` conditions and expected bands read the pinned values, never the tools' own
output: a tool regression (say, ACWR over the oldest four weeks) then cannot silently switch a
safety item off. Instead :func:`design_mismatches` names the profile, the pace_tools_match_design
check fails every case of that runner, and ``evalkit selftest`` disagrees with the gold labels.
"""

from __future__ import annotations

from pathlib import Path

from pace_ai.profiles import load_profile, profile_facts

__all__ = ["PINNED_TOLERANCE", "design_mismatches"]

#: How far the tools may stray from a profile's pinned ``expected`` values.
PINNED_TOLERANCE = {"acwr": 0.05, "vdot": 1.0}

_BANDS = {"low": "under-training", "optimal": "optimal", "elevated": "elevated", "high": "high"}


def design_mismatches(profile: dict | str | Path, facts: dict | None = None) -> list[str]:
    """Where the tools' values for a profile disagree with its pinned ``expected`` values, one
    line each naming the profile (empty when they agree)."""
    if not isinstance(profile, dict):
        profile = load_profile(profile)
    facts = facts if facts is not None else profile_facts(profile)
    pinned, name = profile["expected"], profile.get("profile_id")
    problems = []
    for key, tol in PINNED_TOLERANCE.items():
        got = facts[key]
        if got is None or abs(got - pinned[key]) > tol:
            problems.append(f"{name}: tools compute {key} {got}, the design pins {pinned[key]} (±{tol:g})")
    band = _BANDS.get(str(facts["risk_level"]), facts["risk_level"])
    if band != pinned["acwr_band"]:
        problems.append(
            f"{name}: tools put ACWR {facts['acwr']} in band {band!r}, the design pins {pinned['acwr_band']!r}"
        )
    return problems
