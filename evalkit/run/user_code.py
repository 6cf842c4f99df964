"""Where a run's user code runs: callable targets and the checks of plugins, in worker processes
(evalkit/workers/worker_main.py), so that nothing they do to their process — `os._exit(0)`, a signal, a
segfault in a C extension, a closed descriptor, a `chdir` — can end or change the run. A worker
that dies becomes an error row naming what happened; a new worker takes the next calls; the run
writes every result.

A worker runs many calls at once (threads for synchronous code, an event loop for async code),
as evalkit's own process did, so a run at concurrency 32 needs no 32 processes. When a worker
dies with several calls in it and cannot say which one ended it (a signal, a segfault), each of
those calls runs again alone in a worker of its own ("solo"): the one that ends its worker again
gets the error row; the others finish as if nothing had happened, and their model calls, already
made once, come back from the client's cache. `os._exit` says which call made it, so only that
call's row is an error and the others simply run again.

The model calls user code makes through its client come back here over the worker's socket and
are made by the run's own client (the case's BoundClient): one cache, one concurrency limit, one
retry layer, one account of calls and cost.
"""

from __future__ import annotations

import asyncio
import pickle
import signal
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from evalkit._runtime import queue_time
from evalkit.errors import one_line
from evalkit.run.targets import CaseTarget, TargetCall
from evalkit.run.tool_loop import ToolBox, ToolOutcome
from evalkit.scoring.items import decide_item, item_result
from evalkit.workers.link import PICKLE
from evalkit.workers.pool import TIMED_OUT, WorkerPool
from evalkit.workers.process import signal_name

if TYPE_CHECKING:
    from evalkit.checks.base import Check, CheckContext
    from evalkit.llm.client import BoundClient
    from evalkit.results.report import ItemResult
    from evalkit.suite.model import Item

_CRASHES = {
    signal.SIGSEGV: "a crash in native code",
    signal.SIGBUS: "a crash in native code",
    signal.SIGILL: "a crash in native code",
    signal.SIGFPE: "a crash in native code",
    signal.SIGABRT: "an abort",
    signal.SIGKILL: "killed from outside, or by the out-of-memory killer",
}


class WorkerTarget(CaseTarget):
    """A callable target (`module:function`) the run calls in its worker processes."""

    def __init__(self, spec: str, suite_dir: Path | None, user: UserCode, *, takes_messages: bool = True):
        self.spec, self.suite_dir, self.user = spec, suite_dir, user
        self.name = spec
        self.takes_messages = takes_messages  # its function takes `messages=` (a conversation case needs it)

    async def call(
        self,
        case_input: Any,
        client: BoundClient,
        timeout: float | None,
        *,
        messages: list[dict[str, Any]] | None = None,
        toolbox: ToolBox | None = None,
    ) -> TargetCall:
        return await self.user.call_target(self, case_input, client, timeout, messages=messages)


def is_plugin_check(check: Check) -> bool:
    """A check that is user code, or calls it (code_node's validators): run in a worker."""
    return not type(check).__module__.startswith("evalkit.") or check.calls_user_code


class UserCode:
    """The user code of one run: `call_target` and `decide_check` never raise for what it does;
    `close()` ends every worker."""

    def __init__(self, *, threads: int, warn: Callable[[str], None] = lambda message: None, size: int | None = None):
        self.pool = WorkerPool(threads=threads, warn=warn, size=size)

    async def close(self) -> None:
        await self.pool.close()

    async def call_target(
        self,
        target: WorkerTarget,
        case_input: Any,
        client: BoundClient,
        timeout: float | None,
        *,
        messages: list[dict[str, Any]] | None = None,
    ) -> TargetCall:
        """Run the target on one input in a worker (with `messages`, the conversation so far, for a
        conversation's turn); whatever happens is a TargetCall."""
        info = {
            "model": client.model,
            "tiers": dict(client.tiers),
            "max_tokens": client.max_tokens,
            "temperature": client.temperature,
            "repeat": client.repeat,
            "messages": messages,
        }
        try:
            payload = pickle.dumps(
                (target.spec, str(target.suite_dir) if target.suite_dir else None, case_input, info), PICKLE
            )
        except Exception as exc:  # the case's input comes from YAML or JSON: this does not happen
            return TargetCall(error=f"the case's input cannot be sent to the target's worker process: {one_line(exc)}")
        result, waited = await self.pool.run("target", payload, client, timeout)
        clock = queue_time.current.get()
        if clock is not None and waited > 0:  # the wait to start in a worker is the case's queue time
            clock.add(waited)
        if result is TIMED_OUT:
            return TargetCall(error=f"target timed out after {timeout:g} s (the suite's `timeout: {{target: ...}}`)")
        tag = result[0]
        if tag == "died":
            return TargetCall(error=_died_message("target", result[1]), traceback=result[2])
        # The worker's answer is plain data it sent as JSON (evalkit/workers/link.py): read, never unpickled.
        if tag == "output" and len(result) == 6 and isinstance(result[2], dict) and _text_or_none(result[3], result[5]):
            called = TargetCall.returned(result[1], result[2], result[3], result[4])
            called.output_model = result[5]
            return called
        if tag == "error" and len(result) == 4 and _text_or_none(*result[1:]):
            return TargetCall(error=result[1], traceback=result[2], prompt=result[3])
        return TargetCall(
            error=f"target's result could not be read back from its worker process: "
            f"{str(result[1])[:300] if len(result) > 1 else 'not a result'}"
        )

    async def call_tool(
        self, function: str, suite_dir: Path | None, arguments: dict[str, Any], timeout: float | None
    ) -> ToolOutcome:
        """A prompt target's tool (`module:function`) run in a worker on the model's arguments; whatever
        happens is a ToolOutcome (an error is told to the model and kept in the trace)."""
        try:
            payload = pickle.dumps((function, str(suite_dir) if suite_dir else None, arguments), PICKLE)
        except Exception as exc:  # the arguments come from the model's JSON: this does not happen
            return ToolOutcome(error=f"the arguments cannot be sent to the tool's worker process: {one_line(exc)}")
        result, _ = await self.pool.run("tool", payload, None, timeout)
        if result is TIMED_OUT:
            return ToolOutcome(error=f"tool {function} timed out after {timeout:g} s")
        if result[0] == "output" and len(result) == 2:
            return ToolOutcome(result=result[1])
        if result[0] == "error" and len(result) > 1 and isinstance(result[1], str):
            return ToolOutcome(error=result[1])
        if result[0] == "died":
            return ToolOutcome(error=_died_message(f"tool {function}", result[1]))
        return ToolOutcome(error=f"tool's result could not be read back from its worker process: {result[1]}")

    async def decide_check(self, it: Item, ctx: CheckContext) -> ItemResult:
        """A plugin's check of one item, decided in a worker (in this process if the worker cannot
        import its class: one defined in `__main__` or inside a function)."""
        check = it.check
        assert check is not None
        try:
            payload = pickle.dumps((check, ctx), PICKLE)
        except Exception:
            return await self._in_process(it, ctx)
        result, _ = await self.pool.run("check", payload, None, ctx.timeout)
        if result is TIMED_OUT:
            return item_result(it, "error", f"check timed out: {check.type} took over {ctx.timeout:g} s")
        tag = result[0]
        if (
            tag == "ok"
            and len(result) == 3
            and isinstance(result[1], (bool, type(None)))
            and isinstance(result[2], str)
        ):
            passed, reason = result[1], result[2]
            return item_result(it, "n/a" if passed is None else ("pass" if passed else "fail"), reason)
        if tag == "timeout" and len(result) == 2:
            return item_result(it, "error", f"check timed out: {result[1]}")
        if tag == "raised" and len(result) == 3:
            return item_result(it, "error", f"check raised {result[1]}: {result[2]}")
        if tag == "unavailable":
            return await self._in_process(it, ctx)
        if tag == "died":
            return item_result(it, "error", _died_message("check", result[1]))
        return item_result(it, "error", f"check's result could not be read back from its worker process: {result[1]}")

    @staticmethod
    async def _in_process(it: Item, ctx: CheckContext) -> ItemResult:
        return await asyncio.to_thread(decide_item, it, ctx)


def _text_or_none(*values: Any) -> bool:
    return all(v is None or isinstance(v, str) for v in values)


def _died_message(who: str, how: tuple[str, Any]) -> str:
    """`target called os._exit(0), which ended its worker process`, and the like."""
    kind, value = how
    if kind == "os._exit":
        return f"{who} called os._exit({value}), which ended its worker process"
    if kind == "start":
        return f"{who} could not run: a worker process could not be started ({value})"
    if value < 0:
        hint = _CRASHES.get(-value)
        return f"{who}'s worker process was killed by {signal_name(-value)}" + (f" ({hint})" if hint else "")
    return f"{who} ended its worker process with exit status {value}"
