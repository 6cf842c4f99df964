"""What the loopback fake's `GET /v1/models` lists: each model's `ModelInfo`, its capabilities and
lifecycle taken from the published rules (evalkit.testing.api_rules) unless a test's entry says otherwise."""

from __future__ import annotations

from typing import Any

from evalkit.testing.api_rules import MODEL_RULES, ModelRules, capabilities

# What `GET /v1/models` lists by default: every model of the published rules (evalkit.testing.api_rules),
# its capabilities and lifecycle as stated there. Tests set `fake.models` to list others; an entry
# there may give `lifecycle`, `retires_at`, `max_tokens`, and `structured_outputs` / `thinking` flags (false: the model
# lacks it; both left out: the table's capabilities for a model it knows, else `capabilities: null`).
# What requests a model is answered with follows the rules table, whatever the listing says.
DEFAULT_MODELS: list[dict[str, Any]] = [{"id": model} for model in MODEL_RULES]
_LINES = ("haiku", "sonnet", "opus", "fable", "mythos")


def model_info(entry: dict[str, Any]) -> dict[str, Any]:
    """A full `ModelInfo` payload for a listing entry (see DEFAULT_MODELS)."""
    model = str(entry["id"])
    rules = MODEL_RULES.get(model)
    lifecycle = entry.get("lifecycle", rules.lifecycle if rules else "active")
    retires_at = entry["retires_at"] if "retires_at" in entry else (rules.retires_at if rules else None)
    line = next((name for name in _LINES if model.startswith(f"claude-{name}")), None)
    return {
        "type": "model",
        "id": model,
        "display_name": model,
        "created_at": "2025-01-01T00:00:00Z",
        "lifecycle": lifecycle,
        "deprecated_at": "2025-10-01T00:00:00Z" if lifecycle != "active" else None,
        "retires_at": retires_at,
        "max_input_tokens": 200000,
        "max_tokens": entry.get("max_tokens", rules.max_output if rules else 64000),
        "capabilities": _capabilities(entry, rules),
        "line": line,
    }


def _capabilities(entry: dict[str, Any], rules: ModelRules | None) -> dict[str, Any] | None:
    """The entry's `ModelCapabilities`: from its flags when it has any, else the rules table's."""
    if "structured_outputs" not in entry and "thinking" not in entry:
        return capabilities(rules) if rules is not None else None
    thinking = bool(entry.get("thinking"))
    return capabilities(
        ModelRules(
            frozenset({"enabled", "disabled"} if thinking else {"disabled"}),
            ("low", "medium", "high", "max"),
            structured_outputs=bool(entry.get("structured_outputs")),
        )
    )
