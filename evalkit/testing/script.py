"""Scripted model replies, chosen per request: shared by the in-process scripted provider
and the loopback fake of the Messages API, so both answer a request the same way.

A request for structured outputs (`output_config.format` of type `json_schema`) counts as asking
for the tool its schema's `title` names (evalkit titles its judge's, extraction's and combined
schemas with their tools' names): the rules that answer the forced tool answer it, and a tool
reply becomes the reply's text, as JSON. With `thinking` in the request, a `thinking` block (with
a signature) comes before the answer; a request with `thinking` and a forced tool is refused (400),
as the API does."""

from __future__ import annotations

import json
import math
import re
import threading
import uuid
from dataclasses import dataclass, field
from typing import Any, Callable, Union

# The tools of evalkit's judge, extraction, and both in one call (evalkit.scoring.grading): a request for the
# combined tool that no rule of its own answers is answered from the judge's and the extraction's rules.
JUDGE_TOOL, EXTRACT_TOOL, GRADE_TOOL = "record_verdicts", "record_fields", "record_verdicts_and_fields"

FAULT_KINDS = ("429", "529", "500", "400", "drop", "bad_json", "bad_shape")
# A 200 whose JSON is not a message: a text block whose text is a number, tokens as words.
BAD_SHAPE = {"type": "message", "role": "assistant", "model": "m", "content": [{"type": "text", "text": 5}],
             "usage": {"input_tokens": "many", "output_tokens": 1}}


@dataclass(frozen=True)
class TextReply:
    text: str
    stop_reason: str = "end_turn"  # "max_tokens": a reply cut off at the length limit


@dataclass(frozen=True)
class ToolReply:
    name: str
    input: dict[str, Any]


@dataclass(frozen=True)
class ToolUseReply:
    """A reply that asks for tools (a target's tool loop answers them): `calls` are (name, input)
    pairs, sent as tool_use blocks after the optional `text`."""

    calls: tuple[tuple[str, dict[str, Any]], ...]
    text: str = ""


@dataclass(frozen=True)
class Fault:
    """An injected failure: an HTTP status, a dropped connection, or a 200 that is not JSON."""

    kind: str
    retry_after: float | None = None

    def __post_init__(self) -> None:
        if self.kind not in FAULT_KINDS:
            raise ValueError(f"unknown fault {self.kind!r}; choose one of {', '.join(FAULT_KINDS)}")


Action = Union[TextReply, ToolReply, ToolUseReply, Fault]
# A responder sees the request body and returns reply text, a tool input dict, or an Action.
Responder = Callable[[dict[str, Any]], Union[str, dict[str, Any], TextReply, ToolReply, ToolUseReply, Fault]]


def request_text(body: dict[str, Any]) -> str:
    """All the prose of a request (system and every message), for prompt matching."""
    parts: list[str] = []

    def add(content: Any) -> None:
        if isinstance(content, str):
            parts.append(content)
        elif isinstance(content, list):
            for block in content:
                if isinstance(block, dict):
                    add(block.get("text") or block.get("content") or "")
    add(body.get("system") or "")
    for message in body.get("messages") or []:
        add(message.get("content"))
    return "\n".join(parts)


ANY_TOOL = "*"  # a rule's `tool` that matches any forced tool
STRUCTURED = "structured_output"  # the tool a structured-output request asks for when its schema has no title


def output_schema(body: dict[str, Any]) -> dict[str, Any] | None:
    """The JSON schema a request's reply must match (`output_config.format`), or None."""
    fmt = (body.get("output_config") or {}).get("format") or {}
    if fmt.get("type") != "json_schema":
        return None
    schema = fmt.get("schema")
    return schema if isinstance(schema, dict) else {}


def requested_tool(body: dict[str, Any]) -> str | None:
    """The tool a request forces (a structured-output request: its schema's title), else its only tool, else None."""
    schema = output_schema(body)
    if schema is not None:
        return str(schema.get("title") or STRUCTURED)
    choice = body.get("tool_choice") or {}
    if choice.get("type") == "tool":
        return choice.get("name")
    tools = body.get("tools") or []
    return tools[0].get("name") if len(tools) == 1 else None


def requested_schema(body: dict[str, Any]) -> dict[str, Any]:
    """The schema of the answer a request asks for: its output format's, else the requested tool's input schema."""
    schema = output_schema(body)
    if schema is not None:
        return schema
    name = requested_tool(body)
    tool: dict[str, Any] = next((t for t in body.get("tools") or [] if t.get("name") == name), {})
    schema = tool.get("input_schema")
    return schema if isinstance(schema, dict) else {}


def model_turn(body: dict[str, Any]) -> int:
    """Which answer of the model a request asks for: 1 + the assistant messages it holds."""
    return 1 + sum(1 for m in body.get("messages") or [] if isinstance(m, dict) and m.get("role") == "assistant")


def _forces_tool(body: dict[str, Any]) -> bool:
    return (body.get("tool_choice") or {}).get("type") in ("tool", "any") or output_schema(body) is not None


def request_problem(body: dict[str, Any]) -> str | None:
    """Why the API would refuse the request's combination of thinking, tools and temperature (a 400), or None."""
    thinking = body.get("thinking") or {}
    if thinking.get("type") != "enabled":
        return None
    budget = thinking.get("budget_tokens")
    if (body.get("tool_choice") or {}).get("type") in ("tool", "any"):
        return "Thinking may not be enabled when tool_choice forces tool use."
    if not isinstance(budget, int) or budget < 1024:
        return "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024"
    if not isinstance(body.get("max_tokens"), int) or body["max_tokens"] <= budget:
        return "`max_tokens` must be greater than `thinking.budget_tokens`"
    if body.get("temperature", 1) != 1:
        return "`temperature` may only be set to 1 when thinking is enabled"
    return None


@dataclass
class Rule:
    action: Action | Responder
    prompt: str | re.Pattern[str] | None = None
    tool: str | None = None
    model: str | None = None
    times: int | None = None
    turn: int | None = None  # the model's turn in a conversation: 1 + the assistant messages the request holds
    used: int = field(default=0, compare=False)

    def matches(self, body: dict[str, Any], text: str) -> bool:
        if self.times is not None and self.used >= self.times:
            return False
        if self.model is not None and body.get("model") != self.model:
            return False
        if self.turn is not None and model_turn(body) != self.turn:
            return False
        # A rule without `tool` answers only requests that force no tool, so a prompt rule for
        # the target never answers the judge's request that quotes the target's output;
        # `tool="*"` answers every request that forces a tool, whichever it is.
        if self.tool == ANY_TOOL:
            if not _forces_tool(body):
                return False
        elif requested_tool(body) != self.tool and (self.tool is not None or _forces_tool(body)):
            return False
        if isinstance(self.prompt, re.Pattern):
            return bool(self.prompt.search(text))
        return self.prompt is None or self.prompt in text


class Script:
    """An ordered list of rules; the first one that matches a request answers it.

    A rule with `times=N` answers N requests and then stands aside, which is how a fault is
    injected once before the real reply: `script.fault("429", retry_after=1, times=1)`
    followed by `script.reply("ok")`.
    """

    def __init__(self) -> None:
        self._rules: list[Rule] = []
        self._lock = threading.Lock()

    def reply(self, text: str, *, stop_reason: str = "end_turn", **match: Any) -> "Script":
        return self._add(TextReply(text, stop_reason), **match)

    def tool_reply(self, tool: str, tool_input: dict[str, Any], **match: Any) -> "Script":
        match.setdefault("tool", tool)
        return self._add(ToolReply(tool, tool_input), **match)

    def tool_use(self, calls: list[tuple[str, dict[str, Any]]], *, text: str = "", **match: Any) -> "Script":
        """Answer a target's request by asking for tools, e.g. `turn=1` of a tool loop; the rule for
        the next turn (`turn=2`) sees their results in the request."""
        return self._add(ToolUseReply(tuple((name, dict(arguments)) for name, arguments in calls), text), **match)

    def respond(self, responder: Responder, **match: Any) -> "Script":
        return self._add(responder, **match)

    def fault(self, kind: str, *, retry_after: float | None = None, times: int | None = 1,
              **match: Any) -> "Script":
        return self._add(Fault(kind, retry_after), times=times, **match)

    def extend(self, other: "Script") -> "Script":
        """Append another script's rules after this one's."""
        self._rules.extend(other._rules)
        return self

    def _add(self, action: Action | Responder, *, prompt: str | re.Pattern[str] | None = None,
             tool: str | None = None, model: str | None = None, times: int | None = None,
             turn: int | None = None) -> "Script":
        self._rules.append(Rule(action, prompt, tool, model, times, turn))
        return self

    def action_for(self, body: dict[str, Any]) -> Action:
        """The action answering `body`; a request no rule matches gets a 400 naming it, and so does
        one the API would refuse (`request_problem`)."""
        problem = request_problem(body)
        if problem:
            return _Refused(problem)
        text = request_text(body)
        with self._lock:
            rule = next((r for r in self._rules if r.matches(body, text)), None)
            if rule is not None:
                rule.used += 1
        if rule is None:
            if requested_tool(body) == GRADE_TOOL:
                return self._composed(body)
            return _Refused(f"no scripted reply matches this request (prompt starts: {text[:200]!r})")
        action = rule.action
        if callable(action) and not isinstance(action, (TextReply, ToolReply, ToolUseReply, Fault)):
            produced = action(body)
            if isinstance(produced, str):
                return TextReply(produced)
            if isinstance(produced, dict):
                return ToolReply(requested_tool(body) or "tool", produced)
            return produced
        return action


    def _composed(self, body: dict[str, Any]) -> Action:
        """A combined judge-and-extraction request answered by the rules for the judge's tool and the
        extraction's tool, each shown the request as if it asked for its own tool alone: their tool
        inputs joined, or the first fault or prose reply either gives."""
        parts = requested_schema(body).get("properties") or {}
        judged = self.action_for(_asking(body, JUDGE_TOOL, {"type": "object", "properties": {"items": parts.get("items")},
                                                             "required": ["items"]}))
        if not isinstance(judged, ToolReply):
            return judged
        extracted = self.action_for(_asking(body, EXTRACT_TOOL, parts.get("fields") or {}))
        if not isinstance(extracted, ToolReply):
            return extracted
        return ToolReply(GRADE_TOOL, {"items": judged.input.get("items"), "fields": extracted.input})


def _asking(body: dict[str, Any], tool: str, schema: dict[str, Any]) -> dict[str, Any]:
    """`body` as if it asked for `tool` alone, by the same route (a forced tool or structured outputs)."""
    if output_schema(body) is not None:
        return {**body, "output_config": {**body["output_config"], "format": {
            "type": "json_schema", "schema": {**schema, "title": tool}}}}
    return {**body, "tools": [{"name": tool, "input_schema": schema}], "tool_choice": {"type": "tool", "name": tool}}


@dataclass(frozen=True)
class _Refused(Fault):
    """A request the API would refuse, or one no rule matches: answered as a 400 saying why."""

    message: str = ""

    def __init__(self, message: str) -> None:
        object.__setattr__(self, "kind", "400")
        object.__setattr__(self, "retry_after", None)
        object.__setattr__(self, "message", message)


def estimate_tokens(text: str) -> int:
    """A rough token count (4 characters a token), so fakes report plausible usage."""
    return max(1, math.ceil(len(text) / 4))


def _tool_use(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"type": "tool_use", "id": "toolu_" + uuid.uuid4().hex[:24], "name": name, "input": arguments}


def message_payload(body: dict[str, Any], action: TextReply | ToolReply | ToolUseReply) -> dict[str, Any]:
    """A Messages-API reply body for `action`, shaped to pass `anthropic.types.Message`. A tool reply to
    a structured-output request is its text, as JSON; a thinking request's reply starts with a thinking block."""
    content: list[dict[str, Any]]
    if isinstance(action, ToolReply) and output_schema(body) is not None:
        out_text = json.dumps(action.input)
        content, stop_reason = [{"type": "text", "text": out_text}], "end_turn"
    elif isinstance(action, ToolUseReply):
        content = [{"type": "text", "text": action.text}] if action.text else []
        content += [_tool_use(name, arguments) for name, arguments in action.calls]
        stop_reason, out_text = "tool_use", action.text + json.dumps([list(c) for c in action.calls])
    elif isinstance(action, ToolReply):
        content = [_tool_use(action.name, action.input)]
        stop_reason, out_text = "tool_use", json.dumps(action.input)
    else:
        content = [{"type": "text", "text": action.text}]
        stop_reason, out_text = action.stop_reason, action.text
    if (body.get("thinking") or {}).get("type") == "enabled":
        thought = "Weighing the output against each criterion (scripted thinking)."
        content.insert(0, {"type": "thinking", "thinking": thought, "signature": "sig_" + uuid.uuid4().hex})
        out_text += thought
    return {
        "id": "msg_" + uuid.uuid4().hex[:24],
        "type": "message",
        "role": "assistant",
        "model": body.get("model", ""),
        "content": content,
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": {"input_tokens": estimate_tokens(request_text(body)),
                  "output_tokens": estimate_tokens(out_text)},
    }


def error_payload(fault: Fault) -> tuple[int, dict[str, Any]]:
    """HTTP status and Messages-API error body for a status fault."""
    kinds = {"429": (429, "rate_limit_error", "Rate limited (scripted)"),
             "529": (529, "overloaded_error", "Overloaded (scripted)"),
             "500": (500, "api_error", "Internal server error (scripted)"),
             "400": (400, "invalid_request_error", "Bad request (scripted)")}
    status, etype, msg = kinds[fault.kind]
    if isinstance(fault, _Refused):
        msg = fault.message
    return status, {"type": "error", "error": {"type": etype, "message": msg}}
