"""Checks decided by code on fields extracted from the output (deterministic rubric items)."""

from __future__ import annotations

from typing import Any

from pydantic import model_validator

from evalkit.checks.base import Check, CheckContext, Outcome, out_of_range


class FieldCheck(Check):
    """An extracted field lies in `min`..`max`, equals `equals`, or is one of `one_of`."""

    type = "field"
    needs_fields = True
    field: str
    min: float | None = None
    max: float | None = None
    equals: Any = None
    one_of: list[Any] | None = None

    @model_validator(mode="after")
    def _some_condition(self) -> "FieldCheck":
        if self.min is None and self.max is None and self.equals is None and self.one_of is None:
            raise ValueError("field needs `min`, `max`, `equals` or `one_of`")
        return self

    def referenced_fields(self) -> set[str]:
        return {self.field}

    def evaluate(self, ctx: CheckContext) -> Outcome:
        fields = ctx.fields or {}
        if self.field not in fields:
            raise ValueError(f"field {self.field!r} was not extracted; declare it under the suite's `fields`")
        value = fields[self.field]
        if value is None:
            return Outcome(False, f"{self.field} is not stated in the output")
        if self.equals is not None and value != self.equals:
            return Outcome(False, f"{self.field} = {value!r}, expected {self.equals!r}")
        if self.one_of is not None and value not in self.one_of:
            return Outcome(False, f"{self.field} = {value!r}, expected one of {self.one_of}")
        if self.min is not None or self.max is not None:
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                return Outcome(False, f"{self.field} = {value!r} is not a number")
            beyond = out_of_range(value, self.min, self.max, ("is below", "is above"))
            if beyond:
                return Outcome(False, f"{self.field} = {value:g} {beyond}")
        return Outcome(True, f"{self.field} = {value!r}")


# The registry lists these as built-ins (they are not registered by import side effect).
CHECKS = (FieldCheck,)
