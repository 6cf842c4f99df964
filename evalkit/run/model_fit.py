"""Whether each model of a run takes what the run would send it, decided before the first call from
the models' capabilities (evalkit.llm.capabilities): a user's sampling parameter, a prompt target's
`thinking:`, the judge's route (evalkit.scoring.structured), and each request's `max_tokens` against the
model's own maximum (its `max_tokens` in `GET /v1/models`, else evalkit's dated table): a target's
`max_tokens`, and the judge's request (its verdicts' allowance plus the room for its thinking). A target's `effort:` is a hint: a
model that lists no such level is sent none, and `validate` and `plan` say so. A refusal here costs
nothing; the same refusal from the API would cost every target call before it and end as a 400 per
case. `run`, `plan`, `validate` and `calibrate` ask the same questions."""

from __future__ import annotations

from typing import Any, Callable, Iterable, Mapping

from evalkit.errors import UsageError
from evalkit.llm.capabilities import Capabilities, effort_for
from evalkit.scoring.structured import NoRoute, field_tokens, refuse_unroutable, route_for, verdict_tokens
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
    limit = (target.max_tokens if target is not None and target.max_tokens else None) or suite.max_tokens
    if caps.max_tokens is not None and limit > caps.max_tokens:
        problems.append(
            f"`max_tokens: {limit}`: model {target_model} writes at most {caps.max_tokens:,} output "
            f"tokens (its maximum, from the {caps.source}); lower max_tokens"
        )
    temperature = target.temperature if target is not None and target.temperature is not None else suite.temperature
    if temperature is not None and caps.sampling is not True:
        why = (
            'takes no sampling parameters (current models answer 400 "`temperature` is deprecated for this model.")'
            if caps.sampling is False
            else "is not known to take sampling parameters"
        )
        problems.append(
            f"`temperature: {temperature:g}`: model {target_model} {why}; remove `temperature:` (judge "
            "noise and target noise are what `repeats`, `judge_repeats` and `calibrate` measure)"
        )
    if target is not None and target.thinking is not None:
        kind = str(target.thinking.get("type"))
        if caps.takes(kind) is False:
            takes = (
                ", ".join(t for t in ("adaptive", "enabled", "disabled", "between_tools") if caps.takes(t)) or "none"
            )
            shown = "{budget_tokens: ...}" if kind == "enabled" else kind
            problems.append(
                f"`thinking: {shown}`: model {target_model} does not take thinking type {kind} (it takes: {takes})"
            )
    return problems


def refuse_unfit(
    suites: Iterable[Suite], model: str | None, judge_model: str | None, capabilities: CapabilitiesOf
) -> None:
    """UsageError (one line, before any call) for the first setting a model of the run would refuse,
    or NoRoute for a judge model evalkit cannot ask."""
    suites = list(suites)
    refuse_unroutable(suites, judge_model, capabilities)
    for suite in suites:
        for target_model in target_models(suite, model, judge_model):
            problems = setting_problems(suite, target_model, capabilities(target_model))
            if problems:
                raise UsageError(f"{suite.path}: {problems[0]}")
        problem = judge_problem(suite, judge_model, capabilities)
        if problem:
            raise UsageError(f"{suite.path}: {problem}")


def judge_reply_tokens(suite: Suite) -> int:
    """The judge's own allowance on the suite's largest judged reply (0: nothing is judged): its
    verdicts, and the fields when the same call extracts them."""
    most = max(
        (
            sum(1 for it in items if it.judge is not None)
            for case in suite.cases
            for items in [case.items, *(t.items for t in case.turns)]
        ),
        default=0,
    )
    if not most:
        return 0
    return verdict_tokens(most) + (field_tokens(suite.fields.values()) if suite.fields else 0)


def judge_problem(suite: Suite, judge_model: str | None, capabilities: CapabilitiesOf) -> str | None:
    """Why the judge model would refuse the judge's request for its size: its verdicts' allowance plus
    the room for thinking (`judge_thinking`'s budget, or the room its own thinking gets) over the most
    output tokens the model writes."""
    judge = suite.tier_models(None, judge_model)["low"]
    caps = capabilities(judge)
    reply = judge_reply_tokens(suite)
    if caps.max_tokens is None or not reply:
        return None
    try:
        room = route_for(caps, suite.judge_thinking).room
    except NoRoute:
        return None  # refuse_unroutable says why
    if reply + room <= caps.max_tokens:
        return None
    if suite.judge_thinking is not None:
        shown = ", ".join(f"{k}: {v}" for k, v in suite.judge_thinking.as_dict().items())
        return (
            f"`judge_thinking: {{{shown}}}`: the judge's request would ask model {judge} for {reply + room:,} "
            f"output tokens ({room:,} for thinking, {reply:,} for its verdicts), over its maximum of "
            f"{caps.max_tokens:,} (from the {caps.source}); lower judge_thinking, or choose another judge_model"
        )
    return (
        f"`judge_model: {judge}`: the judge's request would ask for {reply + room:,} output tokens, over the "
        f"model's maximum of {caps.max_tokens:,} (from the {caps.source}); choose another judge_model"
    )


def fit_warnings(
    suites: Iterable[Suite],
    model: str | None,
    judge_model: str | None,
    capabilities: CapabilitiesOf,
    end_of_life: Mapping[str, str] | None = None,
) -> list[str]:
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
                warnings.append(
                    f"{suite.path}: `effort: {target.effort}` is not sent to model {target_model}, which "
                    f"lists no such effort level (it lists: {', '.join(caps.effort or ()) or 'none'})"
                )
            limit = (target.max_tokens if target is not None and target.max_tokens else None) or suite.max_tokens
            thinking = target.thinking if target is not None else None
            thinks = (thinking is None and capabilities(target_model).thinks_by_default is True) or (
                thinking is not None and thinking.get("type") != "disabled"
            )
            if thinks and limit < THINKING_MIN_MAX_TOKENS:
                warnings.append(
                    f"{suite.path}: model {target_model} thinks, and its thinking counts toward "
                    f"max_tokens ({limit}): raise max_tokens, or set the target's `effort:` or "
                    "`thinking:`"
                )
    return list(dict.fromkeys(warnings))
