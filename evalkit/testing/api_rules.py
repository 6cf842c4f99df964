"""The Messages API's published request rules, as our fakes enforce them.

Two sources, both public: the installed SDK's request types (closed TypedDicts: a top-level key they
do not define is refused, as the API does since `anthropic-version: 2026-10-21`), and the per-model
rules of `MODEL_RULES`, written from Anthropic's model pages and migration guides as of 2026-11-28
(see the reference notes on the API) and shaped like `GET /v1/models` capabilities, plus the few facts
that endpoint does not list (thinking on by default, forced tools, sampling, prefill).

`refusal(body, ...)` says why the API would refuse a request (status, error type, message), or None.
It is deliberately independent of evalkit's own capability table: the fakes check evalkit against the
published rules, not against evalkit's reading of them."""

from __future__ import annotations

import typing
from dataclasses import dataclass, replace
from typing import Any, Iterable, Literal

from evalkit.testing.thinking_blocks import ThinkingSigner

Endpoint = Literal["messages", "count_tokens"]
# How the fakes answer a model id the table does not know: with PERMISSIVE rules (tests use invented
# ids such as `claude-x` or `m`), or with the API's 404.
UnknownModels = Literal["permissive", "404"]
UNKNOWN_MODELS_CHOICES = ("permissive", "404")

# Sampling parameters left the SDK's request types in 2.0.0; older models still take them through
# extra_body, so they are not "extra inputs" but a per-model rule.
SAMPLING_KEYS = ("temperature", "top_p", "top_k")
THINKING_ON = frozenset({"adaptive", "enabled", "between_tools"})
MIN_BUDGET = 1024


@dataclass(frozen=True)
class ModelRules:
    """What one model takes: the `capabilities` of `GET /v1/models`, and what that endpoint leaves out."""

    thinking_types: frozenset[str]
    effort: tuple[str, ...] = ()  # output_config.effort levels; () : the model takes no effort
    structured_outputs: bool = True
    lifecycle: str = "active"
    retires_at: str | None = None
    # Not in /v1/models, but what requests meet:
    thinking_default: bool = False  # `thinking` omitted means adaptive thinking (generation 5)
    forced_tool: bool = True  # tool_choice `tool` / `any` allowed at all
    sampling: bool = True  # temperature / top_p / top_k accepted
    prefill: bool = True  # a request may end with the assistant's message
    display: str = "summarized"  # the thinking display when a request names none ("omitted": empty text)
    max_output: int = 64_000  # `max_tokens` the model takes at most (/v1/models' `max_tokens`)


_LOW_TO_MAX = ("low", "medium", "high", "max")
_ALL_EFFORT = ("low", "medium", "high", "xhigh", "max")
_TAKES_BOTH = frozenset({"enabled", "disabled"})

# The 4.5 generation: `enabled` thinking, off unless asked, sampling and prefill still taken.
_GEN_45 = ModelRules(_TAKES_BOTH)
_OPUS_45 = ModelRules(_TAKES_BOTH, _LOW_TO_MAX, lifecycle="deprecated", retires_at="2027-01-22T00:00:00Z")
_SONNET_45 = ModelRules(_TAKES_BOTH, lifecycle="deprecated", retires_at="2026-11-30T00:00:00Z")
# Opus/Sonnet 4.6: adaptive added (enabled deprecated, still taken); prefill refused from here on.
_GEN_46 = ModelRules(frozenset({"adaptive", "enabled", "disabled"}), _LOW_TO_MAX, prefill=False)
_OPUS_46 = replace(_GEN_46, max_output=128_000)  # Opus 4.6 onwards and generation 5 write up to 128K tokens
# Opus 4.7/4.8: adaptive only (or off); no sampling parameters; thinking text omitted unless asked.
_OPUS_47 = ModelRules(
    frozenset({"adaptive", "disabled"}),
    _ALL_EFFORT,
    sampling=False,
    prefill=False,
    display="omitted",
    max_output=128_000,
)
# Generation 5 thinks unless told not to.
_GEN_5 = ModelRules(
    frozenset({"adaptive", "disabled"}),
    _ALL_EFFORT,
    thinking_default=True,
    sampling=False,
    prefill=False,
    display="omitted",
    max_output=128_000,
)
# Sonnet 5.5 cannot switch thinking off (between_tools is the least), so a forced tool never works.
_SONNET_55 = ModelRules(
    frozenset({"adaptive", "between_tools"}),
    _ALL_EFFORT,
    thinking_default=True,
    forced_tool=False,
    sampling=False,
    prefill=False,
    display="omitted",
    max_output=128_000,
)
# Fable 5.x, Mythos 5.x and Opus 5.5: adaptive thinking only.
_ADAPTIVE_ONLY = ModelRules(
    frozenset({"adaptive"}),
    _ALL_EFFORT,
    thinking_default=True,
    forced_tool=False,
    sampling=False,
    prefill=False,
    display="omitted",
    max_output=128_000,
)

MODEL_RULES: dict[str, ModelRules] = {
    "claude-haiku-4-5": _GEN_45,
    "claude-haiku-4-5-20251001": _GEN_45,
    "claude-sonnet-4-5": _SONNET_45,
    "claude-sonnet-4-5-20250929": _SONNET_45,
    "claude-opus-4-5": _OPUS_45,
    "claude-opus-4-5-20251101": _OPUS_45,
    "claude-sonnet-4-6": _GEN_46,
    "claude-opus-4-6": _OPUS_46,
    "claude-opus-4-7": _OPUS_47,
    "claude-opus-4-8": _OPUS_47,
    "claude-sonnet-5": _GEN_5,
    "claude-opus-5": _GEN_5,
    "claude-haiku-5-5": _GEN_5,
    "claude-sonnet-5-5": _SONNET_55,
    "claude-opus-5-5": _ADAPTIVE_ONLY,
    "claude-fable-5": _ADAPTIVE_ONLY,
    "claude-fable-5-1": _ADAPTIVE_ONLY,
    "claude-fable-5-2": _ADAPTIVE_ONLY,
    "claude-mythos-5": _ADAPTIVE_ONLY,
    "claude-mythos-5-1": _ADAPTIVE_ONLY,
    "claude-mythos-5-2": _ADAPTIVE_ONLY,
    "claude-mythos-preview": _ADAPTIVE_ONLY,
}

# An id the table does not know, answered as an older model would be: so tests' invented ids keep working.
PERMISSIVE = ModelRules(_TAKES_BOTH, _LOW_TO_MAX, max_output=128_000)


@dataclass(frozen=True)
class Refusal:
    """An API error a request gets: HTTP status, error type, message."""

    status: int
    type: str
    message: str


def _bad(message: str) -> Refusal:
    return Refusal(400, "invalid_request_error", message)


def rules_for(
    model: Any, unknown_models: UnknownModels = "permissive", table: dict[str, ModelRules] | None = None
) -> ModelRules | None:
    """The rules of `model`; None when it is unknown and unknown models get a 404."""
    known = (MODEL_RULES if table is None else table).get(model) if isinstance(model, str) else None
    if known is not None:
        return known
    return None if unknown_models == "404" else PERMISSIVE


def thinking_on(body: dict[str, Any], rules: ModelRules) -> bool:
    """Whether the model thinks for this request: asked to, or by default when `thinking` is omitted."""
    thinking = body.get("thinking")
    if isinstance(thinking, dict):
        return thinking.get("type") in THINKING_ON
    return rules.thinking_default


def thinking_display(body: dict[str, Any], rules: ModelRules) -> str:
    """`summarized` or `omitted`: what a thinking reply's text shows."""
    thinking = body.get("thinking")
    display = thinking.get("display") if isinstance(thinking, dict) else None
    return display if isinstance(display, str) else rules.display


def refusal(
    body: dict[str, Any],
    *,
    endpoint: Endpoint = "messages",
    unknown_models: UnknownModels = "permissive",
    signer: ThinkingSigner | None = None,
    table: dict[str, ModelRules] | None = None,
) -> Refusal | None:
    """Why the API would refuse `body` on `endpoint`, or None. With a `signer`, thinking blocks sent back
    must be ones it signed."""
    problem = _closed_keys(body, endpoint)
    if problem:
        return _bad(problem)
    rules = rules_for(body["model"], unknown_models, table)
    if rules is None:
        return Refusal(404, "not_found_error", f"model: {body['model']}")
    for check in (_thinking_shape, _output_config_shape):
        problem = check(body, endpoint)
        if problem:
            return _bad(problem)
    problem = _model_rules(body, rules) or _thinking_sent_back(body, rules, signer)
    return _bad(problem) if problem else None


# -- the request types (the installed SDK's public TypedDicts) ------------------------------------


def allowed_keys(endpoint: Endpoint) -> frozenset[str]:
    """The top-level keys the SDK's request type for `endpoint` defines."""
    import anthropic.types as types  # heavy: only when a fake checks a request

    params: Any = (
        types.MessageCountTokensParams if endpoint == "count_tokens" else _non_streaming(types.MessageCreateParams)
    )
    return frozenset(params.__required_keys__ | params.__optional_keys__)


def _non_streaming(params: Any) -> Any:
    """The non-streaming member of the SDK's `MessageCreateParams` union (where the request types live)."""
    members = typing.get_args(params) or (params,)
    return next((m for m in members if "NonStreaming" in m.__name__), members[0])


def _closed_keys(body: dict[str, Any], endpoint: Endpoint) -> str | None:
    allowed = allowed_keys(endpoint) - {"stream"}
    for key in body:
        if key in allowed or key in SAMPLING_KEYS or (key == "stream" and endpoint == "messages"):
            continue
        return f"`{key}`: Extra inputs are not permitted"
    if body.get("stream"):
        return "`stream`: the fake answers whole messages only (stream: false)"
    required = ("model", "messages") if endpoint == "count_tokens" else ("model", "max_tokens", "messages")
    missing = next((k for k in required if k not in body), None)
    return f"`{missing}`: Field required" if missing else None


def _literal_values(annotation: Any) -> set[Any]:
    """Every value of the Literals in an annotation (through Optional / Union)."""
    if typing.get_origin(annotation) is Literal:
        return set(typing.get_args(annotation))
    return {v for arg in typing.get_args(annotation) for v in _literal_values(arg)}


def _thinking_shape(body: dict[str, Any], endpoint: Endpoint) -> str | None:
    """`thinking` against the SDK's ThinkingConfigParam members, and the API's budget rules."""
    if "thinking" not in body:
        return None
    thinking = body["thinking"]
    import anthropic.types as types

    members = {
        next(iter(_literal_values(typing.get_type_hints(m)["type"]))): m
        for m in typing.get_args(types.ThinkingConfigParam)
    }
    if not isinstance(thinking, dict) or thinking.get("type") not in members:
        return f"`thinking.type`: Input should be {_choices(members)}"
    kind = thinking["type"]
    hints = typing.get_type_hints(members[kind])
    extra = next((k for k in thinking if k not in hints), None)
    if extra:
        return f"`thinking.{kind}.{extra}`: Extra inputs are not permitted"
    if "display" in thinking and thinking["display"] not in _literal_values(hints.get("display")):
        return f"`thinking.{kind}.display`: Input should be {_choices(_literal_values(hints.get('display')))}"
    if kind != "enabled":
        return None
    budget = thinking.get("budget_tokens")
    if not isinstance(budget, int) or isinstance(budget, bool) or budget < MIN_BUDGET:
        return f"thinking.enabled.budget_tokens: Input should be greater than or equal to {MIN_BUDGET}"
    if endpoint == "messages" and (not isinstance(body.get("max_tokens"), int) or body["max_tokens"] <= budget):
        return "`max_tokens` must be greater than `thinking.budget_tokens`"
    return None


def _output_config_shape(body: dict[str, Any], endpoint: Endpoint) -> str | None:
    """`output_config` against the SDK's OutputConfigParam: an effort level, a json_schema format."""
    if "output_config" not in body:
        return None
    config = body["output_config"]
    import anthropic.types as types

    hints = typing.get_type_hints(types.OutputConfigParam)
    if not isinstance(config, dict):
        return "`output_config`: Input should be an object"
    extra = next((k for k in config if k not in hints), None)
    if extra:
        return f"`output_config.{extra}`: Extra inputs are not permitted"
    levels = _literal_values(hints["effort"])
    if "effort" in config and config["effort"] not in levels:
        return f"`output_config.effort`: Input should be {_choices(levels)}"
    if "format" not in config:
        return None
    fmt, fields = config["format"], typing.get_type_hints(types.JSONOutputFormatParam)
    if not isinstance(fmt, dict) or fmt.get("type") not in _literal_values(fields["type"]):
        return f"`output_config.format.type`: Input should be {_choices(_literal_values(fields['type']))}"
    extra = next((k for k in fmt if k not in fields), None)
    if extra:
        return f"`output_config.format.{extra}`: Extra inputs are not permitted"
    if not isinstance(fmt.get("schema"), dict):
        return "`output_config.format.schema`: Field required"
    return None


def _choices(values: Iterable[Any]) -> str:
    return " or ".join(repr(v) for v in sorted(values, key=str))


# -- the per-model rules ------------------------------------------------------------------------------


def forces_tool(body: dict[str, Any]) -> bool:
    choice = body.get("tool_choice")
    return isinstance(choice, dict) and choice.get("type") in ("tool", "any")


def _model_rules(body: dict[str, Any], rules: ModelRules) -> str | None:
    limit = body.get("max_tokens")
    if isinstance(limit, int) and limit > rules.max_output:
        return (
            f"max_tokens: {limit} > {rules.max_output}, which is the maximum allowed number of output tokens "
            f"for {body['model']}"
        )
    thinking = body.get("thinking")
    kind = thinking.get("type") if isinstance(thinking, dict) else None
    if kind is not None and kind not in rules.thinking_types:
        return f"`thinking.type: {kind}` is not supported for this model."
    on = thinking_on(body, rules)
    sampled = next((k for k in SAMPLING_KEYS if k in body), None)
    if sampled and not rules.sampling:
        return f"`{sampled}` is deprecated for this model."
    if on and body.get("temperature", 1) != 1:
        return "`temperature` may only be set to 1 when thinking is enabled"
    if forces_tool(body) and not rules.forced_tool:
        return "Forced tool use (`tool_choice` of type `tool` or `any`) is not supported for this model."
    if forces_tool(body) and on:
        return "Thinking may not be enabled when tool_choice forces tool use."
    given = body.get("output_config")
    config: dict[str, Any] = given if isinstance(given, dict) else {}
    if "effort" in config and config["effort"] not in rules.effort:
        return f"`output_config.effort: {config['effort']}` is not supported for this model."
    if not rules.structured_outputs:
        if "format" in config:
            return "`output_config.format`: structured outputs are not supported for this model."
        if any(isinstance(t, dict) and t.get("strict") for t in body.get("tools") or []):
            return "`strict` tools: structured outputs are not supported for this model."
    messages = body.get("messages")
    if (
        not rules.prefill
        and isinstance(messages, list)
        and messages
        and isinstance(messages[-1], dict)
        and messages[-1].get("role") == "assistant"
    ):
        return "This model does not support assistant message prefill. The conversation must end with a user message."
    return None


def _thinking_sent_back(body: dict[str, Any], rules: ModelRules, signer: ThinkingSigner | None) -> str | None:
    """With thinking on, each assistant turn that called tools starts with its reply's thinking blocks;
    every thinking block sent back must be unmodified (its signature verifies)."""
    on = thinking_on(body, rules)
    for i, message in enumerate(body.get("messages") or []):
        if not isinstance(message, dict) or message.get("role") != "assistant":
            continue
        content = message.get("content")
        blocks = [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []
        leading = 0
        while leading < len(blocks) and blocks[leading].get("type") in ("thinking", "redacted_thinking"):
            leading += 1
        for j, block in enumerate(blocks):
            if block.get("type") not in ("thinking", "redacted_thinking") or signer is None:
                continue
            if j >= leading or not signer.verifies(block, j):
                return f"messages.{i}.content.{j}: Invalid `signature` in `{block['type']}` block"
        if on and not leading and any(b.get("type") == "tool_use" for b in blocks):
            return (
                f"messages.{i}.content.0.type: Expected `thinking` or `redacted_thinking`, but found "
                f"`{blocks[0].get('type')}`. When `thinking` is enabled, a final `assistant` message must "
                "start with a thinking block (preceding the lastmost set of `tool_use` and `tool_result` "
                "blocks). We recommend you include thinking blocks from previous turns. To avoid this "
                "requirement, disable `thinking`."
            )
    return None


# -- GET /v1/models -----------------------------------------------------------------------------------


def capabilities(rules: ModelRules) -> dict[str, Any]:
    """`ModelCapabilities` as `GET /v1/models` states the rules (the tools and inputs: as current models)."""

    def yes(flag: bool = True) -> dict[str, bool]:
        return {"supported": flag}

    thinks = bool(rules.thinking_types & THINKING_ON)
    effort: dict[str, Any] = {level: yes(level in rules.effort) for level in _ALL_EFFORT}
    return {
        "batch": yes(),
        "citations": yes(),
        "code_execution": yes(),
        "image_input": yes(),
        "pdf_input": yes(),
        "context_management": yes(),
        "structured_outputs": yes(rules.structured_outputs),
        "effort": {**effort, "supported": bool(rules.effort)},
        "server_tools": {**yes(), "code_execution": yes(), "web_search": yes()},
        "thinking": {
            **yes(thinks),
            "types": {
                kind: yes(kind in rules.thinking_types) for kind in ("adaptive", "between_tools", "disabled", "enabled")
            },
        },
    }
