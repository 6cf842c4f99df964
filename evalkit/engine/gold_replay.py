"""A gold output replayed offline through the suite's own code, as a run would treat it.

* **Facts**: a gold entry that records `facts:` has them recomputed. The suite's target runs on the
  case's input with a model that answers every call with the gold output, so the target's tools
  compute the facts afresh; a fact that differs from the recorded one is a problem (a tool changed).
* **Extraction**: a gold entry that records `fields:` has its extraction reply (`extraction:`, as a
  model gave it; `fields:` itself when none is recorded) sent through the run's extraction code
  (`extract_fields`: the request built from the suite's field specs, the reply read and validated);
  a reply that does not validate, or a value that differs from `fields:`, is a problem.

No network, no key: the only "model" is this module's replay provider.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any

from evalkit.checks.base import output_text
from evalkit.errors import ProviderError, TargetError
from evalkit.llm.client import ModelClient, RetryPolicy
from evalkit.llm.providers.interface import ModelRequest, ModelResponse
from evalkit.run.targets import resolve_target
from evalkit.scoring.extract import EXTRACT_TOOL, extract_fields
from evalkit.scoring.judge_input import JudgeInput, JudgeSettings
from evalkit.suite.model import GoldOutput, Suite

#: Seconds a target gets to recompute one gold output's facts (it makes no real model call).
TARGET_SECONDS = 60.0
_MODEL = "gold-replay"


@dataclass
class Replayed:
    """What the suite's own code makes of one gold output: the facts and fields a run would use."""

    facts: dict[str, Any]
    fields: dict[str, Any] | None
    problems: list[str] = field(default_factory=list)
    recomputed_facts: bool = False
    facts_as_written: bool = False  # the suite names no target: its gold facts are taken as written
    extraction: str = ""  # "recorded": the entry's `extraction:`; "fields": `fields:` as the reply; "": none


class _ReplayProvider:
    """Answers a target's calls with the gold output and the extraction call with the recorded reply."""

    name = "gold-replay"

    def __init__(self, text: str, extraction: dict[str, Any] | None):
        self.text = text
        self.extraction = extraction

    async def generate(self, request: ModelRequest) -> ModelResponse:
        forced = (request.tool_choice or {}).get("name")
        if forced == EXTRACT_TOOL:
            return ModelResponse(
                text="", model=request.model, tool_name=EXTRACT_TOOL, tool_input=self.extraction, stop_reason="tool_use"
            )
        if (request.output_format or {}).get("schema", {}).get("title") == EXTRACT_TOOL:  # the structured-output route
            return ModelResponse(text=json.dumps(self.extraction), model=request.model, stop_reason="end_turn")
        if request.tools:
            raise ProviderError("the target asks for a tool call: a gold output replays only as a text reply")
        return ModelResponse(text=self.text, model=request.model, stop_reason="end_turn")

    async def aclose(self) -> None:
        return None


def _client(text: str, extraction: dict[str, Any] | None) -> ModelClient:
    return ModelClient(_ReplayProvider(text, extraction), concurrency=1, retry=RetryPolicy(max_attempts=1))


async def replay(suite: Suite, gold: GoldOutput) -> Replayed:
    """The facts and fields a run would use for `gold`, computed by the suite's target and extraction code."""
    text = output_text(gold.output)
    result = Replayed(facts=dict(gold.facts), fields=gold.fields)
    if gold.facts:
        await _recompute_facts(suite, gold, text, result)
    if gold.fields is not None or gold.extraction is not None:
        await _replay_extraction(suite, gold, text, result)
    return result


async def _recompute_facts(suite: Suite, gold: GoldOutput, text: str, result: Replayed) -> None:
    case = suite.case(gold.case_id)
    if suite.target is None:  # nothing computes them (a suite the pytest plugin feeds): used as written
        result.facts_as_written = True
        return
    try:
        target = resolve_target(suite.target, suite.dir)
    except TargetError as exc:
        result.problems.append(f"facts cannot be recomputed: {exc}")
        return
    tiers = suite.tier_models()
    bound = _client(text, None).bind(model=tiers.get("high", _MODEL), max_tokens=suite.max_tokens, tiers=tiers)
    called = await target.call(case.input, bound, TARGET_SECONDS)
    if called.error:
        result.problems.append(f"facts cannot be recomputed: {called.error}")
        return
    result.recomputed_facts = True
    try:
        computed = json.loads(json.dumps(called.facts, default=str))
    except (TypeError, ValueError) as exc:
        result.problems.append(f"facts cannot be recomputed: the target's facts are not JSON ({exc})")
        return
    result.facts = computed
    result.problems += [f"fact {d}" for d in differences(gold.facts, computed)]


async def _replay_extraction(suite: Suite, gold: GoldOutput, text: str, result: Replayed) -> None:
    case = suite.case(gold.case_id)
    names = [n for n in (case.fields or list(suite.fields)) if n in suite.fields]
    if not names:
        return
    reply = gold.extraction if gold.extraction is not None else (gold.fields or {})
    result.extraction = "recorded" if gold.extraction is not None else "fields"
    bound = _client(text, reply).bind(model=suite.judge_model or _MODEL)
    values, error = await extract_fields(
        bound, JudgeInput(text, fields={n: suite.fields[n] for n in names}), JudgeSettings(suite.judge_model or _MODEL)
    )
    if error or values is None:
        result.problems.append(f"extraction: {error}")
        result.fields = None
        return
    result.fields = {**(gold.fields or {}), **values}
    if gold.fields is not None:
        for name in names:
            for d in differences(gold.fields.get(name), values.get(name), name):
                result.problems.append(f"extraction of {d}")


def differences(recorded: Any, computed: Any, path: str = "", limit: int = 5) -> list[str]:
    """Where `computed` differs from `recorded` ("acwr: recorded 1.1, now 1.25"), at most `limit`."""
    found: list[str] = []
    _diff(recorded, computed, path, found, limit)
    return found


def _diff(a: Any, b: Any, path: str, found: list[str], limit: int) -> None:
    if len(found) >= limit:
        return
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b), key=str):
            _diff(a.get(key), b.get(key), f"{path}.{key}" if path else str(key), found, limit)
    elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b)):
            _diff(x, y, f"{path}[{i}]", found, limit)
    elif not _equal(a, b):
        found.append(f"{path or 'value'}: recorded {_short(a)}, now {_short(b)}")


def _equal(a: Any, b: Any) -> bool:
    numbers = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (a, b))
    if numbers:
        return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9)
    if isinstance(a, str) and isinstance(b, str):
        return " ".join(a.split()) == " ".join(b.split())
    return type(a) is type(b) and a == b


def _short(value: Any) -> str:
    text = json.dumps(value, default=str, ensure_ascii=False)
    return text if len(text) <= 60 else text[:57] + "..."
