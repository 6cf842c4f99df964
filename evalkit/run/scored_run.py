"""One run of a case: its target called (once per user turn of a conversation), the output
checked, judged and extracted, and the run's trace. The runner (evalkit/run/runner.py) decides
which runs happen and what becomes of their results."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, replace
from typing import Any

from evalkit.checks.base import CheckContext, output_text
from evalkit.errors import one_line
from evalkit.llm.client import BoundClient
from evalkit.results.report import ItemResult, RunResult
from evalkit.run.case_ends import jsonable
from evalkit.run.case_run import CaseRun
from evalkit.run.conversation import ConversationRun, run_conversation, target_prompt
from evalkit.run.stored import stored_output, stored_traceback
from evalkit.run.targets import CaseTarget, TargetCall
from evalkit.run.tool_loop import ToolBox, ToolOutcome
from evalkit.run.user_code import UserCode, is_plugin_check
from evalkit.scoring.grading import score_output
from evalkit.scoring.items import decide_items, truncated_item
from evalkit.suite.model import Case, Suite, Turn
from evalkit.trace.steps import Step


@dataclass(frozen=True)
class RunScorer:
    """Does one run of a case at a time; one for a whole run of evalkit, as its user code is."""

    user: UserCode  # the worker processes that call user code: plugins' checks, tools' functions
    target_overridden: bool  # `--target` replaced the suites' own targets (and their tools and prompts)

    async def run(
        self,
        suite: Suite,
        case: Case,
        target: CaseTarget,
        repeat: int,
        *,
        judge_model: str,
        client: BoundClient,
        t0: float,
        stage: list[str],
    ) -> RunResult:
        """One run of a case: its target called (once per user turn of a conversation), its output scored.
        `stage[0]` is set to what the run is doing."""
        turns = None
        if case.turns:
            stage[0] = "its conversation"
            turns = await self._conversation(suite, case, target, judge_model, client=client)
            called, client.truncated = turns.final, turns.truncated
        else:
            called = await target.call(case.input, client, suite.timeout.target, toolbox=self._toolbox(suite, case))
        # What `evalkit plan --results` counts callable targets by; the result is built at the end (as in
        # the runner's _run_case).
        run: dict[str, Any] = {
            "repeat": repeat,
            "target_requests": client.target_requests,
            "trace": turns.final.trace if turns else trajectory(called, client, target),
        }
        if called.error:
            return RunResult(
                **run,
                error=called.error,
                wall_seconds=round(time.perf_counter() - t0, 3),
                traceback=stored_traceback(called.traceback),
            )
        produced, facts, run["prompt"] = called.output, called.facts, called.prompt
        try:
            text = output_text(produced)
            run["facts"] = jsonable(facts)
        except (ValueError, RecursionError) as exc:  # circular, or nested past Python's limit
            return RunResult(
                **run,
                wall_seconds=round(time.perf_counter() - t0, 3),
                error=f"target returned what cannot be stored as JSON: {type(exc).__name__}: {one_line(exc)}",
            )
        run["output_chars"] = len(text)
        run["output"] = stored_output(text)
        truncated = run["truncated"] = client.truncated
        stage[0] = "its checks, judge and extraction"
        items, fields, run["extraction_error"] = await self._decide(
            CaseRun(
                suite,
                case,
                client,
                produced,
                text,
                facts=facts,
                trace=run["trace"],
                truncated=truncated,
                output_model=called.output_model,
                conversation=turns.messages if turns else None,
                earlier_fields=turns.fields if turns else None,
            ),
            judge_model,
        )
        if turns is not None:
            items = turns.items + items
            fields = {**turns.fields, **fields} if fields is not None else (turns.fields or None)
        run["items"], run["fields"] = items, fields
        return RunResult(**run, wall_seconds=round(time.perf_counter() - t0, 3))

    async def _conversation(
        self, suite: Suite, case: Case, target: CaseTarget, judge_model: str, *, client: BoundClient
    ) -> ConversationRun:
        """A conversation case's turns (evalkit/run/conversation.py), each reply scored on its turn's items."""
        if not target.takes_messages:
            return ConversationRun(
                final=TargetCall(
                    error=f"target {target.name} takes no `messages` parameter, which a conversation case needs"
                )
            )

        async def score(
            turn: Turn, called: TargetCall, reply: str, truncated: bool, messages: list[dict[str, Any]]
        ) -> tuple[list[ItemResult], dict[str, Any] | None]:
            view = replace(case, items=list(turn.items), fields=list(turn.fields))
            items, fields, _ = await self._decide(
                CaseRun(
                    suite,
                    view,
                    client,
                    called.output,
                    reply,
                    facts=called.facts,
                    trace=called.trace,
                    truncated=truncated,
                    output_model=called.output_model,
                    conversation=messages,
                ),
                judge_model,
            )
            return items, fields

        def truncation() -> bool:
            stopped, client.truncated = client.truncated, False
            return stopped

        async def call(messages: list[dict[str, Any]]) -> TargetCall:
            before = len(client.recorder.steps)
            called = await target.call(
                case.input, client, suite.timeout.target, messages=messages, toolbox=self._toolbox(suite, case)
            )
            if called.trace is None:  # what the client recorded of this turn's calls (tool loops, agent code)
                recorded = trajectory(called, client, target)
                called.trace = recorded[before:] if recorded is not None else None
            return called

        prompt = target_prompt(None if self.target_overridden else suite.target, case.input)
        return await run_conversation(case, prompt, call, score, truncation)

    async def _decide(
        self, run: CaseRun, judge_model: str
    ) -> tuple[list[ItemResult], dict[str, Any] | None, str | None]:
        """A run's items decided (judged, extracted, checked), its fields, its extraction error."""
        applicable, recorded = run.items()
        # The judge and the extraction: one call when both read this output (evalkit/scoring/grading.py).
        verdicts, fields, extract_error = await score_output(
            run.client, run.judge_input(applicable), run.judge_settings(judge_model)
        )
        ctx = run.check_context(fields)
        items = decide_items(
            run.case,
            applicable,
            recorded,
            ctx,
            verdicts,
            extract_error=extract_error,
            checked=await self._plugin_checks(applicable, ctx),
        )
        if run.truncated and run.suite.complete:
            items.append(truncated_item())
        return items, fields, extract_error

    def _toolbox(self, suite: Suite, case: Case) -> ToolBox | None:
        """How this case's tool calls are answered, for a prompt target with tools (else None)."""
        target = suite.target
        if target is None or not target.tools or self.target_overridden:
            return None

        async def run_function(function: str, arguments: dict[str, Any]) -> ToolOutcome:
            return await self.user.call_tool(function, suite.dir, arguments, suite.timeout.target)

        return ToolBox(target.tools, case.tool_results, run_function)

    async def _plugin_checks(self, applicable: list[Any], ctx: CheckContext) -> dict[str, ItemResult] | None:
        """The items decided by plugins' checks (user code), each decided in a worker process."""
        items = [
            it
            for it in applicable
            if it.check is not None and is_plugin_check(it.check) and not (it.check.needs_fields and ctx.fields is None)
        ]
        if not items:
            return None
        if len(items) == 1:
            return {items[0].id: await self.user.decide_check(items[0], ctx)}
        return {
            it.id: r for it, r in zip(items, await asyncio.gather(*(self.user.decide_check(it, ctx) for it in items)))
        }


UNANSWERED = "not answered: the target ended first"  # a recorded tool call the target never answered


def trajectory(called: TargetCall, client: BoundClient, target: CaseTarget) -> list[Step] | None:
    """The run's trace: the one the target returned, else the calls the client recorded, for a
    prompt target with tools and for agent code that offered the model tools or called it more than
    once (else None: one prompt and one reply, already stored as the run's prompt and output)."""
    if called.trace is not None:
        return called.trace
    return client.recorder.trajectory(UNANSWERED, tools=target.offers_tools)
