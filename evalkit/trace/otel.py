"""An OpenTelemetry GenAI trace read as a trajectory: the OTLP/JSON export (`resourceSpans[]
.scopeSpans[].spans[]`), a list of exports (a file exporter's JSON lines), or a plain list of
spans, turned into step dicts for `read_trace`.

Spans are read by the GenAI semantic conventions' `gen_ai.operation.name`:

- `chat` (a model call): its `gen_ai.output.messages` (JSON) become assistant messages, one a
  message, the text of its text parts; the user's messages of `gen_ai.input.messages` that no
  earlier call showed become user messages. A tool call the model asked for that no
  `execute_tool` span recorded becomes a tool call, its result taken from a later call's input.
- `execute_tool`: a tool call, from `gen_ai.tool.name`, `gen_ai.tool.call.id`,
  `gen_ai.tool.call.arguments` and `gen_ai.tool.call.result` (JSON where they parse); it failed
  when the span's status is ERROR or it has `error.type` (the status message, else the type).
- Other spans (`invoke_agent`, HTTP, a database) hold the ones above or are not the model's steps.

Steps are in the order their spans started; `start` is seconds after the first span started,
`seconds` the span's duration. A trace is bounded before it is read (evalkit/limits.py: its size, its
spans, its nesting, OTLP's 64-bit integers): one over a limit is refused in one line naming the limit
and the environment variable that raises it. NaN and Infinity (`doubleValue`) are read as those words. Plain dicts come out (this module does not import `steps`, which
imports it), so `read_trace` validates them as it validates any target's steps.
"""

from __future__ import annotations

import json
import math
from typing import Any

from evalkit import limits

ERROR_CODES = (2, "2", "STATUS_CODE_ERROR", "ERROR")  # OTLP/JSON writes the enum as a number or its name


def is_otlp(value: Any) -> bool:
    """Whether a trace a target gave is OpenTelemetry's: an OTLP/JSON export (`resourceSpans`), a
    list of exports (a file exporter's JSON lines, each read), or a list of spans (mappings with a
    `spanId` or a list of `attributes`)."""
    if isinstance(value, dict):
        return "resourceSpans" in value
    if isinstance(value, (list, tuple)) and value and isinstance(value[0], dict):
        return any(k in value[0] for k in ("spanId", "resourceSpans")) or isinstance(value[0].get("attributes"), list)
    return False


def otlp_steps(value: Any) -> list[dict[str, Any]]:
    """The steps of an OTLP/JSON trace (or a list of its spans), as step dicts in the order they
    started. Raises ValueError with one line saying where the trace is malformed or what limit it is over."""
    check_bounds(value)
    spans = [_span(raw, where) for raw, where in _raw_spans(value)]
    spans.sort(key=lambda s: s["start"])
    t0 = spans[0]["start"] if spans else 0
    steps: list[dict[str, Any]] = []
    executed = {s["attrs"].get("gen_ai.tool.call.id") for s in spans if s["operation"] == "execute_tool"}
    responses = _tool_responses(spans)
    users_seen = 0
    for span in spans:
        timing = {
            "start": round((span["start"] - t0) / 1e9, 6),
            "seconds": round((span["end"] - span["start"]) / 1e9, 6),
        }
        if span["operation"] == "execute_tool":
            steps.append(_tool_step(span, timing))
        elif span["operation"] == "chat":
            users = [m for m in span["inputs"] if m.get("role") == "user"]
            for message in users[users_seen:]:
                steps.append({"type": "message", "role": "user", "text": _text(message)})
            users_seen = max(users_seen, len(users))
            for message in _messages(span, "gen_ai.output.messages"):
                if message.get("role", "assistant") != "assistant":
                    continue
                steps.append({"type": "message", "role": "assistant", "text": _text(message), **timing})
                for part in _parts(message, "tool_call"):
                    if part.get("id") is None or part.get("id") not in executed:
                        steps.append(_requested_call(part, responses))
    return steps


def _raw_spans(value: Any) -> list[tuple[Any, str]]:
    """Every span with where it was found: an export's, each export's of a list, or a list's own."""
    if isinstance(value, dict):
        exports = [(value, "")]
    elif isinstance(value, (list, tuple)) and value and isinstance(value[0], dict) and "resourceSpans" in value[0]:
        exports = [(_mapping(export, f"export {n}"), f"export {n}: ") for n, export in enumerate(value, 1)]
    elif isinstance(value, (list, tuple)):
        _refuse_spans(len(value))
        return [(span, f"span {n}") for n, span in enumerate(value, 1)]
    else:
        raise ValueError(
            f"an OpenTelemetry trace is an OTLP/JSON object or a list of spans, not a {type(value).__name__}"
        )
    found: list[tuple[Any, str]] = []
    for export, prefix in exports:
        for r, resource in enumerate(_list(export, "resourceSpans", prefix.removesuffix(": "))):
            where = f"{prefix}resourceSpans[{r}]"
            for s, scope in enumerate(_list(_mapping(resource, where), "scopeSpans", where)):
                inner = f"{where}.scopeSpans[{s}]"
                found += [
                    (span, f"{inner}.spans[{n}]")
                    for n, span in enumerate(_list(_mapping(scope, inner), "spans", inner))
                ]
                _refuse_spans(len(found))
    return found


def _over(what: str, limit: int, variable: str) -> ValueError:
    return ValueError(f"OpenTelemetry trace: {what} (the limit is {limit:,}; {variable} raises it)")


def _refuse_spans(count: int) -> None:
    if count > limits.otel_max_spans():
        raise _over(f"it has over {limits.otel_max_spans():,} spans", limits.otel_max_spans(), "EVALKIT_OTEL_MAX_SPANS")


def check_bounds(value: Any) -> None:
    """ValueError (one line) for a trace over evalkit/limits.py's bounds: its size as JSON text would
    write it, its nesting, an integer outside OTLP's 64 bits. One walk, no recursion: a trace nested
    thousands deep is refused, not a RecursionError."""
    max_bytes, max_depth = limits.otel_max_bytes(), limits.otel_max_depth()
    size = 0
    stack: list[tuple[Any, int, Any]] = [(value, 1, None)]
    while stack:
        node, depth, name = stack.pop()
        if isinstance(node, (dict, list, tuple)):
            if depth > max_depth:
                raise _over(f"it is nested deeper than {max_depth} levels", max_depth, "EVALKIT_OTEL_MAX_DEPTH")
            items = node.items() if isinstance(node, dict) else ((None, v) for v in node)
            for key, child in items:
                size += 2 + (len(key) if isinstance(key, str) else 0)
                stack.append((child, depth + 1, key))
        elif isinstance(node, str):
            size += len(node) + 2
        elif isinstance(node, int) and not isinstance(node, bool):
            _int64(node, name if isinstance(name, str) else "a number in it")
            size += 20
        else:
            size += 8
        if size > max_bytes:
            raise _over(f"it is over {max_bytes:,} characters as JSON", max_bytes, "EVALKIT_OTEL_MAX_BYTES")


def _int64(number: int, what: str) -> int:
    """`number` when it fits OTLP's 64-bit integers (signed, or unsigned nanoseconds), else ValueError."""
    bits = limits.OTEL_INT_BITS
    if not -(2 ** (bits - 1)) <= number < 2**bits:
        shown = str(number) if abs(number) < 10**30 else f"an integer of {len(str(abs(number))):,} digits"
        raise ValueError(f"OpenTelemetry trace: {what} is {shown}, outside OTLP's {bits}-bit integers")
    return number


def _mapping(value: Any, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ValueError(f"OpenTelemetry trace: {where} is a {type(value).__name__}, not a mapping")
    return value


def _list(value: dict[str, Any], key: str, where: str) -> list[Any]:
    items = value.get(key, [])
    if not isinstance(items, list):
        raise ValueError(
            f"OpenTelemetry trace: {where + '.' if where else ''}{key} is a {type(items).__name__}, not a list"
        )
    return items


def _span(raw: Any, where: str) -> dict[str, Any]:
    span = _mapping(raw, where)
    times = []
    for key in ("startTimeUnixNano", "endTimeUnixNano"):
        value = span.get(key, 0 if key == "endTimeUnixNano" else None)
        try:
            if isinstance(value, bool) or value is None:
                raise ValueError
            number = int(value)
        except (TypeError, ValueError):
            raise ValueError(
                f"OpenTelemetry trace: {where} ({span.get('name', 'unnamed')}): {key} is "
                f"{_shown(value)}, not nanoseconds"
            ) from None
        times.append(_int64(number, f"{where} ({span.get('name', 'unnamed')}): {key}"))
    attributes = span.get("attributes", [])
    if not isinstance(attributes, list):
        raise ValueError(f"OpenTelemetry trace: {where}: attributes is a {type(attributes).__name__}, not a list")
    attrs = {}
    for a in attributes:
        if not isinstance(a, dict) or not isinstance(a.get("key"), str):
            raise ValueError(f"OpenTelemetry trace: {where}: an attribute is not a {{key, value}} mapping")
        attrs[a["key"]] = _value(a.get("value"), f"{where}: attribute {a['key']}")
    status = span.get("status") or {}
    read = {
        "name": str(span.get("name", "")),
        "start": times[0],
        "end": max(times[1], times[0]),
        "attrs": attrs,
        "status": status if isinstance(status, dict) else {},
        "where": where,
    }
    read["operation"] = _operation(read)
    # A model call's input messages, parsed once: its user turns and the tool results it was told.
    read["inputs"] = _messages(read, "gen_ai.input.messages") if read["operation"] == "chat" else []
    return read


def _value(value: Any, where: str) -> Any:
    """An OTLP AnyValue (`{stringValue: ...}`, `{intValue: "3"}`, arrays, key-value lists) as Python."""
    if not isinstance(value, dict):
        raise ValueError(f"OpenTelemetry trace: {where}: a value is a {{stringValue|intValue|...: ...}} mapping")
    if "stringValue" in value:
        return str(value["stringValue"])
    if "boolValue" in value:
        return bool(value["boolValue"])
    if "intValue" in value:
        try:
            number = int(value["intValue"])
        except (TypeError, ValueError):
            raise ValueError(
                f"OpenTelemetry trace: {where}: intValue {_shown(value['intValue'])} is not an integer"
            ) from None
        return _int64(number, f"{where}: intValue")
    if "doubleValue" in value:
        try:
            double = float(value["doubleValue"])
        except (TypeError, ValueError, OverflowError):
            raise ValueError(
                f"OpenTelemetry trace: {where}: doubleValue {_shown(value['doubleValue'])} is not a number"
            ) from None
        # OTLP/JSON writes NaN and the infinities as words; a report (JSON) has no number for them.
        return double if math.isfinite(double) else str(value["doubleValue"])
    if "arrayValue" in value:
        return [_value(v, where) for v in (value["arrayValue"] or {}).get("values", [])]
    if "kvlistValue" in value:
        return {
            kv["key"]: _value(kv.get("value"), where)
            for kv in (value["kvlistValue"] or {}).get("values", [])
            if isinstance(kv, dict) and isinstance(kv.get("key"), str)
        }
    if "bytesValue" in value:
        return str(value["bytesValue"])
    return None  # an empty AnyValue


def _operation(span: dict[str, Any]) -> str:
    """`gen_ai.operation.name`, else the first word of the span's name (`execute_tool get_weather`)."""
    operation = span["attrs"].get("gen_ai.operation.name")
    if isinstance(operation, str):
        return operation
    first = span["name"].split(" ")[0]
    return first if first in ("chat", "execute_tool", "invoke_agent") else ""


def _shown(value: Any) -> str:
    """A value in an error message, cut (an intValue of a million digits is not repeated)."""
    text = repr(value)
    return text if len(text) <= 60 else text[:60] + f"… ({len(text):,} characters)"


def _no_number(text: str) -> Any:
    raise ValueError(f"{text[:20]} is not a JSON number evalkit keeps")


def _bounded_number(text: str) -> Any:
    """A JSON number of at most OTEL_MAX_NUMBER_DIGITS digits, finite; else ValueError (the attribute stays text)."""
    if len(text) > limits.OTEL_MAX_NUMBER_DIGITS:
        _no_number(text)
    number = float(text) if any(c in text for c in ".eE") else int(text)
    if isinstance(number, float) and not math.isfinite(number):
        _no_number(text)
    return number


def _json(value: Any) -> Any:
    """A JSON attribute (a string) parsed; what does not parse (or holds NaN, Infinity, a number too
    long to be one) as it is. One nested deeper than the limit is refused."""
    if not isinstance(value, str):
        return value
    try:
        parsed = json.loads(value, parse_constant=_no_number, parse_int=_bounded_number, parse_float=_bounded_number)
    except RecursionError:
        depth = limits.otel_max_depth()
        raise _over(f"a JSON attribute is nested deeper than {depth} levels", depth, "EVALKIT_OTEL_MAX_DEPTH")
    except ValueError:
        return value
    check_bounds(parsed)
    return parsed


def _arguments(value: Any) -> dict[str, Any]:
    parsed = _json(value)
    if parsed is None:
        return {}
    return parsed if isinstance(parsed, dict) else {"input": parsed}  # a tool's input that is not an object


def _tool_step(span: dict[str, Any], timing: dict[str, float]) -> dict[str, Any]:
    attrs, status = span["attrs"], span["status"]
    name = attrs.get("gen_ai.tool.name") or span["name"].removeprefix("execute_tool").strip()
    if not name:
        raise ValueError(f"OpenTelemetry trace: {span['where']}: an execute_tool span without gen_ai.tool.name")
    error = None
    if status.get("code") in ERROR_CODES or "error.type" in attrs:
        error = str(status.get("message") or attrs.get("error.type") or "error")
    return {
        "type": "tool_call",
        "name": str(name),
        "arguments": _arguments(attrs.get("gen_ai.tool.call.arguments")),
        "result": _json(attrs.get("gen_ai.tool.call.result")),
        "error": error,
        "id": _id(attrs.get("gen_ai.tool.call.id")),
        **timing,
    }


def _id(value: Any) -> str | None:
    return None if value is None else str(value)


def _messages(span: dict[str, Any], key: str) -> list[dict[str, Any]]:
    messages = _json(span["attrs"].get(key))
    if messages is None:
        return []
    if not isinstance(messages, list) or not all(isinstance(m, dict) for m in messages):
        raise ValueError(f"OpenTelemetry trace: {span['where']}: {key} is not a JSON list of messages")
    return messages


def _parts(message: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    parts = message.get("parts")
    return [p for p in parts if isinstance(p, dict) and p.get("type") == kind] if isinstance(parts, list) else []


def _text(message: dict[str, Any]) -> str:
    if isinstance(message.get("content"), str):  # older instrumentations: a plain `content`
        return str(message["content"])
    return "\n".join(str(p.get("content", "")) for p in _parts(message, "text"))


def _tool_responses(spans: list[dict[str, Any]]) -> dict[str, Any]:
    """What each tool call id returned, as later model calls were told (`tool_call_response` parts)."""
    found: dict[str, Any] = {}
    for span in spans:
        for message in span["inputs"]:
            for part in _parts(message, "tool_call_response"):
                if part.get("id") is not None:
                    found[str(part["id"])] = _json(part.get("response"))
    return found


def _requested_call(part: dict[str, Any], responses: dict[str, Any]) -> dict[str, Any]:
    name = part.get("name")
    if not isinstance(name, str) or not name:
        raise ValueError("OpenTelemetry trace: a tool_call part of gen_ai.output.messages has no name")
    call_id = _id(part.get("id"))
    return {
        "type": "tool_call",
        "name": name,
        "arguments": _arguments(part.get("arguments")),
        "result": responses.get(call_id) if call_id else None,
        "id": call_id,
    }
