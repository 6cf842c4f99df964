"""A provider for `evalkit plan` that never calls a model: it answers every request the runner sends
with an estimated reply built from the request itself, and keeps each request it answered.

The runner runs against it with the response cache (read, never written): a request whose reply
is cached is answered there by the client, as in a run, and never reaches this provider; so the
requests kept here are the calls a run would pay for, found by the runner's own rules.

How each request is answered (so that the run goes on as a real one would):
- a structured request (the judge's, the extraction's, both in one) gets a reply that matches the
  schema it asks for: every judged item `fail` (so confirm_failures' calls are counted as the upper
  bound the plan has always promised), every field null;
- a target's request with tools gets a tool call (the first tool, its required arguments stood in
  for) until the loop has taken `loop_turns(request)` model turns, then a final text;
- any other request gets a text of the estimated output length (`out_tokens`)."""

from __future__ import annotations

import json
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, Callable

from evalkit.llm import CHARS_PER_TOKEN, ModelRequest, ModelResponse
from evalkit.scoring import DEFAULT_ROOM, EXTRACT_TOOL, THINKING_ROOM, asked_ids

# Starts every estimated text: a request that holds one is not the one a run sends (its tokens are estimated).
ESTIMATED = "[estimated by evalkit plan] "
JUDGE_TOKENS_PER_ITEM = 90  # a short reason and a verdict
EXTRACT_TOKENS_PER_FIELD = 12


@dataclass
class RunMark:
    """Which suite (and which call of its target) the requests made under it belong to."""

    suite: str
    own_calls: bool  # a callable target's, or a tool loop's: sent interactively, never in a Message Batch
    loop_turns: int | None = None  # the turns a tool loop of this run is counted as taking (None: the guess)


# Set by the plan's target for the call of the target and the scoring that follows it (one task).
RUN_MARK: ContextVar[RunMark | None] = ContextVar("evalkit_plan_run", default=None)


@dataclass
class Answered:
    """A request the estimating provider answered: one call a run would pay for."""

    request: ModelRequest
    tool: str | None  # the structured reply's tool (judge, extraction, both), None for a target's request
    output_tokens: int  # the reply's estimated size
    mark: RunMark | None  # whose run
    estimated_input: bool  # it holds an estimated text: not the request a run sends


@dataclass
class EstimatingProvider:
    """Answers without a model (see the module's docstring); `answered` holds every request, in order."""

    out_tokens: Callable[[ModelRequest], int]  # a text reply's estimated size
    loop_turns: Callable[[ModelRequest], int]  # how many model turns a tool loop takes
    answered: list[Answered] = field(default_factory=list)
    name: str = "evalkit-plan"

    async def generate(self, request: ModelRequest) -> ModelResponse:
        schema, tool = requested_schema(request)
        mark, estimated = RUN_MARK.get(), ESTIMATED in json.dumps(request.to_api_body())
        if schema is not None:
            answer = structured_answer(request, schema)
            size = structured_tokens(request, schema)
            self.answered.append(Answered(request, tool or str(schema.get("title") or ""), size, mark, estimated))
            if tool is None:  # output_config.format: the reply's text is the JSON document
                return ModelResponse(
                    text=json.dumps(answer), model=request.model, output_tokens=size, stop_reason="end_turn"
                )
            return ModelResponse(
                text="",
                model=request.model,
                output_tokens=size,
                tool_name=tool,
                tool_input=answer,
                stop_reason="tool_use",
            )
        out = self.out_tokens(request)
        self.answered.append(Answered(request, None, out, mark, estimated))
        turn = loop_turn(request)
        if request.tools and turn < self.loop_turns(request):
            first = request.tools[0]
            arguments = stand_in_value(first.get("input_schema") or {})
            use = {"id": f"toolu_plan_{turn}", "name": first["name"], "input": arguments}
            # With a text of the estimated size, as the plan has always counted a turn: the next request holds it.
            text = f"{ESTIMATED}turn {len(self.answered)} ".ljust(out * CHARS_PER_TOKEN, "x")
            return ModelResponse(
                text=text, model=request.model, output_tokens=out, stop_reason="tool_use", tool_uses=[use]
            )
        # Each reply its own text, as a model's replies are: the judge's and the extraction's requests
        # that hold two of them are then two calls, as in a run, never one shared by the client.
        text = f"{ESTIMATED}reply {len(self.answered)} ".ljust(out * CHARS_PER_TOKEN, "x")
        return ModelResponse(text=text, model=request.model, output_tokens=out, stop_reason="end_turn")

    def stand_in_output(self, out_tokens: int) -> str:
        """A target's output of `out_tokens` tokens, its own text (see `generate`)."""
        return f"{ESTIMATED}output {len(self.answered)} ".ljust(out_tokens * CHARS_PER_TOKEN, "x")

    async def aclose(self) -> None:
        return None


def loop_turn(request: ModelRequest) -> int:
    """Which model turn of its tool loop a request asks for: 1 + the replies since the last user message
    that is not tool results (a conversation's earlier turns are loops of their own)."""
    turn = 1
    for message in reversed(request.messages):
        content = message.get("content")
        if message.get("role") == "assistant":
            turn += 1
        elif not (isinstance(content, list) and any(b.get("type") == "tool_result" for b in content)):
            break
    return turn


def requested_schema(request: ModelRequest) -> tuple[dict[str, Any] | None, str | None]:
    """The schema a structured request's reply must match and the tool it forces (None: the
    output_config.format route); (None, None) for a request that asks for text."""
    if request.output_format is not None and request.output_format.get("type") == "json_schema":
        return dict(request.output_format.get("schema") or {}), None
    choice = request.tool_choice or {}
    if choice.get("type") == "tool":
        tool = next((t for t in request.tools if t.get("name") == choice.get("name")), None)
        if tool is not None:
            return dict(tool.get("input_schema") or {}), str(tool["name"])
    return None, None


def structured_tokens(request: ModelRequest, schema: dict[str, Any]) -> int:
    """A structured reply's estimated output tokens: a reason and a verdict an item, a few tokens a
    field, and the whole room the request gives thinking (thinking is billed as output)."""
    properties = schema.get("properties") or {}
    fields = (
        properties["fields"].get("properties") or {}
        if "fields" in properties
        else (properties if schema.get("title") == EXTRACT_TOOL or "items" not in properties else {})
    )
    tokens = JUDGE_TOKENS_PER_ITEM * len(asked_ids(request)) + EXTRACT_TOKENS_PER_FIELD * len(fields)
    return tokens + thinking_room(request)


def thinking_room(request: ModelRequest) -> int:
    """The tokens a structured request leaves its reply for thinking (evalkit.scoring.structured's route)."""
    if request.output_format is None or (request.thinking or {}).get("type") == "disabled":
        return 0  # a forced tool: no thinking
    if (request.thinking or {}).get("type") == "enabled":
        return int(request.thinking["budget_tokens"])  # type: ignore[index]  # checked just above
    return THINKING_ROOM.get(request.effort or "", DEFAULT_ROOM)


def structured_answer(request: ModelRequest, schema: dict[str, Any]) -> Any:
    """A reply matching `schema`; a judge's (or combined) reply holds a `fail` for every id it asks about."""
    answer = stand_in_value(schema)
    ids = asked_ids(request)
    if ids and isinstance(answer, dict) and "items" in answer:
        answer["items"] = [{"id": i, "reason": "estimated", "verdict": "fail"} for i in ids]
    return answer


def stand_in_value(schema: dict[str, Any]) -> Any:
    """A value matching `schema` (the JSON schemas evalkit asks with): null where allowed, an
    object's properties filled, an enum's first value, an array empty, a string not empty."""
    kinds = schema.get("type")
    kinds = kinds if isinstance(kinds, list) else [kinds]
    values = schema.get("enum")
    if isinstance(values, list):
        return None if None in values else values[0]
    if "null" in kinds:
        return None
    if "object" in kinds or "properties" in schema:
        return {name: stand_in_value(sub) for name, sub in (schema.get("properties") or {}).items()}
    if "array" in kinds:
        return []
    if "string" in kinds:
        return "estimated"
    if "integer" in kinds or "number" in kinds:
        return 0
    if "boolean" in kinds:
        return False
    return None
