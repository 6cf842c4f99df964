"""Calling code we do not control (targets, checks) so that it cannot hang or end the run:
daemon worker threads that can be abandoned on a timeout, and tracebacks trimmed to the
user's own frames. Light to import: the process user code runs in (evalkit/workers/worker_main.py)
uses it, and must start quickly."""

from __future__ import annotations

import inspect
import json
import queue
import sys
import threading
import traceback
from concurrent import futures
from concurrent.futures import Executor, Future
from pathlib import Path
from typing import Any, Callable

from evalkit.errors import one_line, safe_str

# Raised by user code, these mean "the code under test failed", not "stop evalkit". A real Ctrl-C
# reaches a run as the cancellation of its task (asyncio.run's own SIGINT handler), never as these.
USER_EXITS = (SystemExit, KeyboardInterrupt, GeneratorExit)
_OURS = str(Path(__file__).resolve().parents[1])  # the evalkit package
_LIB = Path(threading.__file__).resolve().parent
_STDLIB = (str(_LIB / "asyncio"), str(_LIB / "concurrent"), str(Path(threading.__file__).resolve()))


Job = tuple[Future[Any], Callable[..., Any], tuple[Any, ...], dict[str, Any]]


class DaemonPool(Executor):
    """A thread pool whose workers are daemons, so a call that never returns can be abandoned:
    it neither blocks the pool (a replacement worker starts) nor the interpreter's exit."""

    def __init__(self, max_workers: int, name: str = "evalkit-worker"):
        self._max, self._name = max_workers, name
        self._jobs: queue.SimpleQueue[Job | None] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._workers = 0
        self._idle = 0
        self._queued = 0  # submitted, not yet taken by a worker

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        future: Future[Any] = Future()
        with self._lock:
            self._queued += 1
            self._grow()
        self._jobs.put((future, fn, args, kwargs))
        return future

    def abandon(self) -> None:
        """A worker is stuck in a call that timed out: let the pool start another in its place."""
        with self._lock:
            self._workers -= 1
            self._grow()  # jobs queued behind the stuck worker get one now, not at the next submit

    def _grow(self) -> None:
        # Count jobs not yet taken against idle workers: an idle worker that is about to take an
        # earlier job is not free for this one (counting it was a race that queued a quick job
        # behind a hung one).
        if self._queued > self._idle and self._workers < self._max:
            self._workers += 1
            threading.Thread(target=self._work, name=f"{self._name}-{self._workers}", daemon=True).start()

    def _work(self) -> None:
        while True:
            with self._lock:
                self._idle += 1
            job = self._jobs.get()
            with self._lock:
                self._idle -= 1
                if job is not None:
                    self._queued -= 1
            if job is None:
                return
            future, fn, args, kwargs = job
            if future.set_running_or_notify_cancel():
                try:
                    future.set_result(fn(*args, **kwargs))
                except BaseException as exc:  # delivered to the awaiting side, which decides
                    future.set_exception(exc)
            del job, future

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        with self._lock:
            workers = self._workers
        for _ in range(max(workers, 0)):
            self._jobs.put(None)


def user_traceback(exc: BaseException, limit: int = 12) -> str:
    """The traceback of `exc` without evalkit's and asyncio's frames: the user's code only."""
    frames = [
        f
        for f in traceback.extract_tb(exc.__traceback__)
        if not f.filename.startswith(_OURS) and not f.filename.startswith(_STDLIB)
    ]
    try:
        last = traceback.format_exception_only(type(exc), exc)
    except Exception:  # noqa: BLE001 - an exception whose __str__ raises
        last = [f"{type(exc).__name__}: {safe_str(exc)}\n"]
    lines = traceback.format_list(frames[-limit:]) + last
    return "".join(lines).rstrip()


def call_shape(fn: Callable[..., Any]) -> tuple[bool, bool]:
    """(is it a coroutine function, does it take the client as well as the input)."""
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        params = []
    # `messages` (a conversation's messages, passed by name) is not the client, wherever it stands.
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.name != "messages"]
    takes_client = len(positional) >= 2 or any(p.name in ("llm", "client") for p in params)
    return inspect.iscoroutinefunction(fn), takes_client


def takes_messages(fn: Callable[..., Any]) -> bool:
    """Whether `fn` takes the conversation so far as `messages=` (a parameter of that name, or **kwargs)."""
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return False
    return any(p.kind == p.VAR_KEYWORD or (p.name == "messages" and p.kind != p.POSITIONAL_ONLY) for p in params)


def _is_model(output: Any) -> bool:
    pydantic = sys.modules.get("pydantic")  # not imported: the output cannot be a pydantic model
    return pydantic is not None and isinstance(output, pydantic.BaseModel)


def output_problem(output: Any) -> str | None:
    """Why a target's return value is not an output (None, a number, an object), or None if it is."""
    if isinstance(output, (str, dict, list, tuple)) or _is_model(output):
        return None
    kind = "None" if output is None else type(output).__name__
    return (
        f"target returned {kind}; expected text (str), structured output (a dict, a list or a "
        f"pydantic model) or evalkit.TargetResult"
    )


def tool_answer(produced: Any) -> tuple[Any, str | None]:
    """A tool function's return value as the model is sent it and the trace keeps it, JSON (anything
    else as text), and None; or None and why it cannot be (circular, or nested past Python's limit)."""
    try:
        return json.loads(json.dumps(produced, default=str)), None
    except Exception as exc:  # noqa: BLE001 - whatever the value does while it is encoded
        return None, f"the tool returned what cannot be sent as JSON: {type(exc).__name__}: {one_line(exc)}"


def is_cancellation(exc: BaseException) -> bool:
    """Whether `exc` is a cancellation (asyncio's, or concurrent.futures'), raised by user code itself."""
    asyncio = sys.modules.get("asyncio")  # not imported: no asyncio cancellation can have been raised
    kinds: tuple[type[BaseException], ...] = (futures.CancelledError,)
    if asyncio is not None:
        kinds += (asyncio.CancelledError,)
    return isinstance(exc, kinds)


def cancelled_words(who: str, exc: BaseException) -> str:
    """An error row's words for a cancellation user code raised (not a stop of the run)."""
    text = safe_str(exc)
    return (
        f"{who} was cancelled: {type(exc).__name__} raised inside it{': ' + text if text else ''} "
        f"(the run was not stopped; a cancelled task is an error, never a silence)"
    )


def describe_exit(exc: BaseException) -> str:
    """`SystemExit(3)` as a user would want to read it in an error row."""
    if isinstance(exc, SystemExit):
        return (
            f"target called sys.exit({safe_str(exc.code) if not isinstance(exc.code, (int, str)) else repr(exc.code)})"
        )
    text = safe_str(exc)
    return f"target raised {type(exc).__name__}" + (f": {text}" if text else "")
