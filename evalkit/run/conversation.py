"""A conversation case's run: the target called once per user turn, in order, with the conversation
so far; a scripted assistant turn answers the user turn before it (a known state: that turn is put
in the history and not sent). Each reply the target gives is scored on its turn's own items as soon
as it is known, while the next turn runs.

What a run of it gives the runner: the final call (its reply is the run's output, the case's own
items score it), the whole conversation as the run's trace, and the turns' items and fields, named
"turn N: <item>" and "turn N.<field>" so that gates, reports and agreement read them unchanged. A
turn that fails (a template that does not render, a target error) makes the run an error row that
names the turn; no turn after it runs.

Bounded (evalkit/limits.py): a user turn's rendered message and the conversation it grows are measured
as each turn is rendered, here and wherever a turn is rendered (`validate`, `plan`), so each refuses
the same turn with the same line; the number of turns is checked when the suite loads."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any, Awaitable, Callable

from evalkit import limits
from evalkit.checks.base import output_text
from evalkit.errors import TargetError, one_line
from evalkit.results.report import ItemResult
from evalkit.run.targets import Messages, TargetCall
from evalkit.suite.model import Case, Target, Turn
from evalkit.suite.prompts import render_prompt, render_template
from evalkit.trace.steps import Step

# A user turn's reply, scored: its items and the fields extracted from it (None: the extraction failed).
# The scorer gets the turn, its call, the reply as text, whether it stopped at max_tokens, and the
# messages it answered.
Scored = tuple[list[ItemResult], dict[str, Any] | None]
TurnScorer = Callable[[Turn, TargetCall, str, bool, Messages], Awaitable[Scored]]
Caller = Callable[[Messages], Awaitable[TargetCall]]


@dataclass
class ConversationRun:
    """What the turns of one run gave (see the module's docstring)."""

    final: TargetCall  # the last turn's call, its facts those of every turn; or the error of the turn that failed
    truncated: bool = False  # the final reply stopped at max_tokens
    items: list[ItemResult] = field(default_factory=list)
    fields: dict[str, Any] = field(default_factory=dict)
    messages: Messages = field(default_factory=list)  # the conversation before the final reply


def target_prompt(target: Target | None, case_input: Any) -> Any:
    """The `prompt` variable of a turn's template: the prompt target's own template rendered over the
    case's input (None for a callable target). A template that does not render over this input is an
    error only for a turn that uses `prompt`."""
    if target is None or target.template is None:
        return None
    try:
        return render_prompt(target.template, case_input)
    except Exception as exc:  # TargetError for an undefined name; a sandbox refusal; any other
        from jinja2 import StrictUndefined  # jinja2 loads only when a template is used

        return StrictUndefined(hint=f"`prompt` (the target's template) does not render for this case: {one_line(exc)}")


def turn_variables(case: Case, turn: Turn, prompt: Any, outputs: list[str]) -> dict[str, Any]:
    """What a user turn's template sees."""
    return {"input": case.input, "prompt": prompt, "outputs": list(outputs), "turn": turn.number}


def render_turn(case: Case, turn: Turn, prompt: Any, outputs: list[str], *, before: int = 0) -> str:
    """A user turn's message; raises TargetError naming the turn, for a template that does not render
    or a message over the limits (`before`: the characters of the conversation before this turn)."""
    what = f"turn {turn.number}: template"
    try:
        text = render_template(turn.text, turn_variables(case, turn, prompt, outputs), what=what)
    except TargetError:
        raise
    except Exception as exc:  # the template's own bug (a type error in an expression): named, never a traceback
        raise TargetError(f"{what}: {type(exc).__name__}: {one_line(exc)}") from None
    if len(text) > limits.turn_max_chars():
        raise TargetError(
            f"turn {turn.number}: its message renders to {len(text):,} characters, over the limit "
            f"of {limits.turn_max_chars():,} (EVALKIT_TURN_MAX_CHARS raises it)"
        )
    if before + len(text) > limits.conversation_max_chars():
        raise TargetError(
            f"turn {turn.number}: the conversation grows to {before + len(text):,} characters with "
            f"it, over the limit of {limits.conversation_max_chars():,} (EVALKIT_CONVERSATION_MAX_CHARS "
            "raises it)"
        )
    return text


def size(messages: Messages) -> int:
    """The characters of a conversation's messages (text contents), as the limits count them."""
    return sum(len(m["content"]) for m in messages if isinstance(m.get("content"), str))


def _prefixed(turn: Turn, results: list[ItemResult]) -> list[ItemResult]:
    """Items not yet named by the turn (the built-in `complete`) get its prefix."""
    return [
        r
        if r.id.startswith(turn.prefix)
        else r.model_copy(update={"id": turn.prefix + r.id, "text": turn.prefix + r.text})
        for r in results
    ]


def _reply_steps(called: TargetCall, reply: str) -> list[Step]:
    """The steps a turn's call adds to the conversation's trace: its own trace spliced in (tool calls),
    without the user message it repeats, ending with the reply."""
    steps = [s for s in called.trace or [] if not (s.type == "message" and s.role == "user")]
    if not steps or steps[-1].type != "message" or steps[-1].role != "assistant":
        steps.append(Step.message("assistant", reply))
    return steps


async def run_conversation(
    case: Case, prompt: Any, call: Caller, score: TurnScorer, truncation: Callable[[], bool]
) -> ConversationRun:
    """Every turn of `case` in order (see the module's docstring). `call` runs the target on the
    messages so far; `truncation()` says, and forgets, whether the call just made stopped at max_tokens."""
    messages: Messages = []  # the conversation as text: what the scorer, the judge and the report see
    # What the target is sent: the same turns, a model's reply with the thinking blocks it came with.
    history: Messages = []
    outputs: list[str] = []
    steps: list[Step] = []
    facts: dict[str, Any] = {}
    scoring: list[tuple[Turn, asyncio.Task[Scored]]] = []
    last: TargetCall | None = None
    truncated = False
    try:
        for turn in case.turns:
            if turn.role == "assistant":  # a known earlier reply: no call
                messages.append({"role": "assistant", "content": turn.text})
                history.append({"role": "assistant", "content": turn.text})
                outputs.append(turn.text)
                steps.append(Step.message("assistant", turn.text))
                continue
            try:
                text = render_turn(case, turn, prompt, outputs, before=size(messages))
            except TargetError as exc:
                return ConversationRun(final=TargetCall(error=str(exc), trace=steps))
            messages.append({"role": "user", "content": text})
            history.append({"role": "user", "content": text})
            steps.append(Step.message("user", text))
            if turn.scripted:  # the next turn, scripted, answers it
                continue
            called = await call([dict(m) for m in history])
            truncated = truncation()
            if called.error is not None:
                return ConversationRun(
                    final=TargetCall(
                        error=f"turn {turn.number}: {called.error}",
                        traceback=called.traceback,
                        prompt=text,
                        trace=steps,
                    )
                )
            reply = output_text(called.output)
            steps.extend(_reply_steps(called, reply))
            facts.update(called.facts)
            # A cut-off reply fails its turn's `complete` check (the final reply's is the case's own).
            if turn.items or turn.fields or (truncated and turn is not case.turns[-1]):
                scoring.append((turn, asyncio.ensure_future(score(turn, called, reply, truncated, list(messages)))))
            messages.append({"role": "assistant", "content": reply})
            history.append({"role": "assistant", "content": called.content or reply})
            outputs.append(reply)
            last = called
        assert last is not None, "the loader requires a conversation to end with a user turn"
        result = ConversationRun(
            final=TargetCall(output=last.output, facts=facts, prompt=last.prompt, trace=steps),
            truncated=truncated,
            messages=messages[:-1],
        )
        for turn, task in scoring:
            items, fields = await task
            result.items += _prefixed(turn, items)
            result.fields.update({turn.field_key(name): value for name, value in (fields or {}).items()})
        return result
    finally:
        for _, task in scoring:  # a turn that failed, or a cancelled run: the scoring left is not wanted
            task.cancel()
