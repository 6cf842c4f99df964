"""The process user code runs in: `serve(FD)` in a fresh Python, started by evalkit's run
(evalkit/workers/pool.py, the parent side), talking over the socket FD (evalkit/workers/link.py).
Callable targets and the checks of plugins run here, so whatever they do to their process
(`os._exit`, a signal, a segfault in a C extension, a closed file descriptor) ends this process
only: the run in the parent makes it an error row and goes on.

The model calls of a target go back to the parent over the same socket, where the run's own
client serves them: one cache, one concurrency limit, one retry layer and one cost account.
Imports are kept few: the process starts for every run that has a callable target.
"""

from __future__ import annotations

import contextvars
import faulthandler
import os
import pickle
import signal
import socket
import sys
import threading
import time
from concurrent.futures import Future
from pathlib import Path
from typing import Any, Callable, NoReturn

from evalkit._runtime.current_client import current_client
from evalkit._runtime.import_names import import_object
from evalkit._runtime.redaction import protect
from evalkit._runtime.user_calls import (
    USER_EXITS,
    DaemonPool,
    call_shape,
    cancelled_words,
    describe_exit,
    is_cancellation,
    output_problem,
    takes_messages,
    tool_answer,
    user_traceback,
)
from evalkit.errors import ProviderError, safe_str
from evalkit.workers.client_proxy import AsyncClient, SyncClient
from evalkit.workers.link import Link, plain, safe_one_line

# The call whose user code runs in this thread or task, for `os._exit` to name.
_call: contextvars.ContextVar[int | None] = contextvars.ContextVar("evalkit_worker_call", default=None)
_real_exit = os._exit


class Worker:
    """Runs the calls the parent sends: synchronous code on daemon threads (one that hangs is
    given up, as in evalkit's own process), async code on one event loop of its own."""

    def __init__(self, link: Link, threads: int):
        self.link = link
        self.pool = DaemonPool(threads, "evalkit-user")
        self._targets: dict[tuple[str, str | None], tuple[Callable[..., Any], bool, bool, bool]] = {}
        self._running: dict[int, Future[Any]] = {}  # async calls, to cancel
        self._waited: dict[int, float] = {}  # seconds between a call's sending and its start
        self._loop: Any = None
        self._loop_lock = threading.Lock()

    def handle(self, message: tuple[Any, ...]) -> None:
        kind = message[0]
        if kind == "call":
            _, call_id, what, payload, sent = message
            self.pool.submit(contextvars.Context().run, self._job, call_id, what, payload, sent)
        elif kind == "reply":
            self.link.answer(message[1], message[2])
        elif kind == "cancel":
            running = self._running.pop(message[1], None)
            if running is not None:
                running.cancel()
            else:
                self.pool.abandon()  # a thread may stay in the call: the pool starts another

    def _done(self, call_id: int, result: tuple[Any, ...]) -> None:
        """Send a call's result to the run as plain data: nothing of user code is unpickled there."""
        try:
            data = plain(result)
        except Exception as exc:  # circular, or nested too deep: said as such, never a lost call
            data = not_plain(result, exc)
        self.link.send(("done", call_id, data, self._waited.pop(call_id, 0.0)))

    # -- targets ---------------------------------------------------------------------------

    def _resolve(self, spec: str, suite_dir: str | None) -> tuple[Callable[..., Any], bool, bool, bool]:
        key = (spec, suite_dir)
        if key not in self._targets:
            fn = import_object(spec, Path(suite_dir) if suite_dir else None)
            if not callable(fn):
                raise ValueError(f"{spec} is not callable")
            self._targets[key] = (fn, *call_shape(fn), takes_messages(fn))
        return self._targets[key]

    def _job(self, call_id: int, kind: str, payload: bytes, sent: float) -> None:
        """One call, on a thread of the pool: whatever goes wrong, the parent gets an answer."""
        self._waited[call_id] = max(time.monotonic() - sent, 0.0)  # the case's queue time, not its own
        _call.set(call_id)
        try:
            {"target": self._target, "tool": self._tool}.get(kind, self._check)(call_id, payload)
        except BaseException as exc:  # evalkit's own fault here: said as such, never a lost call
            self._done(
                call_id,
                (
                    "error",
                    f"evalkit's worker process failed on this call: {type(exc).__name__}: {safe_one_line(exc)}",
                    traceback_of(exc),
                    None,
                )
                if kind == "target"
                else ("raised", type(exc).__name__, f"evalkit's worker process failed: {safe_one_line(exc)}"),
            )

    def _target(self, call_id: int, payload: bytes) -> None:
        try:
            spec, suite_dir, case_input, info = pickle.loads(payload)
            fn, is_async, takes_client, messages_ok = self._resolve(spec, suite_dir)
        except ValueError as exc:  # import_object's own message says what is wrong
            self._done(call_id, ("error", f"target {payload_spec(payload)}: {safe_one_line(exc)}", None, None))
            return
        except BaseException as exc:  # the target's module raised as it was imported here
            self._done(call_id, target_failure(exc))
            return
        # A conversation's turn: the conversation so far as `messages=` (the parent refuses a target without it).
        extra = {} if info.get("messages") is None else {"messages": info["messages"]}
        if extra and not messages_ok:
            self._done(
                call_id,
                ("error", f"target {spec} takes no `messages` parameter, which a conversation case needs", None, None),
            )
            return
        if is_async:
            self._start_async(call_id, fn, takes_client, case_input, info=info, extra=extra)
            return
        client = SyncClient(self.link, call_id, info)
        current_client.set(client)
        try:
            produced = fn(case_input, client, **extra) if takes_client else fn(case_input, **extra)
        except BaseException as exc:
            self._done(call_id, target_failure(exc))
            return
        self._done(call_id, target_output(produced))

    def _start_async(
        self,
        call_id: int,
        fn: Callable[..., Any],
        takes_client: bool,
        case_input: Any,
        *,
        info: dict[str, Any],
        extra: dict[str, Any],
    ) -> None:
        import asyncio

        async def run() -> tuple[Any, ...]:
            _call.set(call_id)
            client = AsyncClient(self.link, call_id, info)
            current_client.set(client)
            try:
                produced = await (fn(case_input, client, **extra) if takes_client else fn(case_input, **extra))
            except asyncio.CancelledError as exc:
                task = asyncio.current_task()
                if task is not None and task.cancelling():  # given up by the parent (a timeout, the run's end)
                    raise
                return target_failure(exc)  # the target's own: an error row, never a silence
            except BaseException as exc:  # SystemExit and the like too: they must not reach the loop
                return target_failure(exc)
            return target_output(produced)

        future = asyncio.run_coroutine_threadsafe(run(), self._event_loop())
        self._running[call_id] = future

        def finished(f: Future[Any]) -> None:
            if self._running.pop(call_id, None) is None or f.cancelled():
                return  # given up by the parent
            try:
                exc = f.exception()
                self._done(call_id, target_failure(exc) if exc is not None else f.result())
            except BaseException as failed:  # evalkit's own fault: said as such, never a lost call
                self._done(
                    call_id,
                    (
                        "error",
                        f"evalkit's worker process failed on this call: "
                        f"{type(failed).__name__}: {safe_one_line(failed)}",
                        None,
                        None,
                    ),
                )

        future.add_done_callback(finished)

    def _event_loop(self) -> Any:
        import asyncio

        with self._loop_lock:
            if self._loop is None:
                loop = asyncio.new_event_loop()

                def forever() -> None:
                    asyncio.set_event_loop(loop)
                    while True:  # a SystemExit that user code's own task let out stops the loop: go on
                        try:
                            loop.run_forever()
                        except BaseException:
                            continue

                threading.Thread(target=forever, name="evalkit-user-loop", daemon=True).start()
                self._loop = loop
            return self._loop

    # -- tools -----------------------------------------------------------------------------

    def _tool(self, call_id: int, payload: bytes) -> None:
        """A prompt target's tool, `module:function` called with the model's arguments as keywords:
        ("output", result) or ("error", message, traceback)."""
        try:
            spec, suite_dir, arguments = pickle.loads(payload)
            fn, is_async, *_ = self._resolve(spec, suite_dir)
        except ValueError as exc:  # import_object's own message says what is wrong
            self._done(call_id, ("error", f"tool {payload_spec(payload)}: {safe_one_line(exc)}", None))
            return
        except BaseException as exc:  # the tool's module raised as it was imported here
            self._done(call_id, ("error", f"tool's module {describe_raised(exc)}", traceback_of(exc)))
            return
        try:
            if is_async:
                import asyncio

                produced = asyncio.run_coroutine_threadsafe(fn(**arguments), self._event_loop()).result()
            else:
                produced = fn(**arguments)
        except BaseException as exc:  # SystemExit too: a tool's failure is told to the model, not the run's end
            self._done(call_id, ("error", f"{type(exc).__name__}: {safe_one_line(exc)}", traceback_of(exc)))
            return
        result, problem = tool_answer(produced)
        self._done(call_id, ("output", result) if problem is None else ("error", problem, None))

    # -- checks ----------------------------------------------------------------------------

    def _check(self, call_id: int, payload: bytes) -> None:
        try:
            check, ctx = pickle.loads(payload)
        except BaseException as exc:  # its class cannot be imported here: evalkit decides it in its own process
            self._done(call_id, ("unavailable", describe_raised(exc)))
            return
        try:
            from evalkit.checks.base import normalize

            outcome = normalize(check.evaluate(ctx))
            passed = None if outcome.passed is None else bool(outcome.passed)
            reason = safe_str(outcome.reason)
        except TimeoutError as exc:
            self._done(call_id, ("timeout", safe_one_line(exc)))
            return
        except BaseException as exc:
            self._done(call_id, ("raised", type(exc).__name__, safe_one_line(exc)))
            return
        self._done(call_id, ("ok", passed, reason))


def target_failure(exc: BaseException) -> tuple[Any, ...]:
    """What a target that raised gives: ("error", message, traceback or None, prompt or None)."""
    if isinstance(exc, ProviderError):
        return "error", f"target's model call failed: {safe_str(exc)}", None, None
    if is_cancellation(exc):
        return "error", cancelled_words("target", exc), traceback_of(exc), None
    if isinstance(exc, USER_EXITS):
        try:
            message = describe_exit(exc)
        except Exception:
            message = f"target raised {type(exc).__name__}"
        return "error", message, traceback_of(exc), None
    return "error", f"target {describe_raised(exc)}", traceback_of(exc), None


def target_output(produced: Any) -> tuple[Any, ...]:
    """What a target that returned gives: ("output", output, facts, prompt, trace, model), or ("error", ...);
    the trace as the target gave it (the parent reads it: evalkit.trace.steps.read_trace). `_done` sends it
    as plain data."""
    facts: dict[str, Any] = {}
    prompt = trace = None
    # Imported if user code made a TargetResult (maybe still being imported by another thread:
    # then the class does not exist yet, and no TargetResult can have been made)
    result_class = getattr(sys.modules.get("evalkit.run.targets"), "TargetResult", None)
    if result_class is not None and isinstance(produced, result_class):
        produced, facts, prompt, trace = produced.output, dict(produced.facts), produced.prompt, produced.trace
    if isinstance(produced, (bytes, bytearray)):  # text as bytes: kept, what is not UTF-8 shown as U+FFFD
        produced = bytes(produced).decode("utf-8", errors="replace")
    problem = output_problem(produced)
    if problem:
        return "error", problem, None, prompt
    # A pydantic model crosses as its JSON dump, with where its class is (code_node validates against it).
    model = model_spec(produced)
    return "output", produced, facts, prompt if prompt is None else str(prompt), trace, model


def model_spec(output: Any) -> str | None:
    """`module:Class` of a pydantic model output (None for any other output)."""
    # Another thread of this worker may be importing pydantic right now (a check's unpickling): its
    # module is then in sys.modules without BaseModel yet, and no model of it can have been made.
    base_model = getattr(sys.modules.get("pydantic"), "BaseModel", None)
    if base_model is None or not isinstance(output, base_model):
        return None
    cls = type(output)
    return f"{cls.__module__}:{cls.__qualname__}"


def not_plain(result: tuple[Any, ...], exc: BaseException) -> tuple[Any, ...]:
    """What is sent for a result that is not plain data (circular, or nested too deep): an error
    row saying so, or for a check, its error."""
    words = f"{type(exc).__name__}: {safe_one_line(exc)}"
    if result[0] in ("output", "error") and len(result) == 2:  # a tool's
        return "error", f"the tool returned what is not plain data: {words}", None
    if result[0] in ("output", "error"):
        prompt = result[3] if len(result) > 3 and isinstance(result[3], str) else None
        return (
            "error",
            f"target returned what cannot be stored as JSON (plain data: text, numbers, lists, dicts): {words}",
            None,
            prompt,
        )
    return "raised", type(exc).__name__, f"the check's result is not plain data: {words}"


def payload_spec(payload: bytes) -> str:
    try:
        return str(pickle.loads(payload)[0])
    except Exception:
        return "(unreadable)"


def describe_raised(exc: BaseException) -> str:
    return f"raised {type(exc).__name__}: {safe_one_line(exc)}"


def traceback_of(exc: BaseException) -> str | None:
    try:
        return user_traceback(exc)
    except Exception:
        return None


def _exit(status: int) -> NoReturn:
    """`os._exit` for user code here: the parent learns which call ended the process, then it ends."""
    link = _link
    if link is not None:
        try:
            link.send(("exit", _call.get(), status))
        except BaseException:
            pass
    _real_exit(status)


def _leave() -> NoReturn:
    """The parent closed the link (the run is over) or is gone: end as a Python program ends for
    user code. With no thread of user code still running, that is the interpreter's own exit (its
    exit handlers run, its files are flushed and closed). Otherwise the teardown could hang on a
    thread still in a call that timed out: the files it left open and what it printed are flushed,
    and the process ends without its exit handlers (there is no public way to run them alone)."""
    me = threading.current_thread()
    stuck = [t for t in threading.enumerate() if t is not me and t.is_alive() and not t.daemon]
    if me is threading.main_thread() and not stuck:
        sys.exit(0)
    import gc
    import io

    for obj in gc.get_objects():
        if isinstance(obj, (io.TextIOWrapper, io.BufferedWriter, io.BufferedRandom)):
            try:
                if not obj.closed and obj.writable():
                    obj.flush()
            except BaseException:
                pass
    _real_exit(0)


_link: Link | None = None


def import_public_api() -> None:
    """Import what user code reaches through `evalkit`, once, before any call runs. The calls run on
    several threads, and two threads importing modules that import each other for the first time can
    hand one of them a half-initialised module ("cannot import name 'JUDGE_TYPE' from partially
    initialized module 'evalkit.checks.registry'", seen in CI): a target's row would be an error that
    its code did not make. About 0.25 s a worker."""
    import evalkit

    for name in evalkit.__all__:
        try:
            getattr(evalkit, name)
        except Exception:  # its module needs what this install lacks (pytest, in the Action's image)
            continue


def serve(fd: int, fault_fd: int | None = None) -> None:
    """Run calls from the parent on socket `fd` until it closes it."""
    global _link
    # Ctrl-C and SIGTERM (sent to the whole process group) are the run's to handle: it stops, and
    # closes this process's socket. Killed by them here, a case would get an error row, not a re-run.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    if fault_fd is not None:
        faulthandler.enable(file=fault_fd, all_threads=False)  # a crash's traceback, for the error row
    link = _link = Link(socket.socket(fileno=fd), _leave)
    init = link.recv()
    if init is None or init[0] != "init":
        _leave()
    _, sys_path, threads, secrets = init
    sys.path[:] = list(sys_path)
    protect(secrets)  # what user code prints here shows no secret the run knows
    import_public_api()
    os._exit = _exit
    worker = Worker(link, threads)
    link.send(("ready", os.getpid()))
    while True:
        message = link.recv()
        if message is None:
            _leave()
        worker.handle(message)
