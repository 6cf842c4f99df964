"""What a callable target sends, for `evalkit plan`: the target is run with a stand-in for the
model that records each request and answers it from the response cache, or with an empty reply.

A callable target renders its prompts in its own code, so without running it the plan can only
guess their size (the case input's length plus 200 tokens: ~216 for pace-ai's coaching prompts,
which render to 851-1,094). Run this way, the first request of a run is exactly the one a real run
sends (same model, system, max_tokens and cache key); requests after an empty reply depend on it
and may differ. The target's own code runs, with no model and no key: a target that does other
costly or outward work before its first call does it here too."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from evalkit.llm.cache import ResponseCache
from evalkit.llm.client import ModelClient
from evalkit.errors import EvalkitError
from evalkit.llm.providers.interface import ModelRequest, ModelResponse
from evalkit.suite.model import Case, Suite
from evalkit._runtime.user_calls import DaemonPool
from evalkit.run.conversation import run_conversation
from evalkit.run.runner import UNANSWERED
from evalkit.run.targets import call_target, resolve_target, target_executor
from evalkit.trace.steps import Step


@dataclass
class DryRun:
    """One run of a callable target against the stand-in."""

    requests: list[tuple[str, ModelRequest]] = field(default_factory=list)  # (cache key, request), in order
    output: Any = None  # the real output, when every reply came from the cache (`known`)
    known: bool = False
    truncated: bool = False
    facts: dict[str, Any] | None = None  # what the target returned as facts (also on empty replies)
    trace: list[Step] | None = None  # the run's trajectory, when its output is known (the judge sees it)


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


async def _dry_run(fn: Any, suite: Suite, case: Case, repeat: int, tiers: dict[str, str],
                   cache: ResponseCache | None) -> DryRun:
    stand_in = _StandIn(cache, repeat)
    # No cache in the client: the stand-in's empty replies must never be stored as answers.
    client = ModelClient(stand_in, concurrency=1)
    bound = client.bind(model=tiers["high"], repeat=repeat, max_tokens=suite.max_tokens,
                        temperature=suite.temperature, tiers=tiers)
    if case.turns:  # every turn, each reply the stand-in's (or the cache's): nothing is scored here
        async def unscored(*_: Any) -> tuple[list[Any], None]:
            return [], None

        def truncation() -> bool:
            stopped, bound.truncated = bound.truncated, False
            return stopped

        talked = await run_conversation(case, None, lambda messages: call_target(
            fn, case.input, bound, suite.timeout.target, messages=messages), unscored, truncation)
        called, bound.truncated = talked.final, talked.truncated
    else:
        called = await call_target(fn, case.input, bound, suite.timeout.target)
    known = called.error is None and not stand_in.stood_in
    trace = called.trace  # as the run keeps it (runner.trajectory): else the model calls the client recorded
    if trace is None and known:
        trace = bound.recorder.trajectory(UNANSWERED)
    return DryRun(requests=stand_in.requests, output=called.output if known else None, known=known,
                  truncated=bound.truncated, facts=called.facts if called.error is None else None,
                  trace=trace if known else None)


def dry_runs(suite: Suite, runs: list[tuple[Case, int]], tiers: dict[str, str],
             cache: ResponseCache | None) -> dict[tuple[str, int], DryRun]:
    """(case id, repeat) -> what the suite's callable target sent in that run; {} if it cannot be loaded."""
    if suite.target is None or suite.target.function is None or not runs:
        return {}
    try:
        fn = resolve_target(suite.target, suite.dir)
    except EvalkitError:
        return {}  # `validate` and `run` name the problem; the plan falls back to its guess

    async def every() -> dict[tuple[str, int], DryRun]:
        # As in a run: a synchronous target runs in a daemon thread, so one that hangs past the
        # suite's target timeout is left behind instead of holding `plan` at the loop's shutdown.
        pool = DaemonPool(2, "evalkit-plan-target")
        token = target_executor.set(pool)
        try:
            return {(case.id, r): await _dry_run(fn, suite, case, r, tiers, cache) for case, r in runs}
        finally:
            target_executor.reset(token)
            pool.shutdown(wait=False, cancel_futures=True)

    return asyncio.run(every())


def dry_run_missing(suite: Suite, planned: list[tuple[Case, int]], tiers: dict[str, str],
                    cache: ResponseCache | None, dry: dict[tuple[str, str, int], DryRun]) -> None:
    """Run the suite's callable target (with a stand-in for the model) for the runs not yet in `dry`,
    keyed (suite path, case id, repeat)."""
    if suite.target is None or suite.target.function is None:
        return
    missing = [(case, r) for case, runs in planned for r in range(runs) if (str(suite.path), case.id, r) not in dry]
    for (case_id, r), seen in dry_runs(suite, missing, tiers, cache).items():
        dry[(str(suite.path), case_id, r)] = seen
