"""An agent's trajectory: the steps one run took (messages, tool calls with their arguments and
results, timings), in one shape whatever produced them — evalkit's own tool loop, the client agent
code is handed, a target's own `TargetResult(trace=...)`, or an OpenTelemetry GenAI trace."""

from __future__ import annotations

from typing import TYPE_CHECKING

from evalkit._runtime.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from evalkit.trace.recorder import TraceRecorder
    from evalkit.trace.steps import Step, judged_trace, model_turns, read_trace, tool_calls

# What the other rooms (and a team's code) use of this one; each name loads its module on first use.
__all__ = [
    "Step",
    "TraceRecorder",
    "judged_trace",
    "model_turns",
    "read_trace",
    "tool_calls",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "TraceRecorder": "evalkit.trace.recorder",
        "Step": "evalkit.trace.steps",
        "judged_trace": "evalkit.trace.steps",
        "model_turns": "evalkit.trace.steps",
        "read_trace": "evalkit.trace.steps",
        "tool_calls": "evalkit.trace.steps",
    },
)

del annotations, TYPE_CHECKING, lazy_exports
