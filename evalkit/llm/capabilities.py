"""What a model can be asked beyond a plain message: structured outputs (a reply that matches a JSON
schema by construction: a strict tool, or `output_config.format`) and extended thinking. The judge
and the extraction ask for their replies through structured outputs where the model supports them,
and through a plain forced tool elsewhere (evalkit.scoring.structured).

Where it comes from, best first:
1. the API itself (`GET /v1/models`, each model's `capabilities`), read with the lifecycles
   (evalkit.llm.model_lifecycle: one request, its answer kept a day beside the response cache);
2. evalkit's own table, `capabilities.json` (Anthropic's documentation; the file says which).
A model neither knows is unknown (None): the judge then forces a tool, which every model takes."""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources
from typing import Any, Mapping

from evalkit.llm.model_lifecycle import LifecycleTable


@dataclass(frozen=True)
class Capabilities:
    """One model's support for structured outputs and extended thinking; None: not known."""

    structured_outputs: bool | None = None
    thinking: bool | None = None
    source: str = "unknown"


UNKNOWN = Capabilities()


def bundled() -> dict[str, Capabilities]:
    """evalkit's own table."""
    raw = json.loads(resources.files("evalkit.llm").joinpath("capabilities.json").read_text(encoding="utf-8"))
    source = f"evalkit table {raw['as_of']}"
    return {model: _entry(info, source) for model, info in raw["models"].items()}


def _flag(value: Any) -> bool | None:
    return value if isinstance(value, bool) else None


def _entry(info: Mapping[str, Any], source: str) -> Capabilities:
    return Capabilities(_flag(info.get("structured_outputs")), _flag(info.get("thinking")), source)


def from_api(answer: Mapping[str, Mapping[str, Any]], source: str) -> dict[str, Capabilities]:
    """The models whose entry in the API's answer (as `fetch_lifecycles` keeps it) says what they
    support; an entry without it (an answer saved by an older evalkit) is left to the table."""
    out = {}
    for model, info in answer.items():
        entry = _entry(info, source)
        if entry.structured_outputs is not None or entry.thinking is not None:
            out[model] = entry
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
                    known.update(from_api(*answer))
            self._known = known
        return self._known

    def of(self, model: str) -> Capabilities:
        return self.known().get(model, UNKNOWN)
