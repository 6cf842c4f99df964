"""What a model takes beyond a plain message, which decides how evalkit asks it for anything:
structured outputs (a strict tool, or `output_config.format`), which thinking types it accepts and
whether it thinks when `thinking` is left out, its effort levels, whether it takes a forced tool,
sampling parameters (`temperature`, `top_p`, `top_k`) and a prefilled assistant turn, and the most
output tokens (`max_tokens`) a request may ask of it.

Where it comes from, best first:
1. the API itself (`GET /v1/models`, each model's `capabilities`: structured outputs, thinking types,
   effort levels; and its `max_tokens`), read with the lifecycles (evalkit.llm.model_lifecycle: one request, its answer
   kept a day beside the response cache);
2. evalkit's own dated table, `capabilities.json`, with its sources. It covers every model id of the
   installed SDK's `anthropic.types.Model` (a test holds it to that), and it alone says what the API
   does not list: the thinking default, forced tool use, sampling parameters, prefill, Legacy.
What neither says is derived from the published rules where they allow it (a model that cannot turn
thinking off thinks by default and refuses a forced tool) and is otherwise unknown (None): evalkit
then asks in the way current models take (evalkit.scoring.structured), and refuses a user's
sampling parameter."""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from importlib import resources
from typing import Any, Mapping

from evalkit.llm.model_lifecycle import LifecycleTable

THINKING_TYPES = ("adaptive", "enabled", "disabled", "between_tools")
EFFORT_LEVELS = ("low", "medium", "high", "xhigh", "max")  # lowest first, as `output_config.effort` names them


@dataclass(frozen=True)
class Capabilities:
    """One model's capabilities; None wherever it is not known."""

    structured_outputs: bool | None = None
    thinking_types: frozenset[str] | None = None  # the thinking types the API accepts
    thinks_by_default: bool | None = None  # thinks (adaptive) when a request leaves `thinking` out
    effort: tuple[str, ...] | None = None  # `output_config.effort` levels, lowest first; () none
    forced_tool: bool | None = None  # takes tool_choice of type tool/any (with thinking off)
    sampling: bool | None = None  # takes temperature / top_p / top_k
    prefill: bool | None = None  # takes a request that ends with the assistant's turn
    legacy: str | None = None  # Anthropic calls it Legacy: the model it points to instead
    max_tokens: int | None = None  # the most output tokens a request may ask (`max_tokens`, thinking included)
    source: str = "unknown"

    @property
    def thinking(self) -> bool | None:
        """Whether the model thinks at all (extended or adaptive thinking)."""
        if self.thinking_types is None:
            return None
        return bool(self.thinking_types - {"disabled"})

    def takes(self, thinking_type: str) -> bool | None:
        return None if self.thinking_types is None else thinking_type in self.thinking_types

    @property
    def known(self) -> bool:
        return self.source != "unknown"

    def derived(self) -> "Capabilities":
        """The published rules applied where this entry is silent: a model whose thinking cannot be
        turned off thinks by default and takes no forced tool; one without thinking never thinks."""
        if self.thinking_types is None:
            return self
        can_stop = "disabled" in self.thinking_types or not self.thinking
        default = self.thinks_by_default
        if default is None and not can_stop:
            default = True
        if default is None and not self.thinking:
            default = False
        forced = self.forced_tool
        if forced is None and not can_stop:
            forced = False
        return replace(self, thinks_by_default=default, forced_tool=forced)


UNKNOWN = Capabilities()


def effort_for(effort: str | None, capabilities: Capabilities | None) -> str | None:
    """A user's `effort` as sent to a model: left out where the model is known not to list it."""
    if effort is None or capabilities is None or capabilities.effort is None:
        return effort
    return effort if effort in capabilities.effort else None


def table_info() -> dict[str, Any]:
    """evalkit's own table as written: `as_of`, `sources`, `models`."""
    return dict(json.loads(resources.files("evalkit.llm").joinpath("capabilities.json").read_text(encoding="utf-8")))


def bundled() -> dict[str, Capabilities]:
    """evalkit's own table."""
    raw = table_info()
    source = f"evalkit table {raw['as_of']}"
    return {model: _entry(info, source) for model, info in raw["models"].items()}


def _flag(value: Any) -> bool | None:
    return value if isinstance(value, bool) else None


def _types(value: Any) -> frozenset[str] | None:
    """Accepted thinking types from `{type: true|false}` (the table, the API's `thinking.types` as kept)."""
    if not isinstance(value, Mapping):
        return None
    return frozenset(t for t in THINKING_TYPES if value.get(t) is True)


def _levels(value: Any) -> tuple[str, ...] | None:
    if not isinstance(value, (list, tuple)):
        return None
    return tuple(level for level in EFFORT_LEVELS if level in value)


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def _entry(info: Mapping[str, Any], source: str) -> Capabilities:
    legacy = info.get("legacy")
    return Capabilities(
        structured_outputs=_flag(info.get("structured_outputs")),
        thinking_types=_types(info.get("thinking")),
        thinks_by_default=_flag(info.get("thinks_by_default")),
        effort=_levels(info.get("effort")),
        forced_tool=_flag(info.get("forced_tool")),
        sampling=_flag(info.get("sampling")),
        prefill=_flag(info.get("prefill")),
        legacy=legacy if isinstance(legacy, str) else None,
        max_tokens=_count(info.get("max_tokens")),
        source=source,
    )


def from_api(
    answer: Mapping[str, Mapping[str, Any]], source: str, table: Mapping[str, Capabilities] | None = None
) -> dict[str, Capabilities]:
    """The models whose entry in the API's answer (as `fetch_lifecycles` keeps it) says what they take,
    over `table`'s entry for what the API does not list. An entry without capabilities (an answer
    saved by an older evalkit) is left to the table."""
    out = {}
    for model, info in answer.items():
        api = _entry(info, source)
        if (
            api.structured_outputs is None
            and api.thinking_types is None
            and api.effort is None
            and api.max_tokens is None
        ):
            continue
        base = (table or {}).get(model, UNKNOWN)
        out[model] = replace(
            base,
            source=source,
            structured_outputs=api.structured_outputs
            if api.structured_outputs is not None
            else base.structured_outputs,
            thinking_types=api.thinking_types if api.thinking_types is not None else base.thinking_types,
            effort=api.effort if api.effort is not None else base.effort,
            max_tokens=api.max_tokens if api.max_tokens is not None else base.max_tokens,
        )
    return out


class CapabilityTable:
    """The capabilities a run decides by: the API's (with the lifecycles, when a key is set) over evalkit's table."""

    def __init__(self, lifecycles: LifecycleTable | None = None):
        self._lifecycles = lifecycles
        self._known: dict[str, Capabilities] | None = None

    def known(self) -> dict[str, Capabilities]:
        if self._known is None:
            known = bundled()
            if self._lifecycles is not None:
                answer = self._lifecycles.api_answer()
                if answer is not None:
                    known.update(from_api(*answer, table=known))
            self._known = {model: caps.derived() for model, caps in known.items()}
        return self._known

    def of(self, model: str) -> Capabilities:
        return self.known().get(model, UNKNOWN)
