"""A prompt target's tool loop: the model is sent the prompt and the target's `tools:`; each reply
that asks for tools (tool_use) is answered (tool_result) and sent back, until the model gives its
final answer or has taken `max_steps` turns.

Each tool call is answered by the case's scripted `tool_results:` when it names the tool, else by
the tool's `function:` (user code, run in a worker process like a callable target), else with an
error the model is told. A tool that fails is told to the model as an error result (`is_error`):
handling it is the agent's job, and the `tool_error_handled` check looks at what it did.

Every request goes through the run's client, which records the trajectory (evalkit.trace.recorder):
the loop adds only how long each tool took.
"""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass, replace
from typing import Any, Awaitable, Callable

from evalkit.llm.client import BoundClient
from evalkit.llm.providers.interface import ModelRequest, ModelResponse
from evalkit.suite.model import Tool
from evalkit.suite.tool_results import scripted_answer

MAX_RESULT_CHARS = 100_000  # characters of one tool result sent to the model


@dataclass(frozen=True)
class ToolOutcome:
    """What one tool call gave: a result, or an error (told to the model)."""

    result: Any = None
    error: str | None = None


# Runs a tool's `function:` on the model's arguments (the runner's worker processes).
FunctionRunner = Callable[[str, dict[str, Any]], Awaitable[ToolOutcome]]


@dataclass(frozen=True)
class ToolBox:
    """How one case's tool calls are answered: its scripted results, then the tools' functions."""

    tools: tuple[Tool, ...]
    scripted: dict[str, Any]
    run_function: FunctionRunner | None = None

    async def answer(self, name: str, arguments: dict[str, Any]) -> ToolOutcome:
        tool = next((t for t in self.tools if t.name == name), None)
        if tool is None:
            return ToolOutcome(error=f"there is no tool named {name!r}")
        if name in self.scripted:
            found = scripted_answer(self.scripted[name], arguments)
            if found is None:
                return ToolOutcome(error=f"no scripted result of {name} matches these arguments")
            return ToolOutcome(result=found.result, error=found.error)
        if tool.function is not None and self.run_function is not None:
            return await self.run_function(tool.function, arguments)
        return ToolOutcome(
            error=f"tool {name} has no function, and this case scripts no result for it (`tool_results:`)"
        )


class StepsExhausted(Exception):
    """The model was still calling tools after the target's `max_steps` turns."""


async def run_tool_loop(client: BoundClient, first: ModelRequest, toolbox: ToolBox, max_steps: int) -> ModelResponse:
    """The model's final reply after the loop; raises StepsExhausted past `max_steps` turns."""
    messages = list(first.messages)
    tools = tuple(t.api_definition() for t in toolbox.tools)
    for _ in range(max_steps):
        reply = await client.generate(replace(first, messages=tuple(messages), tools=tools), evalkit_built=True)
        if reply.stop_reason != "tool_use" or not reply.tool_uses:
            return reply
        # Thinking blocks first, unmodified: the API refuses a thinking turn's tool use without them.
        messages.append({"role": "assistant", "content": reply.assistant_content()})
        results = await asyncio.gather(*(_answer(client, toolbox, use) for use in reply.tool_uses))
        messages.append({"role": "user", "content": list(results)})
    client.recorder.close(f"not run: the loop stopped at max_steps ({max_steps})")
    raise StepsExhausted(f"the model was still calling tools after {max_steps} turns (the target's `max_steps`)")


async def _answer(client: BoundClient, toolbox: ToolBox, use: dict[str, Any]) -> dict[str, Any]:
    started = time.perf_counter()
    try:
        outcome = await toolbox.answer(str(use["name"]), dict(use["input"]))
    finally:
        client.recorder.tool_took(str(use["id"]), time.perf_counter() - started)
    block: dict[str, Any] = {"type": "tool_result", "tool_use_id": use["id"]}
    if outcome.error is not None:
        return {**block, "content": outcome.error, "is_error": True}
    return {**block, "content": _as_text(outcome.result)}


def _as_text(result: Any) -> str:
    text = result if isinstance(result, str) else json.dumps(result, ensure_ascii=False, default=str)
    return text if len(text) <= MAX_RESULT_CHARS else text[:MAX_RESULT_CHARS] + " [... cut: too long]"
