"""Targets: the system under test as a run calls it — a Jinja prompt (PromptTarget) or a
`module:function` (CallableTarget here, WorkerTarget in a worker process) behind one CaseTarget."""

from __future__ import annotations

import asyncio
import contextvars
from abc import ABC, abstractmethod
from concurrent.futures import Executor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Awaitable, Callable

from evalkit._runtime import queue_time
from evalkit._runtime.current_client import current_client
from evalkit._runtime.import_names import import_object
from evalkit._runtime.user_calls import (
    USER_EXITS,
    DaemonPool,
    call_shape,
    describe_exit,
    output_problem,
    takes_messages,
    user_traceback,
)
from evalkit.errors import ProviderError, TargetError, one_line
from evalkit.llm.batching import batch_eligible
from evalkit.llm.capabilities import Capabilities, effort_for
from evalkit.llm.client import BoundClient, SyncClient
from evalkit.llm.providers.interface import CACHE_CONTROL, ModelRequest, ModelResponse
from evalkit.run.tool_loop import StepsExhausted, ToolBox, run_tool_loop
from evalkit.suite.model import Target
from evalkit.suite.prompts import render_prompt
from evalkit.trace.steps import Step, read_trace

# Synchronous targets block a thread while they wait for their model calls, so they must not
# share the event loop's default executor: the HTTP client resolves host names there, and a pool
# full of waiting targets would deadlock. The runner sets a pool of their own here.
target_executor: contextvars.ContextVar[Executor | None] = contextvars.ContextVar(
    "evalkit_target_executor", default=None
)


@dataclass
class TargetResult:
    """What a target may return instead of a bare output: the output plus facts about the case
    (numbers its tools computed), which rubric conditions and checks can read."""

    output: Any
    facts: dict[str, Any] = field(default_factory=dict)
    prompt: str | None = None  # the rendered prompt, shown in the HTML report
    # The steps the target took: a list of steps (evalkit.trace.steps.Step, or dicts of that shape),
    # which trajectory checks and the judge read.
    trace: Any = None
    # The reply as an assistant turn's content when it is more than its text: evalkit's prompt target
    # gives the model's thinking blocks and text, which a conversation's next request sends back.
    content: list[dict[str, Any]] | None = None


Messages = list[dict[str, Any]]  # Messages-API shaped: {"role": "user" | "assistant", "content": str}; a
# model reply sent back in a conversation may be its content blocks (thinking, then text)


class CaseTarget(ABC):
    """The system under test as a run calls it: once per run of a case (once per user turn of a
    conversation). Whatever it does becomes a TargetCall; only a real Ctrl-C goes through."""

    name = "the target"  # as messages name it: `module:function`, or the prompt
    takes_messages = True  # takes `messages=`, the conversation so far, which a conversation case needs
    # A prompt target with tools: its runs keep the calls the client recorded as their trace even when
    # the model used no tool.
    offers_tools = False

    @abstractmethod
    async def call(
        self,
        case_input: Any,
        client: BoundClient,
        timeout: float | None,
        *,
        messages: Messages | None = None,
        toolbox: ToolBox | None = None,
    ) -> TargetCall:
        """One call on `case_input` within `timeout` seconds; `toolbox` answers a prompt target's tool
        calls for this case, `messages` is the conversation so far (a turn of a conversation case)."""


def resolve_target(target: Target, suite_dir: Path) -> CaseTarget:
    """The suite's target, called in evalkit's process; raises TargetError for a `module:function`
    that cannot be imported or called."""
    if target.function is not None:
        try:
            fn = import_object(target.function, suite_dir)
        except ValueError as exc:
            raise TargetError(f"target {target.function}: {exc}") from None
        if not callable(fn):
            raise TargetError(f"target {target.function} is not callable")
        return CallableTarget(fn, target.function)
    return PromptTarget(target)


class CallableTarget(CaseTarget):
    """A `module:function` called in evalkit's own process (gold replays). A run resolves it too, for a
    clear error and what it takes, then calls it in a worker process: evalkit.run.user_code.WorkerTarget."""

    def __init__(self, fn: Callable[..., Any], name: str):
        self.fn, self.name = fn, name
        self.is_async, self.takes_client = call_shape(fn)  # the same reading a worker process makes of a target
        self.takes_messages = takes_messages(fn)

    async def call(
        self,
        case_input: Any,
        client: BoundClient,
        timeout: float | None,
        *,
        messages: Messages | None = None,
        toolbox: ToolBox | None = None,
    ) -> TargetCall:
        # In a task of its own: a BaseException that asyncio throws into the awaiting coroutine (a
        # GeneratorExit from a worker thread) lands in `shielded`, the task's outermost frame.
        return await guarded(lambda: self._produce(case_input, client, messages), timeout, own_task=True)

    async def _produce(self, case_input: Any, client: BoundClient, messages: Messages | None) -> Any:
        fn, takes_client = self.fn, self.takes_client
        extra = {} if messages is None else {"messages": messages}
        if self.is_async:
            token = current_client.set(client)
            try:
                return await (fn(case_input, client, **extra) if takes_client else fn(case_input, **extra))
            finally:
                current_client.reset(token)
        loop = asyncio.get_running_loop()
        sync = SyncClient(client, loop)

        clock = queue_time.current.get()
        waiting = clock.wait() if clock is not None else None  # for a worker thread: queue time

        def run() -> Any:
            if waiting is not None:
                waiting.end()
            current_client.set(sync)  # this thread's own context copy
            return fn(case_input, sync, **extra) if takes_client else fn(case_input, **extra)

        executor = target_executor.get()
        try:
            return await loop.run_in_executor(executor, contextvars.copy_context().run, run)
        except asyncio.CancelledError:
            if isinstance(executor, DaemonPool):
                executor.abandon()  # the thread may run on (a timeout): the pool starts another
            raise
        finally:
            if waiting is not None:
                waiting.end()


@dataclass
class TargetCall:
    """What one call of a target gave: an output and facts, or an error (with the user's traceback)."""

    output: Any = None
    facts: dict[str, Any] = field(default_factory=dict)
    error: str | None = None
    traceback: str | None = None
    prompt: str | None = None
    trace: list[Step] | None = None
    content: list[dict[str, Any]] | None = None  # as TargetResult.content
    # `module:Class` of a pydantic model a target in a worker returned (its output is the model's JSON
    # dump): `code_node` without `model:` validates against it.
    output_model: str | None = None

    @classmethod
    def returned(cls, output: Any, facts: dict[str, Any], prompt: str | None, trace: Any) -> "TargetCall":
        """What a target that returned gave (in this process or a worker's), its trace read as steps;
        a trace evalkit cannot read is an error row naming the step."""
        try:
            steps = read_trace(trace) if trace is not None else None
        except ValueError as exc:
            return cls(error=f"target returned a trace evalkit cannot read: {exc}", prompt=prompt)
        return cls(output=output, facts=facts, prompt=prompt, trace=steps)


async def guarded(produce: Callable[[], Awaitable[Any]], timeout: float | None, *, own_task: bool) -> TargetCall:
    """What `produce()` gives within `timeout` seconds, as a TargetCall: whatever the target does
    (raise, exit, hang, return None) is an error; only a cancellation (a real Ctrl-C) goes through.
    `own_task`: user code, run in a task of its own; evalkit's own prompt call needs none."""

    async def shielded() -> Any:
        # asyncio re-raises SystemExit and KeyboardInterrupt out of the event loop from a task's
        # step, so user code's must be caught before they get there; a TimeoutError of the
        # target's own is kept apart from the suite's deadline.
        try:
            return await produce()
        except (*USER_EXITS, TimeoutError) as exc:
            return _Raised(exc)

    try:
        if own_task:
            produced = await asyncio.wait_for(shielded(), timeout)
        else:
            async with asyncio.timeout(timeout):
                produced = await shielded()
    except TimeoutError:
        return TargetCall(error=f"target timed out after {timeout:g} s (the suite's `timeout: {{target: ...}}`)")
    except ProviderError as exc:
        return TargetCall(error=f"target's model call failed: {exc}")
    except StepsExhausted as exc:
        return TargetCall(error=str(exc))
    except Exception as exc:  # the system under test may raise anything: that is an error row
        return _raised(exc)
    if isinstance(produced, _Raised):
        if isinstance(produced.exc, TimeoutError):
            return _raised(produced.exc)
        return TargetCall(error=describe_exit(produced.exc), traceback=user_traceback(produced.exc))
    facts: dict[str, Any] = {}
    prompt = trace = content = None
    if isinstance(produced, TargetResult):
        produced, facts, prompt, trace, content = (
            produced.output,
            dict(produced.facts),
            produced.prompt,
            produced.trace,
            produced.content,
        )
    problem = output_problem(produced)
    if problem:
        return TargetCall(error=problem, prompt=prompt)
    called = TargetCall.returned(produced, facts, prompt, trace)
    called.content = content
    return called


@dataclass
class _Raised:
    exc: BaseException


def _raised(exc: BaseException) -> TargetCall:
    return TargetCall(error=f"target raised {type(exc).__name__}: {one_line(exc)}", traceback=user_traceback(exc))


def prompt_request(
    target: Target,
    case_input: Any,
    *,
    model: str,
    max_tokens: int,
    temperature: float | None,
    messages: Messages | None = None,
    capabilities: Capabilities | None = None,
) -> ModelRequest:
    """The one request a prompt target makes for `case_input` (`evalkit plan` builds the same); with
    `messages` (a conversation's turn), those are sent instead of the rendered template. The target's
    `effort` goes only to a model that lists it (`capabilities`; unknown: sent), so a suite whose
    model is swapped with --model still runs (`validate` and `plan` say it was left out)."""
    system: str | tuple[dict[str, Any], ...] | None = target.system
    if target.prompt_cache and target.system:
        system = ({"type": "text", "text": target.system, "cache_control": CACHE_CONTROL},)
    # The user's own settings only: evalkit adds no sampling parameter and leaves thinking to the model
    # unless the target sets it (evalkit.run.model_fit refused what the model would not take).
    settings: dict[str, Any] = {
        "model": model,
        "system": system,
        "max_tokens": target.max_tokens or max_tokens,
        "temperature": target.temperature if target.temperature is not None else temperature,
        "thinking": target.thinking,
        "effort": effort_for(target.effort, capabilities),
    }
    if messages is not None:
        return ModelRequest(messages=tuple(dict(m) for m in messages), **settings)
    return ModelRequest.from_prompt(render_prompt(target.template or "", case_input), **settings)


class PromptTarget(CaseTarget):
    """A Jinja prompt sent to the suite's model: one call, or a tool loop when it has tools."""

    def __init__(self, target: Target):
        self.target, self.name = target, target.describe()
        self.offers_tools = bool(target.tools)

    async def call(
        self,
        case_input: Any,
        client: BoundClient,
        timeout: float | None,
        *,
        messages: Messages | None = None,
        toolbox: ToolBox | None = None,
    ) -> TargetCall:
        if not self.target.tools and client.batching:
            timeout = None  # its one call waits for its Message Batch (hours), not for code
        return await guarded(lambda: self._produce(case_input, client, messages, toolbox), timeout, own_task=False)

    async def _produce(
        self, case_input: Any, client: BoundClient, messages: Messages | None, toolbox: ToolBox | None
    ) -> TargetResult:
        target = self.target
        model = client.resolve_model(target.model)
        request = prompt_request(
            target,
            case_input,
            model=model,
            max_tokens=client.max_tokens,
            temperature=client.temperature,
            messages=messages,
            capabilities=client.capabilities(model),
        )
        prompt = request.messages[-1]["content"]
        if target.tools:  # several calls, each waiting for the last: never a Message Batch
            reply = await run_tool_loop(client, request, toolbox or ToolBox(target.tools, {}), target.max_steps)
            return TargetResult(output=reply.text, prompt=prompt, content=_with_thinking(reply))
        eligible = batch_eligible.set(True)  # one call, which may wait for a Message Batch
        try:
            reply = await client.generate(request, evalkit_built=True)
            return TargetResult(output=reply.text, prompt=prompt, content=_with_thinking(reply))
        finally:
            batch_eligible.reset(eligible)


def _with_thinking(reply: ModelResponse) -> list[dict[str, Any]] | None:
    """A final reply's content for a conversation's history: its thinking blocks and text (None: no thinking,
    the text alone does)."""
    return reply.assistant_content() if reply.thinking else None
