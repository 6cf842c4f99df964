"""Whether each model of a run takes what the run would send it, decided before the first call from
the models' capabilities (evalkit.llm.capabilities): a user's sampling parameter, a prompt target's
`thinking:`, and the judge's route (evalkit.scoring.structured). A target's `effort:` is a hint: a
model that lists no such level is sent none, and `validate` and `plan` say so. A refusal here costs
nothing; the same refusal from the API would cost every target call before it and end as a 400 per
case. `run`, `plan`, `validate` and `calibrate` ask the same questions."""

from __future__ import annotations

from typing import Any, Callable, Iterable, Mapping

from evalkit.errors import UsageError
from evalkit.llm.capabilities import Capabilities, effort_for
from evalkit.scoring.structured import refuse_unroutable
from evalkit.suite.model import Suite

CapabilitiesOf = Callable[[str], Capabilities]
# Below this `max_tokens`, a target model that thinks may spend the reply's room on its thinking.
THINKING_MIN_MAX_TOKENS = 2048


def target_models(suite: Suite, model: str | None = None, judge_model: str | None = None) -> list[str]:
    """The models a run of `suite` sends target calls to: the command line's, else the prompt target's
    own or the suite's, and each of `compare_models`."""
    tiers = suite.tier_models(model, judge_model)
    first = model or (suite.target.model if suite.target is not None and suite.target.model else None) or tiers["high"]
    return list(dict.fromkeys([first, *([] if model else suite.compare_models)]))


def setting_problems(suite: Suite, target_model: str, caps: Capabilities) -> list[str]:
    """Why `target_model` would refuse the suite's own settings (each one line, naming the key)."""
    problems = []
    target = suite.target
    temperature = target.temperature if target is not None and target.temperature is not None else suite.temperature
    if temperature is not None and caps.sampling is not True:
        why = ("takes no sampling parameters (current models answer 400 \"`temperature` is deprecated for this "
               "model.\")" if caps.sampling is False else "is not known to take sampling parameters")
        problems.append(f"`temperature: {temperature:g}`: model {target_model} {why}; remove `temperature:` (judge "
                        "noise and target noise are what `repeats`, `judge_repeats` and `calibrate` measure)")
    if target is not None and target.thinking is not None:
        kind = str(target.thinking.get("type"))
        if caps.takes(kind) is False:
            takes = ", ".join(t for t in ("adaptive", "enabled", "disabled", "between_tools") if caps.takes(t)) or "none"
            shown = "{budget_tokens: ...}" if kind == "enabled" else kind
            problems.append(f"`thinking: {shown}`: model {target_model} does not take thinking type {kind} "
                            f"(it takes: {takes})")
    return problems


def refuse_unfit(suites: Iterable[Suite], model: str | None, judge_model: str | None,
                 capabilities: CapabilitiesOf) -> None:
    """UsageError (one line, before any call) for the first setting a model of the run would refuse,
    or NoRoute for a judge model evalkit cannot ask."""
    suites = list(suites)
    refuse_unroutable(suites, judge_model, capabilities)
    for suite in suites:
        for target_model in target_models(suite, model, judge_model):
            problems = setting_problems(suite, target_model, capabilities(target_model))
            if problems:
                raise UsageError(f"{suite.path}: {problems[0]}")


def fit_warnings(suites: Iterable[Suite], model: str | None, judge_model: str | None,
                 capabilities: CapabilitiesOf, end_of_life: Mapping[str, str] | None = None) -> list[str]:
    """What is worth saying before money is spent: deprecated models (`end_of_life`: model id to its
    date), Legacy models, and a target model that thinks under a small `max_tokens` (thinking counts
    toward it)."""
    warnings: list[str] = []
    for suite in suites:
        judge = suite.tier_models(model, judge_model)["low"]
        for name in dict.fromkeys([*target_models(suite, model, judge_model), judge]):
            caps = capabilities(name)
            if (end_of_life or {}).get(name):
                warnings.append(f"model {name} is deprecated: its end of life is {(end_of_life or {})[name]}")
            if caps.legacy:
                warnings.append(f"model {name} is Legacy at Anthropic: move to {caps.legacy}")
        for target_model in target_models(suite, model, judge_model):
            target: Any = suite.target
            caps = capabilities(target_model)
            if target is not None and target.effort is not None and effort_for(target.effort, caps) is None:
                warnings.append(f"{suite.path}: `effort: {target.effort}` is not sent to model {target_model}, which "
                                f"lists no such effort level (it lists: {', '.join(caps.effort or ()) or 'none'})")
            limit = (target.max_tokens if target is not None and target.max_tokens else None) or suite.max_tokens
            thinking = target.thinking if target is not None else None
            thinks = (thinking is None and capabilities(target_model).thinks_by_default is True) or (
                thinking is not None and thinking.get("type") != "disabled")
            if thinks and limit < THINKING_MIN_MAX_TOKENS:
                warnings.append(f"{suite.path}: model {target_model} thinks, and its thinking counts toward "
                                f"max_tokens ({limit}): raise max_tokens, or set the target's `effort:` or "
                                "`thinking:`")
    return list(dict.fromkeys(warnings))
