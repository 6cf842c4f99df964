"""`evalkit plan` as a run: the runner runs the suites against a provider that never calls a model
(evalkit/engine/plan_provider.py), with the response cache read and never written, so the plan and
a run follow the same rules for which calls happen. The calls the provider answered are the ones a
run would pay for; the client counts the others (served from the cache, or shared) as it does in a run.

Where the plan cannot follow a run exactly, and what it does instead:
- a target whose code reads the model's reply (parses it as JSON, say) may fail on an estimated
  reply where a real one would not: a run of a target that raised after a reply that was estimated
  is scored as if the target had returned a reply of the estimated size (its facts unknown: `{}`);
  a target that fails with every reply from the cache (or before any call) fails in the plan too;
- a tool loop's turns depend on what the model decides: a loop the cache does not finish is counted
  as taking as many turns as the loops of the same case the cache finished took (their mean, rounded
  up), else TOOL_TURNS_GUESS; the runner stops it at the target's max_steps, as in a run.

Nothing is written: the runner's results go to a spool file it removes, and the response cache is
only read. A callable target's own code runs (in a worker, as in a run): a target that builds its
own API client instead of using the one evalkit gives it would reach the network, so the plan's run
has ANTHROPIC_BASE_URL pointed at an address that refuses (`REFUSING_URL`, the discard port) and no
ANTHROPIC_API_KEY in its environment, which its workers inherit."""

from __future__ import annotations

import asyncio
import json
import os
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator

from evalkit.engine.plan_provider import RUN_MARK, Answered, EstimatingProvider, RunMark
from evalkit.llm import BoundClient, CapabilityTable, ModelClient, ModelRequest, ModelResponse, ResponseCache
from evalkit.results import Report
from evalkit.run import CaseTarget, Runner, RunOptions, TargetCall, ToolBox
from evalkit.suite.model import Suite

# A tool loop whose replies are not cached: the model turns it is counted as taking.
TOOL_TURNS_GUESS = 3

REFUSING_URL = "http://127.0.0.1:9"


@contextmanager
def no_model_reachable() -> Iterator[None]:
    """The environment of the plan's run (and of the workers it starts): no key, a base URL that refuses."""
    saved = {name: os.environ.get(name) for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL")}
    os.environ.pop("ANTHROPIC_API_KEY", None)
    os.environ["ANTHROPIC_BASE_URL"] = REFUSING_URL
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


class ReadOnlyCache(ResponseCache):
    """The response cache as the plan reads it: an estimated reply is never stored as an answer; the
    distinct requests it answered are kept per suite (the plan's `cached`)."""

    def __init__(self, directory: Path):
        super().__init__(directory)
        self.hits: dict[str, set[str]] = {}

    def get(self, key: str) -> ModelResponse | None:
        hit = super().get(key)
        mark = RUN_MARK.get()
        if hit is not None and mark is not None:
            self.hits.setdefault(mark.suite, set()).add(key)
        return hit

    def put(self, key: str, response: ModelResponse) -> None:
        return None


@dataclass
class Loops:
    """A suite's tool loops (one per call of a prompt target with tools), and how many met an estimated reply."""

    made: int = 0
    estimated: int = 0


class StandInTarget(CaseTarget):
    """The suite's target, its calls and their scoring marked as the suite's (RUN_MARK); its failure
    after an estimated reply becomes an output of the estimated size: the failure may be the
    estimate's (a target that parses its reply), and a run with the model's reply goes on to scoring."""

    def __init__(
        self,
        inner: CaseTarget,
        suite: Suite,
        cache: ResponseCache | None,
        *,
        stand_in: Callable[[int], str],
        turns: dict[str, int],
    ):
        self.inner, self.suite, self.cache, self.stand_in = inner, suite, cache, stand_in
        self.turns = turns  # a case's input (JSON) -> the turns its loops the cache finished took
        self.finished: dict[str, list[int]] = {}  # a case's input -> the requests of each loop the cache finished
        self.name, self.takes_messages, self.offers_tools = inner.name, inner.takes_messages, inner.offers_tools
        self.stood_in = 0  # runs whose failure was put down to an estimated reply
        self.loops = Loops()
        self.rendered = 0  # a callable target's runs whose requests were made (and counted as made)
        self.unknown: list[Any] = []  # the inputs of a callable target's runs that failed before any call

    async def call(
        self,
        case_input: Any,
        client: BoundClient,
        timeout: float | None,
        *,
        messages: list[dict[str, Any]] | None = None,
        toolbox: ToolBox | None = None,
    ) -> TargetCall:
        # Set in the run's own task: the scoring that follows this call in it carries the mark too.
        case, suite_name = json.dumps(case_input, sort_keys=True, default=str), self.suite.name
        RUN_MARK.set(
            RunMark(
                self.suite.name,
                own_calls=self.inner.offers_tools
                or self.suite.target is None
                or self.suite.target.function is not None,
                loop_turns=self.turns.get(f"{suite_name}\0{case}"),
            )
        )
        before = len(client.target_requests)
        called = await self.inner.call(case_input, client, timeout, messages=messages, toolbox=toolbox)
        keys = client.target_requests[before:]
        estimated = any(self.cache is None or self.cache.get(k) is None for k in keys)
        callable_target = self.suite.target is None or self.suite.target.function is not None
        first = not any(m.get("role") == "assistant" for m in messages or [])  # a conversation's first turn
        if self.inner.offers_tools:
            self.loops.made += 1
            self.loops.estimated += estimated
            if not estimated and called.error is None:
                self.finished.setdefault(case, []).append(len(keys))
        if callable_target and keys and first:
            self.rendered += 1
        if callable_target and not keys and called.error is not None and first:
            # Failed before any call: perhaps only here (no key, no network); its calls are not known, and
            # it is counted as one call of the usual guess (priced by the plan), its output scored.
            self.unknown.append(case_input)
        elif called.error is None or not estimated:
            return called
        else:
            self.stood_in += 1
        return TargetCall(output=self.stand_in(client.max_tokens // 2))


@dataclass
class PlannedRun:
    """What the plan's run counted: the calls a run pays for, and the requests served otherwise."""

    answered: list[Answered]
    report: Report  # the run's (estimated) report: per suite, its usage counts the requests served free
    cached: dict[str, int]  # suite -> distinct requests answered by the response cache
    loops: dict[str, Loops]  # suite -> its tool loops
    rendered: dict[str, int]  # suite -> its callable target's runs whose requests were made
    unknown: dict[str, list[Any]]  # suite -> the inputs of its callable target's runs that failed before a call
    stood_in: int = 0  # target runs that failed after an estimated reply, scored with a stand-in output
    warnings: list[str] = field(default_factory=list)


def plan_run(
    suites: list[Suite], *, cache_dir: Path | None, capabilities: CapabilityTable | None = None, **options: Any
) -> PlannedRun:
    """Run `suites` against the estimating provider (`options`: RunOptions' model, judge_model,
    repeat, cases); the calls a run would make on the response cache in `cache_dir` (None: no cache).
    Where the cache finished some of a case's tool loops and not others, the run is made again with
    the others counted at the turns the finished ones took (known only once they have run)."""
    planned, finished = _run_once(suites, cache_dir, capabilities, {}, options)
    turns = {case: -(-sum(took) // len(took)) for case, took in finished.items()}
    if turns and any(loops.estimated for loops in planned.loops.values()):
        planned, _ = _run_once(suites, cache_dir, capabilities, turns, options)
    return planned


def _run_once(
    suites: list[Suite],
    cache_dir: Path | None,
    capabilities: CapabilityTable | None,
    turns: dict[str, int],
    options: dict[str, Any],
) -> tuple[PlannedRun, dict[str, list[int]]]:
    def loop_turns(request: ModelRequest) -> int:
        mark = RUN_MARK.get()
        return mark.loop_turns if mark is not None and mark.loop_turns is not None else TOOL_TURNS_GUESS

    provider = EstimatingProvider(out_tokens=lambda request: request.max_tokens // 2, loop_turns=loop_turns)
    cache = ReadOnlyCache(cache_dir) if cache_dir is not None else None
    client = ModelClient(provider, cache=cache, capabilities=capabilities)
    wrapped: list[StandInTarget] = []

    def wrap(suite: Suite, target: CaseTarget) -> CaseTarget:
        wrapped.append(StandInTarget(target, suite, cache, stand_in=provider.stand_in_output, turns=turns))
        return wrapped[-1]

    async def every() -> Report:
        try:
            return await Runner(client, RunOptions(wrap_target=wrap, **options)).run(suites)
        finally:
            await provider.aclose()

    with no_model_reachable():
        report = asyncio.run(every())
    loops: dict[str, Loops] = {}
    rendered: dict[str, int] = {}
    unknown: dict[str, list[Any]] = {}
    finished: dict[str, list[int]] = {}
    for target in wrapped:
        name = target.suite.name
        mine = loops.setdefault(name, Loops())
        mine.made += target.loops.made
        mine.estimated += target.loops.estimated
        rendered[name] = rendered.get(name, 0) + target.rendered
        unknown.setdefault(name, []).extend(target.unknown)
        for case, took in target.finished.items():
            finished.setdefault(f"{name}\0{case}", []).extend(took)
    cached = {name: len(keys) for name, keys in (cache.hits if cache else {}).items()}
    return PlannedRun(
        provider.answered,
        report,
        cached,
        loops,
        rendered,
        unknown,
        sum(t.stood_in for t in wrapped),
        list(client.warnings),
    ), finished
