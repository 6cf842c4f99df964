"""Consistency: do repeated runs of one case agree on their extracted fields?"""

from __future__ import annotations

from collections import Counter
from statistics import median
from typing import Any, Literal

from pydantic import BaseModel

from evalkit.suite.spec import FieldSpec


class FieldAgreement(BaseModel):
    field: str
    agreed: bool
    values: list[Any]
    status: Literal["agreed", "disagreed", "not stated"] | None = None  # None: a report from before
    counted: bool = True  # False: not stated, and the suite says `missing: ignore`


def values_agree(values: list[Any], spec: FieldSpec, tolerance: float) -> bool:
    """Every run gives the same value; numbers: every run within ±`tolerance` of the runs' median.
    A field no run states agrees with nothing (the caller decides whether it counts)."""
    if any(v is None for v in values):
        return False
    if spec.type == "list":  # same number of entries, and each entry's fields agree position by position
        entries = spec.items or {}  # (an entry's field that no run states agrees: it is absent alike)
        return len({len(v) for v in values}) == 1 and all(
            all(v[i].get(k) is None for v in values) or values_agree([v[i].get(k) for v in values], s, tolerance)
            for i in range(len(values[0]))
            for k, s in entries.items()
        )
    if spec.type in ("number", "integer"):
        tol = spec.tolerance if spec.tolerance is not None else tolerance
        mid = median(values)
        return all(abs(v - mid) <= tol * abs(mid) for v in values)
    if spec.type == "string":
        values = [" ".join(str(v).split()).casefold() for v in values]
    return len(set(map(repr, values))) == 1


def field_agreement(
    name: str, values: list[Any], spec: FieldSpec, tolerance: float, missing: str = "disagree"
) -> FieldAgreement:
    if all(v is None for v in values):
        return FieldAgreement(field=name, agreed=False, values=values, status="not stated", counted=missing != "ignore")
    agreed = values_agree(values, spec, tolerance)
    return FieldAgreement(field=name, agreed=agreed, values=values, status="agreed" if agreed else "disagreed")


def agreement(
    runs: list[dict[str, Any]], fields: dict[str, FieldSpec], tolerance: float, missing: str = "disagree"
) -> tuple[float | None, list[FieldAgreement]]:
    """Share of fields on which every run agrees, and the detail per field. A field that no run
    states counts as a disagreement, or (`missing="ignore"`) is left out of the share."""
    if len(runs) < 2 or not fields:
        return None, []
    detail = [
        field_agreement(name, [r.get(name) for r in runs], spec, tolerance, missing) for name, spec in fields.items()
    ]
    counted = [d for d in detail if d.counted]
    return (sum(d.agreed for d in counted) / len(counted) if counted else None), detail


def consensus(values: list[Any]) -> Any:
    """One value for a field across runs: the median of numbers, else the most common value."""
    present = [v for v in values if v is not None]
    if not present:
        return None
    if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in present):
        return median(present)
    top = Counter(map(repr, present)).most_common(1)[0][0]
    return next(v for v in present if repr(v) == top)
