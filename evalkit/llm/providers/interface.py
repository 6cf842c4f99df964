"""The one small interface every model provider implements."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

# Marks the end of a prompt prefix the API may cache (5 minutes; reads cost a tenth of input).
CACHE_CONTROL = {"type": "ephemeral"}
# json.dumps(..., sort_keys=True) as one encoder: json.dumps builds a new one for every call
# that passes an option (a microsecond of the few a cache key takes).
_KEY_JSON = json.JSONEncoder(sort_keys=True)


@dataclass(frozen=True)
class ModelRequest:
    """One Messages-API request, provider-neutral. Everything in it is part of the cache key."""

    model: str
    messages: tuple[dict[str, Any], ...]
    system: str | tuple[dict[str, Any], ...] | None = None  # text, or blocks (which may carry cache_control)
    max_tokens: int = 1024
    temperature: float | None = None  # only a user's own setting, on a model that takes it: evalkit sets none
    tools: tuple[dict[str, Any], ...] = ()
    tool_choice: dict[str, Any] | None = None
    # The reply's format (`output_config.format`, e.g. {"type": "json_schema", "schema": {...}}: the
    # reply's text is JSON matching the schema), thinking as the API takes it ({"type": "adaptive"},
    # {"type": "disabled"}, {"type": "enabled", "budget_tokens": N}; None leaves it to the model's
    # default) and `output_config.effort` (low ... max). What a model takes: evalkit.llm.capabilities.
    output_format: dict[str, Any] | None = None
    thinking: dict[str, Any] | None = None
    effort: str | None = None

    @classmethod
    def from_prompt(cls, prompt: str, *, model: str, **kwargs: Any) -> "ModelRequest":
        return cls(model=model, messages=({"role": "user", "content": prompt},), **kwargs)

    @classmethod
    def from_data(cls, data: Any) -> "ModelRequest":
        """A request from plain data (a worker's, which sends its fields as JSON); ValueError naming
        the field that is not what a request holds."""
        if not isinstance(data, dict):
            raise ValueError("a model request must be a ModelRequest (or its fields)")
        unknown = sorted(set(data) - _REQUEST_FIELDS)
        if unknown:
            raise ValueError(f"a model request has no field {unknown[0]!r}")

        def blocks(name: str) -> tuple[dict[str, Any], ...]:
            value = data.get(name) or []
            if not isinstance(value, list) or not all(isinstance(b, dict) for b in value):
                raise ValueError(f"a model request's {name} must be a list of objects")
            return tuple(value)

        def typed(name: str, kinds: tuple[type, ...]) -> Any:
            value = data.get(name)
            if value is not None and (not isinstance(value, kinds) or isinstance(value, bool)):
                raise ValueError(f"a model request's {name} must be {' or '.join(k.__name__ for k in kinds)}")
            return value

        system = data.get("system")
        if not isinstance(system, (str, type(None))):
            system = blocks("system")
        return cls(
            model=typed("model", (str,)) or "",
            messages=blocks("messages"),
            system=system,
            max_tokens=typed("max_tokens", (int,)) or 1024,
            temperature=typed("temperature", (int, float)),
            tools=blocks("tools"),
            tool_choice=typed("tool_choice", (dict,)),
            output_format=typed("output_format", (dict,)),
            thinking=typed("thinking", (dict,)),
            effort=typed("effort", (str,)),
        )

    def to_api_body(self) -> dict[str, Any]:
        """The JSON body the Messages API receives (and the fakes match on)."""
        body: dict[str, Any] = {
            "model": self.model,
            "max_tokens": self.max_tokens,
            "messages": [dict(m) for m in self.messages],
        }
        if self.system is not None:
            body["system"] = self.system if isinstance(self.system, str) else [dict(b) for b in self.system]
        if self.temperature is not None:
            body["temperature"] = self.temperature
        if self.tools:
            body["tools"] = [dict(t) for t in self.tools]
        if self.tool_choice is not None:
            body["tool_choice"] = dict(self.tool_choice)
        output_config: dict[str, Any] = {}
        if self.output_format is not None:
            output_config["format"] = dict(self.output_format)
        if self.effort is not None:
            output_config["effort"] = self.effort
        if output_config:
            body["output_config"] = output_config
        if self.thinking is not None:
            body["thinking"] = dict(self.thinking)
        return body

    def cache_key(self, repeat: int | str = 0) -> str:
        """Stable hash of every request parameter plus the repeat index."""
        payload = _KEY_JSON.encode({"body": self.to_api_body(), "repeat": repeat})
        return hashlib.sha256(payload.encode()).hexdigest()


_REQUEST_FIELDS = frozenset(ModelRequest.__dataclass_fields__)


@dataclass
class ModelResponse:
    """What a provider returns: the text, the forced tool's input if any, and usage."""

    text: str
    model: str
    input_tokens: int = 0
    output_tokens: int = 0
    tool_name: str | None = None
    tool_input: dict[str, Any] | None = None
    stop_reason: str | None = None
    # Every tool_use block of the reply, in order: {"id", "name", "input"} (a tool loop answers each).
    tool_uses: list[dict[str, Any]] = field(default_factory=list)
    cache_read_tokens: int = 0  # prompt-cache tokens, not included in input_tokens (as the API counts)
    cache_write_tokens: int = 0
    cached: bool = field(default=False, compare=False)
    batch: bool = False  # answered through the Message Batches API (priced at batch rates)
    rate_limit: Any = field(default=None, compare=False)  # providers.ratelimit.RateLimitInfo; never cached
    faults: dict[str, int] = field(default_factory=dict, compare=False)  # retried before this reply; never cached
    # The reply's `thinking` and `redacted_thinking` blocks, raw and in order (signatures and all): a
    # follow-up that continues a thinking reply's tool use must send them back unmodified.
    thinking: list[dict[str, Any]] = field(default_factory=list)

    def assistant_content(self) -> list[dict[str, Any]]:
        """The reply as the next request repeats it in an assistant turn: its thinking blocks (unmodified,
        in order), then its text, then the tool calls it asked for."""
        blocks = [dict(b) for b in self.thinking]
        if self.text:
            blocks.append({"type": "text", "text": self.text})
        return blocks + [
            {"type": "tool_use", "id": u["id"], "name": u["name"], "input": u["input"]} for u in self.tool_uses
        ]

    def to_dict(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "model": self.model,
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "tool_name": self.tool_name,
            "tool_input": self.tool_input,
            "tool_uses": self.tool_uses,
            "stop_reason": self.stop_reason,
            "cache_read_tokens": self.cache_read_tokens,
            "cache_write_tokens": self.cache_write_tokens,
            "batch": self.batch,
            "thinking": self.thinking,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "ModelResponse":
        return cls(
            text=data.get("text") or "",
            model=data.get("model") or "",
            tool_name=data.get("tool_name"),
            tool_input=data.get("tool_input"),
            stop_reason=data.get("stop_reason"),
            tool_uses=list(data.get("tool_uses") or []),
            thinking=list(data.get("thinking") or []),  # (absent from entries cached before it was kept)
            input_tokens=int(data.get("input_tokens") or 0),
            output_tokens=int(data.get("output_tokens") or 0),
            cache_read_tokens=int(data.get("cache_read_tokens") or 0),
            cache_write_tokens=int(data.get("cache_write_tokens") or 0),
            batch=bool(data.get("batch")),
        )

    @classmethod
    def from_api_message(cls, message: Any) -> "ModelResponse":
        """Build from a Messages-API reply body (a dict shaped like `anthropic.types.Message`).

        Raises ValueError naming what is wrong when the body is not shaped like a message."""
        if not isinstance(message, dict):
            raise ValueError(f"the reply is a JSON {type(message).__name__}, not a message object")
        content = message.get("content") or []
        if not isinstance(content, list):
            raise ValueError("the reply's `content` is not a list of blocks")
        texts: list[str] = []
        tool_name = tool_input = None
        tool_uses: list[dict[str, Any]] = []
        thinking: list[dict[str, Any]] = []
        for block in content:
            if not isinstance(block, dict):
                raise ValueError("a block of the reply's `content` is not an object")
            # Only text blocks make `text`; thinking blocks are kept apart, as they came, to be sent back.
            if block.get("type") == "thinking":
                _text(block.get("thinking"), "a thinking block's `thinking`")
                _text(block.get("signature"), "a thinking block's `signature`")
                thinking.append(dict(block))
            elif block.get("type") == "redacted_thinking":
                _text(block.get("data"), "a redacted_thinking block's `data`")
                thinking.append(dict(block))
            elif block.get("type") == "text":
                texts.append(_text(block.get("text", ""), "a text block's `text`"))
            elif block.get("type") == "tool_use":
                name, arguments = _text(block.get("name"), "a tool_use block's `name`"), block.get("input")
                if isinstance(arguments, dict):  # (a forced tool's malformed input is the judge's to refuse)
                    tool_uses.append(
                        {
                            "id": _text(block.get("id") or "", "a tool_use block's `id`"),
                            "name": name,
                            "input": arguments,
                        }
                    )
                if tool_name is None:
                    tool_name, tool_input = name, arguments
        usage = message.get("usage") or {}
        if not isinstance(usage, dict):
            raise ValueError("the reply's `usage` is not an object")
        stop_reason = message.get("stop_reason")
        return cls(
            text="".join(texts),
            model=_text(message.get("model") or "", "the reply's `model`"),
            input_tokens=_tokens(usage, "input_tokens"),
            output_tokens=_tokens(usage, "output_tokens"),
            cache_read_tokens=_tokens(usage, "cache_read_input_tokens"),
            cache_write_tokens=_tokens(usage, "cache_creation_input_tokens"),
            tool_name=tool_name,
            tool_input=tool_input if isinstance(tool_input, dict) else None,
            tool_uses=tool_uses,
            stop_reason=stop_reason if isinstance(stop_reason, str) else None,
            thinking=thinking,
        )


def _text(value: Any, what: str) -> str:
    if not isinstance(value, str):
        raise ValueError(f"{what} is not a string")
    return value


def _tokens(usage: dict[str, Any], key: str) -> int:
    """A token count: a whole number, also written as 12.0 or "12" (as some proxies relay it)."""
    value = usage.get(key) or 0
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value)
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"the reply's usage `{key}` is not a count of tokens")
    return value


@runtime_checkable
class Provider(Protocol):
    """A model API. Raises `ProviderError` with `retryable` set; never retries by itself."""

    name: str

    async def generate(self, request: ModelRequest) -> ModelResponse: ...

    async def aclose(self) -> None: ...
