"""`evalkit plan` as a run: the runner runs the suites against a provider that never calls a model
(evalkit/engine/plan_provider.py), with the response cache read and never written, so the plan and
a run follow the same rules for which calls happen. The calls the provider answered are the ones a
run would pay for; the client counts the others (served from the cache, or shared) as it does in a run.

Where the plan cannot follow a run exactly, and what it does instead:
- a target whose code reads the model's reply (parses it as JSON, say) may fail on an estimated
  reply where a real one would not: a run of a target that raised after a reply that was estimated
  is scored as if the target had returned a reply of the estimated size (its facts unknown: `{}`);
  a target that fails with every reply from the cache (or before any call) fails in the plan too;
- a tool loop's turns depend on what the model decides: the loop is counted as taking the turns
  `loop_turns` says (the estimate planning.py gives), not what a model would take.

Nothing is written: the runner's results go to a spool file it removes, and the response cache is
only read. A callable target's own code runs (in a worker, as in a run): a target that builds its
own API client instead of using the one evalkit gives it would reach the network, so the plan's run
has ANTHROPIC_BASE_URL pointed at an address that refuses (`REFUSING_URL`, the discard port) and no
ANTHROPIC_API_KEY in its environment, which its workers inherit."""

from __future__ import annotations

import asyncio
import os
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator

from evalkit.engine.plan_provider import Answered, EstimatingProvider
from evalkit.llm import BoundClient, CapabilityTable, ModelClient, ModelRequest, ModelResponse, ResponseCache, Usage
from evalkit.run import CaseTarget, Runner, RunOptions, TargetCall, ToolBox
from evalkit.suite.model import Suite

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
    """The response cache as the plan reads it: an estimated reply is never stored as an answer."""

    def put(self, key: str, response: ModelResponse) -> None:
        return None


class StandInTarget(CaseTarget):
    """The suite's target, whose failure after an estimated reply becomes an output of the estimated
    size: the failure may be the estimate's (a target that parses its reply), and a run with the
    model's reply goes on to scoring."""

    def __init__(self, inner: CaseTarget, cache: ResponseCache | None, stand_in: Callable[[int], str]):
        self.inner, self.cache, self.stand_in = inner, cache, stand_in
        self.name, self.takes_messages, self.offers_tools = inner.name, inner.takes_messages, inner.offers_tools
        self.stood_in = 0  # runs whose failure was put down to an estimated reply

    async def call(self, case_input: Any, client: BoundClient, timeout: float | None, *,
                   messages: list[dict[str, Any]] | None = None, toolbox: ToolBox | None = None) -> TargetCall:
        before = len(client.target_requests)
        called = await self.inner.call(case_input, client, timeout, messages=messages, toolbox=toolbox)
        keys = client.target_requests[before:]
        if called.error is None or not any(self.cache is None or self.cache.get(k) is None for k in keys):
            return called
        self.stood_in += 1
        return TargetCall(output=self.stand_in(client.max_tokens // 2))


@dataclass
class PlannedRun:
    """What the plan's run counted: the calls a run pays for, and the requests served otherwise."""

    answered: list[Answered]
    usage: Usage  # the client's account: cache hits and shared replies as `cache_hits`
    stood_in: int = 0  # target runs that failed after an estimated reply, scored with a stand-in output
    warnings: list[str] = field(default_factory=list)


def plan_run(suites: list[Suite], *, cache_dir: Path | None, capabilities: CapabilityTable | None = None,
             out_tokens: Callable[[ModelRequest], int] | None = None,
             loop_turns: Callable[[ModelRequest], int] | None = None, **options: Any) -> PlannedRun:
    """Run `suites` against the estimating provider (`options`: RunOptions' model, judge_model,
    repeat, cases); the calls a run would make on the response cache in `cache_dir` (None: no cache)."""
    from evalkit.engine.planning import TOOL_TURNS_GUESS  # the plan's estimates, one place

    provider = EstimatingProvider(out_tokens=out_tokens or (lambda request: request.max_tokens // 2),
                                  loop_turns=loop_turns or (lambda request: TOOL_TURNS_GUESS))
    cache = ReadOnlyCache(cache_dir) if cache_dir is not None else None
    client = ModelClient(provider, cache=cache, capabilities=capabilities)
    wrapped: list[StandInTarget] = []

    def wrap(target: CaseTarget) -> CaseTarget:
        wrapped.append(StandInTarget(target, cache, provider.stand_in_output))
        return wrapped[-1]

    async def every() -> None:
        try:
            await Runner(client, RunOptions(wrap_target=wrap, **options)).run(suites)
        finally:
            await provider.aclose()

    with no_model_reachable():
        asyncio.run(every())
    return PlannedRun(provider.answered, client.usage, sum(t.stood_in for t in wrapped), list(client.warnings))
