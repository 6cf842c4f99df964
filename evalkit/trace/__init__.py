"""An agent's trajectory: the steps one run took (messages, tool calls with their arguments and
results, timings), in one shape whatever produced them — evalkit's own tool loop, the client agent
code is handed, a target's own `TargetResult(trace=...)`, or an OpenTelemetry GenAI trace."""

__all__ = ["otel", "steps"]
