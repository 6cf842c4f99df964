"""Whose fault a refused request is. A 400 that evalkit's own request shape caused (the judge's, the
extraction's, a prompt target's request as evalkit builds it) would be refused again for every case:
the run stops at the first one, saying it is evalkit's fault (exit 3). A 400 that names a setting of
the user's suite stops it too, naming the setting (exit 2). What one case's own content caused (a
prompt too long, an empty message) or what agent code asked for itself stays that case's error row."""

from __future__ import annotations

import re
from dataclasses import dataclass

from evalkit.errors import EvalkitError, ProviderError, RefusedRequest, RefusedSetting
from evalkit.llm.providers.interface import ModelRequest

# A case's own content, not the request's shape: that case's error row.
_CONTENT = re.compile(
    r"prompt is too long|too many (input )?tokens|context (window|length)|image|document|pdf", re.IGNORECASE
)
# A message about thinking blocks sent back is about how evalkit repeats a reply, whoever set thinking.
_REPLAYED = re.compile(r"Expected `?(redacted_)?thinking|signature", re.IGNORECASE)
# What the API says of a request's shape rather than its content: a prompt target's request that meets
# one of these would be refused for every case. Any other 400 of a prompt target (an empty message, a
# bad image) is about that case's content: its error row.
_SHAPE = re.compile(
    r"Extra inputs are not permitted|Field required|not supported for this model|deprecated for "
    r"this model|tool_choice|tool use|prefill|thinking|output_config|effort|temperature|top_[pk]|"
    r"max_tokens|strict",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class RunStop:
    """Why a run stopped sending requests, and the error its front door reports."""

    message: str
    evalkit_fault: bool

    def error(self) -> EvalkitError:
        return RefusedRequest(self.message) if self.evalkit_fault else RefusedSetting(self.message)


def _user_settings(request: ModelRequest) -> dict[str, str]:
    """The keys of a prompt target's request that come from the user's suite, with how to name them."""
    found = {"max_tokens": "max_tokens"}
    if request.temperature is not None:
        found["temperature"] = "temperature"
    if request.thinking is not None:
        found["thinking"] = "the target's `thinking`"
    if request.effort is not None:
        found["effort"] = "the target's `effort`"
    if request.tools:
        found["tools"] = "the target's `tools`"
    return found


def run_stop(exc: ProviderError, request: ModelRequest, role: str, evalkit_built: bool) -> RunStop | None:
    """The stop a refused request calls for, or None when it is one case's own error."""
    message = str(exc)
    if exc.status == 404 and re.search(r"\bmodel\b", message):
        return RunStop(
            f"model {request.model} was not found by the API ({message}): check the model id "
            "(`evalkit models` lists them) in --model / `model:` or --judge-model / `judge_model:`",
            evalkit_fault=False,
        )
    if exc.status != 400 or _CONTENT.search(message):
        return None
    if role == "target" and (not evalkit_built or not _SHAPE.search(message)):
        return None  # agent code built this request itself, or the case's content is refused: its error row
    if role == "target" and not _REPLAYED.search(message):
        for key, name in _user_settings(request).items():
            if re.search(rf"\b{re.escape(key)}\b", message):
                return RunStop(
                    f"model {request.model} refused {name} of this suite: {message}; change or "
                    f"remove it (`evalkit models` says what each model takes)",
                    evalkit_fault=False,
                )
    what = "a prompt target's request" if role == "target" else f"the {role} request"
    advice = (
        "choose another judge model (--judge-model / `judge_model:`)"
        if role != "target"
        else "choose another model (--model / `model:`)"
    )
    return RunStop(
        f"model {request.model} refused {what} as evalkit built it: {message}. This is evalkit's "
        f"fault, not your suite's: upgrade evalkit, or {advice}; `evalkit models` shows how evalkit "
        "asks each model",
        evalkit_fault=True,
    )
