"""Scripted model replies, chosen per request: shared by the in-process scripted provider
and the loopback fake of the Messages API, so both answer a request the same way.

A request for structured outputs (`output_config.format` of type `json_schema`) counts as asking
for the tool its schema's `title` names (evalkit titles its judge's, extraction's and combined
schemas with their tools' names): the rules that answer the forced tool answer it, and a tool
reply becomes the reply's text, as JSON. A request the API would refuse (evalkit.testing.api_rules) is
refused alike; when the model thinks for a request (asked to, or by default on generation 5), the reply
starts with a signed `thinking` block (evalkit.testing.thinking_blocks), which a follow-up must send back."""

from __future__ import annotations

import json
import math
import re
import threading
import uuid
from dataclasses import dataclass, field
from typing import Any, Callable, Union

from evalkit.testing.api_rules import PERMISSIVE, UnknownModels, refusal, rules_for, thinking_display, thinking_on
from evalkit.testing.thinking_blocks import ThinkingSigner, reply_thinking

# The tools of evalkit's judge, extraction, and both in one call (evalkit.scoring.grading): a request for the
# combined tool that no rule of its own answers is answered from the judge's and the extraction's rules.
JUDGE_TOOL, EXTRACT_TOOL, GRADE_TOOL = "record_verdicts", "record_fields", "record_verdicts_and_fields"

FAULT_KINDS = ("429", "529", "500", "400", "drop", "bad_json", "bad_shape")
# A 200 whose JSON is not a message: a text block whose text is a number, tokens as words.
BAD_SHAPE = {
    "type": "message",
    "role": "assistant",
    "model": "m",
    "content": [{"type": "text", "text": 5}],
    "usage": {"input_tokens": "many", "output_tokens": 1},
}


@dataclass(frozen=True)
class TextReply:
    text: str
    stop_reason: str = "end_turn"  # "max_tokens": a reply cut off at the length limit
    redacted_thinking: bool = False  # a thinking reply's thinking comes as a `redacted_thinking` block


@dataclass(frozen=True)
class ToolReply:
    name: str
    input: dict[str, Any]
    redacted_thinking: bool = False


@dataclass(frozen=True)
class ToolUseReply:
    """A reply that asks for tools (a target's tool loop answers them): `calls` are (name, input)
    pairs, sent as tool_use blocks after the optional `text`."""

    calls: tuple[tuple[str, dict[str, Any]], ...]
    text: str = ""
    redacted_thinking: bool = False


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
        # Signs the thinking blocks of this script's replies and verifies those sent back: the in-process
        # provider and the HTTP fake answering from one script accept each other's blocks.
        self.signer = ThinkingSigner()

    # `redacted_thinking=True`: if the model thinks for the request, its thinking comes redacted.
    def reply(
        self, text: str, *, stop_reason: str = "end_turn", redacted_thinking: bool = False, **match: Any
    ) -> "Script":
        return self._add(TextReply(text, stop_reason, redacted_thinking), **match)

    def tool_reply(
        self, tool: str, tool_input: dict[str, Any], *, redacted_thinking: bool = False, **match: Any
    ) -> "Script":
        match.setdefault("tool", tool)
        return self._add(ToolReply(tool, tool_input, redacted_thinking), **match)

    def tool_use(
        self, calls: list[tuple[str, dict[str, Any]]], *, text: str = "", redacted_thinking: bool = False, **match: Any
    ) -> "Script":
        """Answer a target's request by asking for tools, e.g. `turn=1` of a tool loop; the rule for
        the next turn (`turn=2`) sees their results in the request."""
        calls_ = tuple((name, dict(arguments)) for name, arguments in calls)
        return self._add(ToolUseReply(calls_, text, redacted_thinking), **match)

    def respond(self, responder: Responder, **match: Any) -> "Script":
        return self._add(responder, **match)

    def fault(self, kind: str, *, retry_after: float | None = None, times: int | None = 1, **match: Any) -> "Script":
        return self._add(Fault(kind, retry_after), times=times, **match)

    def extend(self, other: "Script") -> "Script":
        """Append another script's rules after this one's."""
        self._rules.extend(other._rules)
        return self

    def _add(
        self,
        action: Action | Responder,
        *,
        prompt: str | re.Pattern[str] | None = None,
        tool: str | None = None,
        model: str | None = None,
        times: int | None = None,
        turn: int | None = None,
    ) -> "Script":
        self._rules.append(Rule(action, prompt, tool, model, times, turn))
        return self

    def action_for(self, body: dict[str, Any], *, unknown_models: UnknownModels = "permissive") -> Action:
        """The action answering `body`; a request the API would refuse gets its error (evalkit.testing.api_rules:
        a 400, or a 404 for an unknown model when `unknown_models="404"`), one no rule matches a 400 naming it."""
        refused = refusal(body, unknown_models=unknown_models, signer=self.signer)
        if refused is not None:
            return _Refused(refused.message, status=refused.status, error_type=refused.type)
        text = request_text(body)
        with self._lock:
            rule = next((r for r in self._rules if r.matches(body, text)), None)
            if rule is not None:
                rule.used += 1
        if rule is None:
            if requested_tool(body) == GRADE_TOOL:
                return self._composed(body, unknown_models)
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

    def message(self, body: dict[str, Any], action: TextReply | ToolReply | ToolUseReply) -> dict[str, Any]:
        """The reply body for `action`, its thinking signed by this script (see `message_payload`)."""
        return message_payload(body, action, self.signer)

    def _composed(self, body: dict[str, Any], unknown_models: UnknownModels) -> Action:
        """A combined judge-and-extraction request answered by the rules for the judge's tool and the
        extraction's tool, each shown the request as if it asked for its own tool alone: their tool
        inputs joined, or the first fault or prose reply either gives."""
        parts = requested_schema(body).get("properties") or {}
        judged = self.action_for(
            _asking(
                body, JUDGE_TOOL, {"type": "object", "properties": {"items": parts.get("items")}, "required": ["items"]}
            ),
            unknown_models=unknown_models,
        )
        if not isinstance(judged, ToolReply):
            return judged
        extracted = self.action_for(
            _asking(body, EXTRACT_TOOL, parts.get("fields") or {}), unknown_models=unknown_models
        )
        if not isinstance(extracted, ToolReply):
            return extracted
        return ToolReply(GRADE_TOOL, {"items": judged.input.get("items"), "fields": extracted.input})


def _asking(body: dict[str, Any], tool: str, schema: dict[str, Any]) -> dict[str, Any]:
    """`body` as if it asked for `tool` alone, by the same route (a forced tool or structured outputs)."""
    if output_schema(body) is not None:
        return {
            **body,
            "output_config": {
                **body["output_config"],
                "format": {"type": "json_schema", "schema": {**schema, "title": tool}},
            },
        }
    return {**body, "tools": [{"name": tool, "input_schema": schema}], "tool_choice": {"type": "tool", "name": tool}}


@dataclass(frozen=True)
class _Refused(Fault):
    """A request the API would refuse, or one no rule matches: answered with its error (a 400 unless said)."""

    message: str = ""
    status: int = 400
    error_type: str = "invalid_request_error"

    def __init__(self, message: str, *, status: int = 400, error_type: str = "invalid_request_error") -> None:
        object.__setattr__(self, "kind", "400")
        object.__setattr__(self, "retry_after", None)
        object.__setattr__(self, "message", message)
        object.__setattr__(self, "status", status)
        object.__setattr__(self, "error_type", error_type)


def estimate_tokens(text: str) -> int:
    """A rough token count (4 characters a token), so fakes report plausible usage."""
    return max(1, math.ceil(len(text) / 4))


def _tool_use(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"type": "tool_use", "id": "toolu_" + uuid.uuid4().hex[:24], "name": name, "input": arguments}


def message_payload(
    body: dict[str, Any], action: TextReply | ToolReply | ToolUseReply, signer: ThinkingSigner
) -> dict[str, Any]:
    """A Messages-API reply body for `action`, shaped to pass `anthropic.types.Message`. A tool reply to
    a structured-output request is its text, as JSON; when the model thinks for the request, the reply
    starts with a thinking block `signer` signs, its tokens counted in the output tokens."""
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
    rules = rules_for(body.get("model")) or PERMISSIVE
    thinking_tokens = 0
    if thinking_on(body, rules):
        blocks, thought = reply_thinking(
            signer, display=thinking_display(body, rules), redacted=action.redacted_thinking
        )
        content[:0] = blocks
        thinking_tokens = estimate_tokens(thought)
    usage: dict[str, Any] = {
        "input_tokens": estimate_tokens(request_text(body)),
        "output_tokens": estimate_tokens(out_text) + thinking_tokens,
    }
    if thinking_tokens:
        usage["output_tokens_details"] = {"thinking_tokens": thinking_tokens}
    return {
        "id": "msg_" + uuid.uuid4().hex[:24],
        "type": "message",
        "role": "assistant",
        "model": body.get("model", ""),
        "content": content,
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": usage,
    }


def error_payload(fault: Fault) -> tuple[int, dict[str, Any]]:
    """HTTP status and Messages-API error body for a status fault."""
    kinds = {
        "429": (429, "rate_limit_error", "Rate limited (scripted)"),
        "529": (529, "overloaded_error", "Overloaded (scripted)"),
        "500": (500, "api_error", "Internal server error (scripted)"),
        "400": (400, "invalid_request_error", "Bad request (scripted)"),
    }
    status, etype, msg = kinds[fault.kind]
    if isinstance(fault, _Refused):
        status, etype, msg = fault.status, fault.error_type, fault.message
    return status, {"type": "error", "error": {"type": etype, "message": msg}}
