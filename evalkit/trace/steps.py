"""The one shape of a trajectory: a list of `Step`s, in the order they happened.

A step is a message (`type: message`, `role` user or assistant, its `text`) or a tool call
(`type: tool_call`, the tool's `name`, its `arguments`, and what it gave: `result`, or `error`
when the tool failed). An assistant message that asked for tools is followed by their calls.
Timings are optional: `seconds` the step took, `start` seconds after the run began.

Targets return steps as plain dicts (or `Step`s), or an OpenTelemetry GenAI trace (read by
`evalkit.trace.otel`); `read_trace` validates them into this shape and says in one line what is wrong.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from evalkit.trace.otel import is_otlp, otlp_steps

MAX_TRACE_STEPS = 10_000  # a longer trace is refused: a target looping on its tools, not a trajectory


class Step(BaseModel):
    """One step of a trajectory: a message or a tool call."""

    model_config = ConfigDict(extra="forbid")

    type: Literal["message", "tool_call"]
    role: Literal["user", "assistant"] | None = Field(default=None, description="A message's author.")
    text: str | None = Field(default=None, description="A message's text.")
    name: str | None = Field(default=None, description="The tool a tool call called.")
    arguments: dict[str, Any] = Field(default_factory=dict, description="The tool call's arguments.")
    result: Any = Field(default=None, description="What the tool returned.")
    error: str | None = Field(default=None, description="The tool failed: why (the model was told).")
    id: str | None = Field(default=None, description="The tool call's id (tool_use id), when known.")
    start: float | None = Field(default=None, ge=0, description="Seconds after the run began.")
    seconds: float | None = Field(default=None, ge=0, description="Seconds the step took.")

    @model_validator(mode="after")
    def _shape(self) -> "Step":
        if self.type == "message":
            if self.role is None:
                raise ValueError("a message step needs `role` (user or assistant)")
            if self.name is not None or self.arguments or self.result is not None or self.error is not None:
                raise ValueError("a message step has `role` and `text`, not a tool's name, arguments or result")
        else:
            if not self.name:
                raise ValueError("a tool_call step needs the tool's `name`")
            if self.role is not None or self.text is not None:
                raise ValueError(
                    "a tool_call step has `name`, `arguments` and `result` or `error`, not `role` or `text`"
                )
        return self

    @classmethod
    def message(
        cls, role: Literal["user", "assistant"], text: str, *, start: float | None = None, seconds: float | None = None
    ) -> "Step":
        return cls(type="message", role=role, text=text, start=start, seconds=seconds)

    @classmethod
    def tool_call(
        cls,
        name: str,
        arguments: dict[str, Any],
        *,
        result: Any = None,
        error: str | None = None,
        id: str | None = None,
        start: float | None = None,
        seconds: float | None = None,
    ) -> "Step":
        return cls(
            type="tool_call",
            name=name,
            arguments=arguments,
            result=result,
            error=error,
            id=id,
            start=start,
            seconds=seconds,
        )


def tool_calls(trace: list[Step]) -> list[Step]:
    """The trace's tool calls, in order."""
    return [s for s in trace if s.type == "tool_call"]


def model_turns(trace: list[Step]) -> int:
    """How many times the model answered: the trace's assistant messages."""
    return sum(1 for s in trace if s.type == "message" and s.role == "assistant")


def judged_trace(trace: list[Step] | None) -> list[Step] | None:
    """What of a run's trace the judge is shown: the trace when it holds a tool call, else nothing
    (a trace of messages alone repeats the prompt and the output the judge already reads, at a cost)."""
    return trace if trace and any(s.type == "tool_call" for s in trace) else None


def read_trace(value: Any) -> list[Step]:
    """A trace from what a target gave: a list of steps (dicts or `Step`s), or an OpenTelemetry
    GenAI trace (an OTLP/JSON export or a list of its spans). Raises ValueError with one line
    naming the first bad step."""
    if is_otlp(value):
        value = otlp_steps(value)
    if isinstance(value, (str, bytes)) or not isinstance(value, (list, tuple)):
        raise ValueError(f"a trace is a list of steps, not a {type(value).__name__}")
    if len(value) > MAX_TRACE_STEPS:
        raise ValueError(f"the trace has {len(value):,} steps; at most {MAX_TRACE_STEPS:,} are kept")
    steps: list[Step] = []
    for number, item in enumerate(value, 1):
        if isinstance(item, Step):
            steps.append(item)
            continue
        if not isinstance(item, dict):
            raise ValueError(f"step {number} of the trace is a {type(item).__name__}, not a mapping")
        try:
            steps.append(Step.model_validate(item))
        except ValidationError as exc:
            error = exc.errors()[0]
            where = ".".join(str(p) for p in error["loc"])
            message = str(error["msg"]).removeprefix("Value error, ")
            raise ValueError(f"step {number} of the trace: {where + ': ' if where else ''}{message}") from None
    return steps
