"""Consistency: do repeated runs of one case agree on their extracted fields?"""

from __future__ import annotations

from collections import Counter
from statistics import median
from typing import Any

from pydantic import BaseModel

from evalkit.suite._spec import FieldSpec


class FieldAgreement(BaseModel):
    field: str
    agreed: bool
    values: list[Any]


def values_agree(values: list[Any], spec: FieldSpec, tolerance: float) -> bool:
    """Every run gives the same value; numbers may differ by `tolerance` relative to their median."""
    if all(v is None for v in values):
        return True
    if any(v is None for v in values):
        return False
    if spec.type in ("number", "integer"):
        tol = spec.tolerance if spec.tolerance is not None else tolerance
        mid = abs(median(values))
        spread = max(values) - min(values)
        return spread <= tol * mid if mid else spread == 0
    if spec.type == "string":
        values = [" ".join(str(v).split()).casefold() for v in values]
    return len(set(map(repr, values))) == 1


def agreement(runs: list[dict[str, Any]], fields: dict[str, FieldSpec],
              tolerance: float) -> tuple[float | None, list[FieldAgreement]]:
    """Share of fields on which every run agrees, and the detail per field."""
    if len(runs) < 2 or not fields:
        return None, []
    detail = [FieldAgreement(field=name, agreed=values_agree([r.get(name) for r in runs], spec, tolerance),
                             values=[r.get(name) for r in runs]) for name, spec in fields.items()]
    return sum(d.agreed for d in detail) / len(detail), detail


def consensus(values: list[Any]) -> Any:
    """One value for a field across runs: the median of numbers, else the most common value."""
    present = [v for v in values if v is not None]
    if not present:
        return None
    if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in present):
        return median(present)
    top = Counter(map(repr, present)).most_common(1)[0][0]
    return next(v for v in present if repr(v) == top)
