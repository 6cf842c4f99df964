"""What a callable target sends, for `evalkit plan`: the target is run with a stand-in for the
model that records each request and answers it from the response cache, or with an empty reply.

A callable target renders its prompts in its own code, so without running it the plan can only
guess their size (the case input's length plus 200 tokens: ~216 for pace-ai's coaching prompts,
which render to 851-1,094). Run this way, the first request of a run is exactly the one a real run
sends (same model, system, max_tokens and cache key); requests after an empty reply depend on it
and may differ. The target's own code runs, with no model and no key: a target that does other
costly or outward work before its first call does it here too.

A prompt target with `tools:` is run the same way: its tool loop (evalkit/run/tool_loop.py) against
the stand-in, each tool call answered as a run answers it (the case's scripted `tool_results:`, else
the tool's `function:`, called here in this process). While every reply comes from the cache the
loop is followed exactly, requests and trajectory; the first reply the cache lacks is stood in for
with an empty final answer, which ends the loop (the plan estimates the turns after it)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from evalkit._runtime.import_names import import_object
from evalkit._runtime.user_calls import DaemonPool, tool_answer
from evalkit.errors import EvalkitError, one_line
from evalkit.llm.cache import ResponseCache
from evalkit.llm.client import ModelClient
from evalkit.llm.providers.interface import ModelRequest, ModelResponse
from evalkit.run.conversation import Scored, run_conversation, target_prompt
from evalkit.run.scored_run import trajectory
from evalkit.run.targets import CaseTarget, Messages, TargetCall, resolve_target, target_executor
from evalkit.run.tool_loop import ToolBox, ToolOutcome
from evalkit.suite.model import Case, Suite, Turn
from evalkit.trace.steps import Step


@dataclass
class Loop:
    """One call of the target (a conversation has one per answered user turn): how many requests it
    sent, and whether the stand-in answered one of them (`cut`: what followed is not known)."""

    requests: int
    cut: bool


@dataclass
class TurnSeen:
    """A conversation turn's reply as its scoring reads it (evalkit/run/conversation.py)."""

    turn: Turn
    reply: str
    truncated: bool
    messages: Messages  # the messages the reply answered
    trace: list[Step] | None  # the turn's own steps (its tool calls)
    known: bool  # every reply up to this one came from the cache: the reply is the run's


@dataclass
class DryRun:
    """One run of a callable target (or of a prompt target with tools) against the stand-in."""

    requests: list[tuple[str, ModelRequest]] = field(default_factory=list)  # (cache key, request), in order
    output: Any = None  # the real output, when every reply came from the cache (`known`)
    known: bool = False
    truncated: bool = False
    facts: dict[str, Any] | None = None  # what the target returned as facts (also on empty replies)
    trace: list[Step] | None = None  # the run's trajectory, when its output is known (the judge sees it)
    loops: list[Loop] = field(default_factory=list)  # per call of the target, in order
    turns: list[TurnSeen] = field(default_factory=list)  # a conversation's scored turns, in order
    messages: Messages = field(default_factory=list)  # a conversation: the messages its final reply answered
    failed: bool = False  # the target failed with every reply from the cache: a run fails too (no scoring)


class _StandIn:
    """A provider that never calls a model: cached replies, else an empty one."""

    name = "evalkit-plan"

    def __init__(self, cache: ResponseCache | None, repeat: int):
        self.cache, self.repeat = cache, repeat
        self.requests: list[tuple[str, ModelRequest]] = []
        self.stood_in = False

    async def generate(self, request: ModelRequest) -> ModelResponse:
        key = request.cache_key(self.repeat)  # a target's requests carry its run's repeat (never a sample)
        self.requests.append((key, request))
        hit = self.cache.get(key) if self.cache is not None else None
        if hit is not None:
            return hit
        self.stood_in = True
        return ModelResponse(text="", model=request.model, stop_reason="end_turn")

    async def aclose(self) -> None:
        return None


def _tool_functions(suite: Suite) -> Any:
    """A tool's `function:` called in this process, its answer shaped as the runner's worker shapes it."""
    timeout = suite.timeout.target

    async def run_function(function: str, arguments: dict[str, Any]) -> ToolOutcome:
        try:
            fn = import_object(function, suite.dir)
        except ValueError as exc:
            return ToolOutcome(error=f"tool {function}: {one_line(exc)}")
        except Exception as exc:  # noqa: BLE001 - the tool's module raised as it was imported
            return ToolOutcome(error=f"tool's module raised {type(exc).__name__}: {one_line(exc)}")
        loop = asyncio.get_running_loop()
        try:
            if asyncio.iscoroutinefunction(fn):
                produced = await asyncio.wait_for(fn(**arguments), timeout)
            else:
                produced = await asyncio.wait_for(
                    loop.run_in_executor(target_executor.get(), lambda: fn(**arguments)), timeout)
        except TimeoutError:
            return ToolOutcome(error=f"tool {function} timed out after {timeout:g} s")
        except Exception as exc:  # noqa: BLE001 - a tool's failure is told to the model
            return ToolOutcome(error=f"{type(exc).__name__}: {one_line(exc)}")
        result, problem = tool_answer(produced)
        return ToolOutcome(result=result) if problem is None else ToolOutcome(error=problem)

    return run_function


def _toolbox(suite: Suite, case: Case) -> ToolBox | None:
    """As the runner builds it (Runner._toolbox), with the tools' functions called in this process."""
    target = suite.target
    if target is None or target.function is not None or not target.tools:
        return None
    return ToolBox(target.tools, case.tool_results, _tool_functions(suite))


async def _dry_run(target: CaseTarget, suite: Suite, case: Case, repeat: int, tiers: dict[str, str],
                   *, cache: ResponseCache | None) -> DryRun:
    stand_in = _StandIn(cache, repeat)
    # No cache in the client: the stand-in's empty replies must never be stored as answers.
    client = ModelClient(stand_in, concurrency=1)
    bound = client.bind(model=tiers["high"], repeat=repeat, max_tokens=suite.max_tokens,
                        temperature=suite.temperature, tiers=tiers)
    toolbox = _toolbox(suite, case)
    loops: list[Loop] = []
    turns: list[TurnSeen] = []

    async def call(messages: Messages | None = None) -> TargetCall:
        """One call of the target, as the runner makes it (a conversation's turn keeps its own steps)."""
        before, sent, stood = len(bound.recorder.steps), len(stand_in.requests), stand_in.stood_in
        stand_in.stood_in = False
        called = await target.call(case.input, bound, suite.timeout.target, messages=messages, toolbox=toolbox)
        loops.append(Loop(len(stand_in.requests) - sent, stand_in.stood_in))
        stand_in.stood_in = stand_in.stood_in or stood
        if messages is not None and called.trace is None:
            recorded = trajectory(called, bound, target)
            called.trace = recorded[before:] if recorded is not None else None
        return called

    if case.turns:  # every turn, each reply the stand-in's (or the cache's): nothing is scored here
        def seen(turn: Turn, called: TargetCall, reply: str, truncated: bool,
                 messages: Messages) -> asyncio.Future[Scored]:
            # Kept as the turn ends (not when a scoring task would run): `known` is of this turn.
            turns.append(TurnSeen(turn, reply, truncated, messages, called.trace, not stand_in.stood_in))
            done: asyncio.Future[Scored] = asyncio.get_running_loop().create_future()
            done.set_result(([], None))
            return done

        def truncation() -> bool:
            stopped, bound.truncated = bound.truncated, False
            return stopped

        talked = await run_conversation(case, target_prompt(suite.target, case.input), call, seen, truncation)
        called, bound.truncated = talked.final, talked.truncated
        trace = called.trace
        messages = talked.messages
    else:
        called = await call()
        trace = trajectory(called, bound, target)  # as the run keeps it: the target's own, else what the client recorded
        messages = []
    known = called.error is None and not stand_in.stood_in
    return DryRun(requests=stand_in.requests, output=called.output if known else None, known=known,
                  truncated=bound.truncated, facts=called.facts if called.error is None else None,
                  trace=trace if known else None, loops=loops, turns=turns, messages=messages,
                  failed=called.error is not None and not stand_in.stood_in)


def tool_loop(suite: Suite) -> bool:
    """The suite's target is a prompt target with tools: its runs are dry run too."""
    return suite.target is not None and suite.target.function is None and bool(suite.target.tools)


def dry_runs(suite: Suite, runs: list[tuple[Case, int]], tiers: dict[str, str],
             cache: ResponseCache | None) -> dict[tuple[str, int], DryRun]:
    """(case id, repeat) -> what the suite's callable target sent in that run; {} if it cannot be loaded."""
    if suite.target is None or (suite.target.function is None and not tool_loop(suite)) or not runs:
        return {}
    try:
        target = resolve_target(suite.target, suite.dir)
    except EvalkitError:
        return {}  # `validate` and `run` name the problem; the plan falls back to its guess

    async def every() -> dict[tuple[str, int], DryRun]:
        # As in a run: a synchronous target runs in a daemon thread, so one that hangs past the
        # suite's target timeout is left behind instead of holding `plan` at the loop's shutdown.
        pool = DaemonPool(2, "evalkit-plan-target")
        token = target_executor.set(pool)
        try:
            return {(case.id, r): await _dry_run(target, suite, case, r, tiers, cache=cache) for case, r in runs}
        finally:
            target_executor.reset(token)
            pool.shutdown(wait=False, cancel_futures=True)

    return asyncio.run(every())


def dry_run_missing(suite: Suite, planned: list[tuple[Case, int]], tiers: dict[str, str],
                    cache: ResponseCache | None, dry: dict[tuple[str, str, int], DryRun]) -> None:
    """Run the suite's callable target, or its prompt target with tools (with a stand-in for the
    model), for the runs not yet in `dry`, keyed (suite path, case id, repeat)."""
    if suite.target is None or (suite.target.function is None and not tool_loop(suite)):
        return
    missing = [(case, r) for case, runs in planned for r in range(runs) if (str(suite.path), case.id, r) not in dry]
    for (case_id, r), seen in dry_runs(suite, missing, tiers, cache).items():
        dry[(str(suite.path), case_id, r)] = seen
