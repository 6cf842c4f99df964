"""How the judge, the extraction and their combined call ask a model for a reply of a given shape, and
read it back: the one place that decides it, from the model's capabilities (evalkit.llm.capabilities).

Routes, best first, one schema (the tool's `input_schema`):
- a forced tool with thinking turned off (`thinking: {type: disabled}` where the model takes it): marked
  `strict: true` with the schema made strict where the model has structured outputs, so the reply
  matches by construction; the tool stays where the API's prompt-cache order puts it (tools, system,
  messages), so the judge's long shared prefix is cached;
- `output_config.format` (a JSON schema; the reply's text is the JSON document) for a model that cannot
  turn thinking off or takes no forced tool (Sonnet 5.5, Opus 5.5, Fable), and for a model evalkit does
  not know: its thinking is left on, at the lowest effort it lists, and `max_tokens` has room for it;
- with `judge_thinking`, always `output_config.format` (thinking and a forced tool do not combine):
  adaptive thinking at the effort asked where the model takes it, else extended thinking with a budget.
No sampling parameter is ever sent: current models refuse them, and the judge's noise is what
`calibrate` and `judge_repeats` measure. A model with no route is refused before the first call.
Either way the reply is still validated (ids, reasons, field types) and a malformed one is retried
once, then is an error: never a pass."""

from __future__ import annotations

import asyncio
import copy
import dataclasses
import json
from dataclasses import dataclass
from typing import Any, Callable, Iterable, TypeVar

from evalkit.errors import ProviderError, UsageError
from evalkit.llm.capabilities import UNKNOWN, Capabilities
from evalkit.llm.providers.interface import ModelRequest
from evalkit.suite.model import JudgeThinking

# Extended thinking's budget for an effort level, on a model that takes a budget and no effort level.
EFFORT_BUDGET = {"low": 1024, "medium": 4096, "high": 8192, "xhigh": 16384, "max": 32000}
# Room in `max_tokens` for the thinking of a model left to think by itself (its default, or adaptive
# thinking at an effort level): thinking counts toward max_tokens, and a reply cut short is no verdict.
THINKING_ROOM = {"low": 4096, "medium": 8192, "high": 16384, "xhigh": 32000, "max": 32000}
DEFAULT_ROOM = 8192  # a model that thinks at an effort evalkit does not set


def verdict_tokens(items: int) -> int:
    """The judge's own allowance for verdicts on `items` rubric items (a reason and a verdict each)."""
    return 512 + 256 * items


def field_tokens(fields: Iterable[Any]) -> int:
    """An extraction's own allowance for these fields' specs (a list: about 7 entries)."""
    return 256 + sum(512 if spec.type == "list" else 64 for spec in fields)


# JSON Schema keywords structured outputs do not take (numbers' and strings' bounds, array sizes).
_UNSUPPORTED = frozenset(
    {
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
        "minLength",
        "maxLength",
        "pattern",
        "maxItems",
        "uniqueItems",
    }
)


@dataclass(frozen=True)
class Route:
    """How one call asks for its reply: a forced tool (strict or not) or `output_config.format`, and
    the thinking, effort and room for thinking that go with it."""

    format: bool = False  # the reply is the text of `output_config.format`, not a forced tool's input
    strict: bool = False  # the forced tool is a strict tool (structured outputs)
    thinking: dict[str, Any] | None = None  # the request's `thinking`; None leaves it to the model
    effort: str | None = None  # `output_config.effort`
    room: int = 0  # tokens added to `max_tokens` for thinking (0: the reply holds no thinking)

    def describe(self) -> str:
        """One phrase for `evalkit models`: how a verdict is asked for."""
        if not self.format:
            how = "strict tool" if self.strict else "forced tool"
            return how + (", thinking off" if self.thinking == {"type": "disabled"} else "")
        think = self.thinking or {}
        if think.get("type") == "enabled":
            mode = f"thinking budget {think.get('budget_tokens')}"
        elif think.get("type") == "adaptive":
            mode = "adaptive thinking"
        else:
            mode = "its own thinking" if self.room else "no thinking"
        return "output format, " + mode + (f", effort {self.effort}" if self.effort else "")

    def ask(self, tool: str) -> str:
        """The instruction's verb: call the tool, or answer in the response format."""
        return "Answer with the JSON object" if self.format else f"Call {tool}"

    def how(self, tool: str) -> str:
        """How the system prompt says to answer: by the tool, or with the JSON format."""
        return "with one JSON object in the required format" if self.format else f"by calling the `{tool}` tool once"

    def corrected(self, request: ModelRequest, tool: str, echo: str, problem: str, *, wanted: str = "") -> ModelRequest:
        """`request` again with a corrective turn: the invalid reply (`echo`), then what was wrong with
        it and how to answer (`wanted`: what the answer must hold). The turn changes the request, so
        the retry is not served from the cache."""
        return dataclasses.replace(
            request,
            messages=request.messages[:1]
            + (
                {"role": "assistant", "content": echo},
                {"role": "user", "content": f"That reply was invalid: {problem}. {self.ask(tool)} again{wanted}."},
            ),
        )


FORCED = Route()  # the plain forced tool, thinking left out: the shape of a request before a model is known


class NoRoute(UsageError):
    """A model evalkit cannot ask for a structured reply (or not with the thinking asked)."""


def _lowest(levels: tuple[str, ...] | None) -> str | None:
    return levels[0] if levels else None


def route_for(capabilities: Capabilities | None, thinking: JudgeThinking | None = None) -> Route:
    """The route for a model whose `Capabilities` are these (None: not known); raises NoRoute saying
    why a model cannot be asked (the caller names the model and the suite)."""
    caps = (capabilities or UNKNOWN).derived()
    if thinking is not None:
        return _thinking_route(caps, thinking)
    can_stop = caps.takes("disabled")
    off = {"type": "disabled"} if can_stop else None
    if caps.forced_tool is True and (can_stop or caps.thinking is False):
        return Route(strict=caps.structured_outputs is True, thinking=off)
    if caps.structured_outputs is False:
        raise NoRoute("it takes no structured outputs, and no forced tool with thinking off")
    effort = _lowest(caps.effort)
    if caps.thinking is False or caps.thinks_by_default is False and can_stop:
        return Route(format=True, thinking=off)
    return Route(format=True, effort=effort, room=THINKING_ROOM[effort] if effort else DEFAULT_ROOM)


def _thinking_route(caps: Capabilities, thinking: JudgeThinking) -> Route:
    if caps.structured_outputs is False:
        raise NoRoute(
            "judge_thinking needs structured outputs (thinking does not combine with a forced tool), and it takes none"
        )
    if caps.thinking_types is None:
        raise NoRoute(
            "its thinking types are not known (not in evalkit's table, and the API was not asked: "
            "set ANTHROPIC_API_KEY, or remove judge_thinking)"
        )
    if caps.takes("adaptive"):
        effort = thinking.effort
        if effort is not None and effort not in (caps.effort or ()):
            listed = ", ".join(caps.effort or ()) or "none"
            raise NoRoute(f"it takes no effort level {effort} (it lists: {listed})")
        room = thinking.budget_tokens or THINKING_ROOM.get(effort or "", DEFAULT_ROOM)
        return Route(format=True, thinking={"type": "adaptive"}, effort=effort, room=room)
    if caps.takes("enabled"):
        budget = thinking.budget_tokens or EFFORT_BUDGET[thinking.effort or "medium"]
        return Route(format=True, thinking={"type": "enabled", "budget_tokens": budget}, room=budget)
    raise NoRoute("it takes neither adaptive nor budgeted thinking")


def choose_route(client: Any, model: str, thinking: JudgeThinking | None = None) -> Route:
    """The route for `model` as the client knows its capabilities; NoRoute (a UsageError) when there is none."""
    caps = client.capabilities(model) if callable(getattr(client, "capabilities", None)) else None
    try:
        return route_for(caps, thinking)
    except NoRoute as exc:
        raise NoRoute(
            f"judge model {model}: {exc}: choose another judge_model (`evalkit models` lists how each is asked)"
        ) from None


Parsed = TypeVar("Parsed")


async def ask_valid(
    client: Any,
    request: ModelRequest,
    route: Route,
    check: Callable[[Any], Parsed],
    *,
    what: str,
    tool: str,
    timeout: float | None,
    wanted: str = "",
) -> tuple[Parsed | None, str | None]:
    """`(check(reply), None)` for `request`'s reply, or `(None, error)`. A reply `check` refuses (a
    ValueError saying why) is shown back once with what was wrong (`wanted`: what the answer must hold),
    then is an error, never a pass; `tool` names the tool (or format) the reply fills. `what` ("judge", "extraction", "judge and extraction") names the call
    in errors and its role in the client's account; the whole exchange gets `timeout` seconds (none
    while a Message Batch serves it). Only a reply that `check` accepts is cached."""
    role = "extraction" if what == "extraction" else "judge"
    problem = ""
    try:
        async with asyncio.timeout(None if client.batching else timeout):
            for _ in range(2):
                try:
                    response = await client.generate(request, role=role, validate=check)
                except ProviderError as exc:
                    return None, f"{what} call failed: {exc}"
                try:
                    return check(response), None
                except ValueError as exc:
                    problem = str(exc)
                request = route.corrected(request, tool, _echo(response), problem, wanted=wanted)
    except TimeoutError:
        return None, f"{what} call took over {timeout:g} s (the suite's timeout.judge)"
    return None, f"{what} reply invalid after a retry: {problem}"


def _echo(response: Any) -> str:
    """An invalid reply as the corrective turn shows it back: its tool input as JSON, else its text."""
    shown = json.dumps(response.tool_input) if response.tool_input is not None else (response.text or "(empty reply)")
    return str(shown)[:6000]


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


def structured_request(
    route: Route,
    *,
    model: str,
    system: Any,
    messages: tuple[dict[str, Any], ...],
    max_tokens: int,
    tool: dict[str, Any],
) -> ModelRequest:
    """The request asking for a reply shaped by `tool`'s input schema, by `route`; `max_tokens` is the
    reply's own allowance, to which the route adds its room for thinking."""
    settings: dict[str, Any] = {
        "model": model,
        "system": system,
        "messages": messages,
        "max_tokens": max_tokens + route.room,
        "thinking": route.thinking,
        "effort": route.effort,
    }
    if route.format:
        schema = strict_schema(tool["input_schema"], tool["name"])
        return ModelRequest(output_format={"type": "json_schema", "schema": schema}, **settings)
    if route.strict:  # strict tool use: valid by construction, cached where a forced tool is
        tool = {**tool, "input_schema": strict_schema(tool["input_schema"], tool["name"]), "strict": True}
    return ModelRequest(tools=(tool,), tool_choice={"type": "tool", "name": tool["name"]}, **settings)


def refuse_unroutable(
    suites: Iterable[Any], judge_model: str | None, capabilities: Callable[[str], Capabilities]
) -> None:
    """NoRoute (one line, before any call) for the first suite whose judge model evalkit cannot ask for
    a verdict, with its `judge_thinking`; `judge_model` is the command line's."""
    for suite in suites:
        model = suite.tier_models(None, judge_model)["low"]
        try:
            route_for(capabilities(model), suite.judge_thinking)
        except NoRoute as exc:
            what = f" with judge_thinking ({suite.judge_thinking.describe()})" if suite.judge_thinking else ""
            raise NoRoute(
                f"{suite.path}: judge model {model}{what} cannot be asked for a verdict: {exc}; "
                "choose another judge_model (`evalkit models` lists how each is asked)"
            ) from None
