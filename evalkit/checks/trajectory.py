"""Checks on the run's trajectory (`CheckContext.trace`): which tools the model called, with what
arguments, in what order, how many times, and whether it went on after a tool failed.

A run without a trajectory fails every one of them, saying how to record one: a check on the
tool calls that passed because there were none to look at would hide a target that never
reported its steps.
"""

from __future__ import annotations

import json
from abc import abstractmethod
from collections import Counter
from typing import Annotated, Any, Literal

import regex
from pydantic import BaseModel, ConfigDict, Field, WithJsonSchema, field_validator, model_validator

from evalkit.checks.base import Check, CheckContext, Outcome
from evalkit.checks.text import limited_regex
from evalkit.trace.steps import Step, model_turns, tool_calls

NO_TRACE = (
    "the target recorded no trajectory (a prompt target with `tools:` records one, and so does agent "
    "code that calls the model through the client it is handed; other code returns "
    "TargetResult(output, trace=...) with its steps or an OpenTelemetry GenAI trace)"
)
SHOWN_CALLS = 20  # tool names listed in a reason before "… and N more"


class CallTimes(BaseModel):
    """How many matching calls: at least `min`, at most `max`."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    min: int | None = Field(default=None, ge=0)
    max: int | None = Field(default=None, ge=0)

    @model_validator(mode="after")
    def _bounds(self) -> "CallTimes":
        if self.min is None and self.max is None:
            raise ValueError("times needs `min`, `max` or both (or a number: exactly that many)")
        if self.min is not None and self.max is not None and self.min > self.max:
            raise ValueError(f"times: min {self.min} exceeds max {self.max}")
        return self


_COUNT = {"type": "integer", "minimum": 0}
# `times` in the suite's JSON Schema: a number, or the range CallTimes validates.
TIMES_SCHEMA = {
    "anyOf": [_COUNT, {"type": "object", "properties": {"min": _COUNT, "max": _COUNT}, "additionalProperties": False}]
}


class _TrajectoryCheck(Check):
    """A check decided on the trace; a run without one fails (see NO_TRACE)."""

    def evaluate(self, ctx: CheckContext) -> Outcome:
        if ctx.trace is None:
            return Outcome(False, NO_TRACE)
        return self.decide(ctx.trace, ctx)

    @abstractmethod
    def decide(self, trace: list[Step], ctx: CheckContext) -> Outcome:
        """Decide this check on the run's trace."""


class _ArgumentsCheck(_TrajectoryCheck):
    """`arguments` compared with a call's arguments as `match` says."""

    name: str = Field(min_length=1, description="The tool's name.")
    arguments: dict[str, Any] | None = Field(
        default=None, description="What the call's arguments must be (see `match`)."
    )
    match: Literal["subset", "equals", "schema", "regex"] = Field(
        default="subset",
        description="subset: each given key equals; equals: exactly these arguments; schema: "
        "`arguments` is a JSON Schema; regex: each given value fully matches.",
    )

    @model_validator(mode="after")
    def _arguments_fit_match(self) -> "_ArgumentsCheck":
        if self.arguments is None:
            if "match" in self.model_fields_set:
                raise ValueError("`match` needs `arguments`")
            return self
        if self.match == "schema":
            from jsonschema import exceptions, validators  # jsonschema is slow to import; only schema matches need it

            try:
                validators.validator_for(self.arguments).check_schema(self.arguments)
            except exceptions.SchemaError as exc:
                raise ValueError(f"arguments: invalid JSON Schema: {exc.message}") from None
        elif self.match == "regex":
            for key, pattern in self.arguments.items():
                if not isinstance(pattern, str):
                    raise ValueError(
                        f"arguments.{key}: with match: regex each value is a regular expression "
                        f"(a string), not {pattern!r}"
                    )
                try:
                    regex.compile(pattern)
                except regex.error as exc:
                    raise ValueError(f"arguments.{key}: invalid regular expression: {exc}") from None
        return self

    def calls(self, trace: list[Step]) -> list[Step]:
        return [c for c in tool_calls(trace) if c.name == self.name]

    def mismatch(self, call: Step) -> str | None:
        """Why the call's arguments do not match, or None when they do (or none were given)."""
        wanted, got = self.arguments, call.arguments
        if wanted is None:
            return None
        if self.match == "schema":
            from jsonschema import validators  # jsonschema is slow to import; only schema matches need it

            errors = sorted(validators.validator_for(wanted)(wanted).iter_errors(got), key=lambda e: list(e.path))
            if errors:
                where = "/".join(str(p) for p in errors[0].path) or "(arguments)"
                return f"schema: at {where}: {errors[0].message[:160]}"
            return None
        if self.match == "equals":
            extra = sorted(set(got) - set(wanted))
            if extra:
                return "unexpected " + ", ".join(extra)
        for key, value in wanted.items():
            if key not in got:
                return f"no {key}"
            if self.match == "regex":
                if limited_regex(value, _as_text(got[key]), full=True) is None:
                    return f"{key}={_short(got[key])} does not match /{value}/"
            elif got[key] != value:
                return f"{key}={_short(got[key])}, wanted {_short(value)}"
        return None

    def with_arguments(self) -> str:
        if self.arguments is None:
            return ""
        how = {
            "subset": "with",
            "equals": "with exactly",
            "schema": "with arguments matching the schema",
            "regex": "with arguments matching",
        }[self.match]
        return f" {how} {_short(self.arguments)}" if self.match != "schema" else f" {how}"


def _as_text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)


def _short(value: Any, limit: int = 80) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _times(n: int) -> str:
    return f"{n} time" + ("" if n == 1 else "s")


def _names(calls: list[Step]) -> str:
    names = [str(c.name) for c in calls]
    if not names:
        return "(none)"
    more = f", … and {len(names) - SHOWN_CALLS} more" if len(names) > SHOWN_CALLS else ""
    return ", ".join(names[:SHOWN_CALLS]) + more


class ToolCalled(_ArgumentsCheck):
    """The model called tool `name` (with `arguments`, as `match` says), `times` times: a number, or
    `{min:, max:}`; by default at least once."""

    type = "tool_called"
    times: Annotated[CallTimes | None, WithJsonSchema(TIMES_SCHEMA)] = Field(
        default=None, description="How many matching calls: a number (exactly), or `{min:, max:}`; default at least 1."
    )

    @field_validator("times", mode="before")
    @classmethod
    def _number_or_range(cls, v: Any) -> Any:
        if isinstance(v, int) and not isinstance(v, bool):
            if v < 0:
                raise ValueError("times must be 0 or more")
            return {"min": v, "max": v}
        if v is not None and not isinstance(v, (dict, CallTimes)):
            raise ValueError(f"times is a number of calls or {{min:, max:}}, not {v!r}")
        return v

    def _bounds(self) -> tuple[int | None, int | None]:
        return (self.times.min, self.times.max) if self.times is not None else (1, None)

    def decide(self, trace: list[Step], ctx: CheckContext) -> Outcome:
        calls = self.calls(trace)
        problems = [p for p in (self.mismatch(c) for c in calls) if p is not None]
        n = len(calls) - len(problems)
        low, high = self._bounds()
        wanted = (
            "exactly " + str(low)
            if low == high
            else ", ".join(
                filter(None, [f"at least {low}" if low else "", f"at most {high}" if high is not None else ""])
            )
            or "any number"
        )
        said = f"{self.name} was called {_times(len(calls))}"
        if self.arguments is not None:
            said += f", {n}{self.with_arguments()}"
            if problems and (low is not None and n < low):
                said += f" (first mismatch: {problems[0]})"
        ok = (low is None or n >= low) and (high is None or n <= high)
        return Outcome(ok, f"{said}; wanted {wanted}")


class ToolNotCalled(_ArgumentsCheck):
    """The model never called tool `name` (with `arguments`: never with arguments that match)."""

    type = "tool_not_called"

    def decide(self, trace: list[Step], ctx: CheckContext) -> Outcome:
        calls = self.calls(trace)
        if not calls:
            return Outcome(True, f"{self.name} was not called")
        all_calls = tool_calls(trace)
        for call in calls:
            if self.mismatch(call) is None:
                number = all_calls.index(call) + 1
                return Outcome(
                    False,
                    f"{self.name} was called{self.with_arguments()} (tool call {number}: {_short(call.arguments)})",
                )
        return Outcome(True, f"{self.name} was called {_times(len(calls))}, never{self.with_arguments()}")


class ToolSequence(_TrajectoryCheck):
    """The tool calls follow `names`: `order: exact` (the calls are exactly these), `in_order`
    (these in this order; `gaps: false` for consecutive ones) or `unordered` (each of them, any
    order, duplicates counted)."""

    type = "tool_sequence"
    names: list[str] = Field(min_length=1, description="Tool names, in order.")
    order: Literal["exact", "in_order", "unordered"] = Field(default="in_order")
    gaps: bool = Field(default=True, description="With `in_order`: other calls may come between them.")

    @model_validator(mode="after")
    def _gaps_with_in_order(self) -> "ToolSequence":
        if "gaps" in self.model_fields_set and self.order != "in_order":
            raise ValueError("`gaps` applies only to order: in_order")
        return self

    def decide(self, trace: list[Step], ctx: CheckContext) -> Outcome:
        calls = tool_calls(trace)
        names = [str(c.name) for c in calls]
        wanted = ", ".join(self.names)
        got = f"calls: {_names(calls)}"
        if self.order == "exact":
            if names == self.names:
                return Outcome(True, f"{got}, exactly as wanted")
            at = next(
                (i for i, (a, b) in enumerate(zip(names, self.names)) if a != b), min(len(names), len(self.names))
            )
            differs = (
                f"call {at + 1} is {names[at]}, wanted {self.names[at]}"
                if at < min(len(names), len(self.names))
                else f"{len(names)} calls, wanted {len(self.names)}"
            )
            return Outcome(False, f"{got}; wanted exactly: {wanted} ({differs})")
        if self.order == "unordered":
            missing = Counter(self.names) - Counter(names)
            if not missing:
                return Outcome(True, f"{got}; each of {wanted} present")
            lacking = ", ".join(f"{n}" + (f" x{k}" if k > 1 else "") for n, k in missing.items())
            return Outcome(False, f"{got}; wanted each of: {wanted} (missing: {lacking})")
        if not self.gaps:
            k = len(self.names)
            found = any(names[i : i + k] == self.names for i in range(len(names) - k + 1))
            return Outcome(found, f"{got}; wanted consecutively: {wanted}" + ("" if found else " (not found)"))
        matched = 0
        for n in names:
            if matched < len(self.names) and n == self.names[matched]:
                matched += 1
        if matched == len(self.names):
            return Outcome(True, f"{got}; {wanted} in order")
        lost = self.names[matched]
        why = f"{lost} missing" if lost not in names else f"{lost} not after {self.names[matched - 1]}"
        return Outcome(False, f"{got}; wanted in order: {wanted} ({why})")


class ToolArgs(_ArgumentsCheck):
    """Every call of tool `name` has `arguments` (as `match` says); no call fails unless
    `allow_none: true`."""

    type = "tool_args"
    arguments: dict[str, Any] = Field(description="What every call's arguments must be (see `match`).")
    allow_none: bool = Field(default=False, description="Pass when the tool was never called.")

    def decide(self, trace: list[Step], ctx: CheckContext) -> Outcome:
        calls = self.calls(trace)
        if not calls:
            return Outcome(
                self.allow_none,
                f"{self.name} was never called" + ("" if self.allow_none else " (allow_none: true accepts that)"),
            )
        for number, call in enumerate(calls, 1):
            problem = self.mismatch(call)
            if problem is not None:
                return Outcome(False, f"{self.name} call {number} of {len(calls)}: {problem}")
        return Outcome(True, f"all {len(calls)} call(s) of {self.name}{self.with_arguments()}")


class MaxSteps(_TrajectoryCheck):
    """The model answered at most `max` times (its turns: the trajectory's assistant messages)."""

    type = "max_steps"
    max: int = Field(ge=0, description="Most model turns allowed.")

    def decide(self, trace: list[Step], ctx: CheckContext) -> Outcome:
        n = model_turns(trace)
        if n > self.max:
            return Outcome(False, f"{n} model turns; at most {self.max} allowed")
        return Outcome(True, f"{n} model turns (at most {self.max})")


class MaxToolCalls(_TrajectoryCheck):
    """At most `max` tool calls (of tool `name` only, when given)."""

    type = "max_tool_calls"
    max: int = Field(ge=0, description="Most tool calls allowed.")
    name: str | None = Field(default=None, min_length=1, description="Count only this tool's calls.")

    def decide(self, trace: list[Step], ctx: CheckContext) -> Outcome:
        calls = [c for c in tool_calls(trace) if self.name is None or c.name == self.name]
        what = f"{len(calls)} tool call{'' if len(calls) == 1 else 's'}" + (f" of {self.name}" if self.name else "")
        if len(calls) > self.max:
            return Outcome(False, f"{what}; at most {self.max} allowed")
        return Outcome(True, f"{what} (at most {self.max})")


class ToolErrorHandled(_TrajectoryCheck):
    """After every tool call that failed, the model went on (another tool call, or a message of its
    own), and the final output is not empty; not applicable when no tool call failed."""

    type = "tool_error_handled"

    def decide(self, trace: list[Step], ctx: CheckContext) -> Outcome:
        failed = [i for i, s in enumerate(trace) if s.type == "tool_call" and s.error is not None]
        if not failed:
            return Outcome.not_applicable("no tool call failed")
        for i in failed:
            step = trace[i]
            after = any(s.type == "tool_call" or s.role == "assistant" for s in trace[i + 1 :])
            if not after:
                return Outcome(
                    False, f"{step.name} failed ({_short(step.error, 60)}) and the model took no step after it"
                )
        if not ctx.text.strip():
            return Outcome(False, f"the final output is empty after {_failures(trace, failed)}")
        return Outcome(True, f"the model went on after {_failures(trace, failed)}, and answered")


def _failures(trace: list[Step], failed: list[int]) -> str:
    shown = ", ".join(f"{trace[i].name} ({_short(trace[i].error, 40)})" for i in failed[:3])
    more = f" and {len(failed) - 3} more" if len(failed) > 3 else ""
    return f"{len(failed)} failed tool call{'' if len(failed) == 1 else 's'}: {shown}{more}"


# The registry lists these as built-ins (they are not registered by import side effect).
CHECKS = (ToolCalled, ToolNotCalled, ToolSequence, ToolArgs, MaxSteps, MaxToolCalls, ToolErrorHandled)
