"""How the judge and the extraction ask for a reply of a given shape, and read it back.

Two routes, one schema (the tool's `input_schema`):
- structured outputs, where the model supports them (evalkit.llm.capabilities): the schema made
  strict, so the reply matches it by construction. Without thinking, as a forced tool marked
  `strict: true` (strict tool use): the tool stays where the API's documented prompt-cache order
  puts it (tools, then system, then messages), so the judge's long shared prefix is cached as with
  a plain forced tool. With extended thinking, which does not combine with a forced tool, as the
  request's `output_config.format`, and the reply's text is the JSON document;
- a plain forced tool (`tool_choice` of type `tool`) elsewhere, or where support is not known: the
  reply's tool input holds the answer.
Either way the reply is still validated (ids, reasons, field types) and a malformed one is
retried once, then is an error: never a pass."""

from __future__ import annotations

import copy
import dataclasses
from dataclasses import dataclass
from typing import Any, Callable, Iterable

from evalkit.errors import UsageError
from evalkit.llm.providers.interface import ModelRequest

THINKING_MIN_BUDGET = 1024  # the API's least `budget_tokens`
# JSON Schema keywords structured outputs do not take (numbers' and strings' bounds, array sizes).
_UNSUPPORTED = frozenset({"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
                          "minLength", "maxLength", "pattern", "maxItems", "uniqueItems"})


@dataclass(frozen=True)
class Route:
    """How one call asks for its reply: structured outputs or a forced tool, and the thinking budget."""

    structured: bool = False
    thinking: int | None = None  # budget_tokens of extended thinking (structured route only)

    @property
    def uses_format(self) -> bool:
        """The reply comes as text in `output_config.format` (a thinking judge), not as a tool's input."""
        return self.structured and self.thinking is not None

    def ask(self, tool: str) -> str:
        """The instruction's verb: call the tool, or answer in the response format."""
        return "Answer with the JSON object" if self.uses_format else f"Call {tool}"

    def how(self, tool: str) -> str:
        """How the system prompt says to answer: by the tool, or with the JSON format."""
        return "with one JSON object in the required format" if self.uses_format else f"by calling the `{tool}` tool once"

    def corrected(self, request: ModelRequest, tool: str, echo: str, problem: str, wanted: str = "") -> ModelRequest:
        """`request` again with a corrective turn: the invalid reply (`echo`), then what was wrong with
        it and how to answer (`wanted`: what the answer must hold). The turn changes the request, so
        the retry is not served from the cache."""
        return dataclasses.replace(request, messages=request.messages[:1] + (
            {"role": "assistant", "content": echo},
            {"role": "user", "content": f"That reply was invalid: {problem}. {self.ask(tool)} again{wanted}."}))


FORCED = Route()


def thinking_problem(model: str, capabilities: Any) -> str | None:
    """Why a thinking judge cannot run on `model` (its `Capabilities`), or None."""
    if capabilities.structured_outputs is not True:
        known = "does not support" if capabilities.structured_outputs is False else "is not known to support"
        return (f"judge_thinking needs structured outputs, and judge model {model} {known} them "
                "(`evalkit models` lists which do): choose another judge_model or remove judge_thinking")
    if capabilities.thinking is False:
        return (f"judge model {model} does not support extended thinking: choose another judge_model "
                "or remove judge_thinking")
    return None


def choose_route(client: Any, model: str, thinking: int | None = None) -> Route:
    """Structured outputs where the client knows `model` supports them, else the forced tool.
    A thinking judge on a model without them is refused (preflight refuses it before any call)."""
    caps = client.capabilities(model) if callable(getattr(client, "capabilities", None)) else None
    if thinking is not None:
        problem = thinking_problem(model, caps) if caps is not None else (
            f"judge_thinking needs structured outputs, and judge model {model}'s support is not known")
        if problem:
            raise UsageError(problem)
    return route_for(caps, thinking)


def route_for(capabilities: Any, thinking: int | None = None) -> Route:
    """The route for a model whose `Capabilities` are these (None: not known, the forced tool)."""
    structured = capabilities is not None and capabilities.structured_outputs is True
    return Route(structured=structured, thinking=thinking if structured else None)


def strict_schema(schema: dict[str, Any], title: str) -> dict[str, Any]:
    """`schema` as structured outputs take it: every object closed (`additionalProperties: false`)
    with every property required, no bounds they do not support, and `title` naming what it is."""
    out: dict[str, Any] = _strict(copy.deepcopy(schema))
    out["title"] = title
    return out


def _strict(node: Any) -> Any:
    if isinstance(node, list):
        return [_strict(n) for n in node]
    if not isinstance(node, dict):
        return node
    out = {k: _strict(v) for k, v in node.items() if k not in _UNSUPPORTED}
    kinds = node.get("type")
    if "properties" in node or kinds == "object" or (isinstance(kinds, list) and "object" in kinds):
        out["additionalProperties"] = False
        out["required"] = list(node.get("properties") or {})
    return out


def structured_request(route: Route, *, model: str, system: Any, messages: tuple[dict[str, Any], ...],
                       max_tokens: int, tool: dict[str, Any]) -> ModelRequest:
    """The request asking for a reply shaped by `tool`'s input schema, by `route`. With thinking, no
    temperature (the API takes none) and `max_tokens` above the budget by the reply's own allowance."""
    if route.structured and route.thinking is not None:  # route.uses_format, spelt out for the type checker
        schema = strict_schema(tool["input_schema"], tool["name"])
        return ModelRequest(model=model, system=system, messages=messages, max_tokens=max_tokens + route.thinking,
                            output_format={"type": "json_schema", "schema": schema},
                            thinking={"type": "enabled", "budget_tokens": route.thinking})
    if route.structured:  # strict tool use: valid by construction, cached where a forced tool is
        tool = {**tool, "input_schema": strict_schema(tool["input_schema"], tool["name"]), "strict": True}
    return ModelRequest(model=model, system=system, messages=messages, max_tokens=max_tokens, temperature=0.0,
                        tools=(tool,), tool_choice={"type": "tool", "name": tool["name"]})


def refuse_unsupported_thinking(suites: Iterable[Any], judge_model: str | None,
                                capabilities: Callable[[str], Any]) -> None:
    """UsageError (one line, before any call) for the first suite whose `judge_thinking` its judge
    model cannot take; `judge_model` is the command line's, `capabilities` a model's `Capabilities`."""
    for suite in suites:
        if suite.judge_thinking is None:
            continue
        model = suite.tier_models(None, judge_model)["low"]
        problem = thinking_problem(model, capabilities(model))
        if problem:
            raise UsageError(f"{suite.path}: {problem}")
