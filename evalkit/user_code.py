"""Where a run's user code runs: callable targets and the checks of plugins, in worker processes
(evalkit/user_worker.py), so that nothing they do to their process — `os._exit(0)`, a signal, a
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
import contextvars
import itertools
import os
import pickle
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, Callable

from evalkit import waits
from evalkit.errors import one_line
from evalkit.scoring import decide_item, item_result
from evalkit.targets import TargetCall
from evalkit.user_worker import HEADER, PICKLE, portable_error

if TYPE_CHECKING:
    from evalkit.checks.base import Check, CheckContext
    from evalkit.client import BoundClient
    from evalkit.report import ItemResult
    from evalkit.suite.model import Item

PER_WORKER = 4  # calls in each worker before another worker is started (up to the pool's size)
MAX_WORKERS = 4
CLOSE_GRACE = 2.0  # seconds a worker has to end once its socket is closed, before SIGKILL
MAX_FAULT_TRACEBACK = 8_000
_EVALKIT_ROOT = str(Path(__file__).resolve().parent.parent)
_OURS = str(Path(__file__).resolve().parent)
_AGAIN = object()  # a call's worker died for another call's sake: run it again
_TIMED_OUT = object()
_CRASHES = {signal.SIGSEGV: "a crash in native code", signal.SIGBUS: "a crash in native code",
            signal.SIGILL: "a crash in native code", signal.SIGFPE: "a crash in native code",
            signal.SIGABRT: "an abort", signal.SIGKILL: "killed from outside, or by the out-of-memory killer"}


def pool_size() -> int:
    """Worker processes for shared calls: EVALKIT_WORKERS, else one per core up to 4."""
    configured = os.environ.get("EVALKIT_WORKERS", "").strip()
    if configured.isdigit() and int(configured) > 0:
        return int(configured)
    return max(1, min(os.cpu_count() or 1, MAX_WORKERS))


@dataclass(frozen=True)
class WorkerTarget:
    """A callable target (`module:function`) the runner calls through the pool."""

    spec: str
    suite_dir: Path | None


def is_plugin_check(check: Check) -> bool:
    """A check that is not evalkit's own: user code, run in a worker."""
    return not type(check).__module__.startswith("evalkit.")


@dataclass(eq=False)
class _Call:
    id: int
    kind: str  # "target" | "check"
    payload: bytes
    client: BoundClient | None
    context: contextvars.Context
    solo: bool = False
    worker: _Worker | None = None
    future: asyncio.Future[Any] | None = None
    rpcs: set[asyncio.Task[Any]] = field(default_factory=set)
    episode: _Episode | None = None
    waited: float = 0.0  # seconds it waited for a worker (to start, or a thread of it): queue time


@dataclass(eq=False)
class _Episode:
    """A worker that died with several calls in it, none of them named: they each run again alone."""

    what: str
    pending: int
    blamed: int = 0


class _Worker:
    def __init__(self, number: int, proc: subprocess.Popen[bytes], sock: socket.socket, fault: IO[bytes],
                 solo: bool):
        self.number, self.proc, self.sock, self.fault, self.solo = number, proc, sock, fault, solo
        self.calls: dict[int, _Call] = {}
        self.abandoned: set[int] = set()  # calls given up (timed out) that may still be running
        self.retiring = False  # takes no new call; closed once its calls are done
        self.closing = False  # closed by the pool: its end is no one's fault
        self.dead = False
        self.exit_note: tuple[int | None, int] | None = None
        self.writer: asyncio.StreamWriter | None = None
        self.outbox: list[bytes] = []  # frames to write: at the end of this turn of the event loop
        self._flush_due = False
        self.task: asyncio.Task[None] | None = None

    def send(self, message: tuple[Any, ...]) -> None:
        """Queue a message; the messages of one turn of the event loop go out in one write (a run
        dispatches many calls and answers many model calls per turn: one system call, not one each)."""
        if self.dead or self.closing:
            return
        data = pickle.dumps(message, PICKLE)
        self.outbox.append(HEADER.pack(len(data)))
        self.outbox.append(data)
        if not self._flush_due and self.writer is not None:
            self._flush_due = True
            asyncio.get_running_loop().call_soon(self.flush)

    def flush(self) -> None:
        self._flush_due = False
        if self.writer is not None and self.outbox and not self.writer.is_closing():
            self.writer.writelines(self.outbox)
        self.outbox.clear()


class UserCode:
    """The worker processes of one run. `call_target` and `decide_check` never raise for what user
    code does; `close()` ends every worker."""

    def __init__(self, *, threads: int, warn: Callable[[str], None] = lambda message: None,
                 size: int | None = None):
        self._threads = max(threads, 1)
        self._size = size or pool_size()
        self._warn = warn
        self._shared: list[_Worker] = []
        self._solo: list[_Worker] = []
        self._ids = itertools.count(1)
        self._numbers = itertools.count(1)
        self._changed: asyncio.Event | None = None
        self._closed = False
        self.started = 0  # worker processes started (for tests and the benchmark)

    # -- the two kinds of call -------------------------------------------------------------

    async def call_target(self, target: WorkerTarget, case_input: Any, client: BoundClient,
                          timeout: float | None) -> TargetCall:
        """Run the target on one input in a worker; whatever happens is a TargetCall."""
        info = {"model": client.model, "tiers": dict(client.tiers), "max_tokens": client.max_tokens,
                "temperature": client.temperature, "repeat": client.repeat}
        try:
            payload = pickle.dumps((target.spec, str(target.suite_dir) if target.suite_dir else None, case_input,
                                    info), PICKLE)
        except Exception as exc:  # the case's input comes from YAML or JSON: this does not happen
            return TargetCall(error=f"the case's input cannot be sent to the target's worker process: {one_line(exc)}")
        call = self._new_call("target", payload, client)
        result = await self._run(call, timeout)
        clock = waits.current.get()
        if clock is not None and call.waited > 0:  # the wait to start in a worker is the case's queue time
            clock.add(call.waited)
        if result is _TIMED_OUT:
            return TargetCall(error=f"target timed out after {timeout:g} s (the suite's `timeout: {{target: ...}}`)")
        tag = result[0]
        if tag == "output":
            return TargetCall(output=result[1], facts=result[2] or {}, prompt=result[3])
        if tag == "error":
            return TargetCall(error=result[1], traceback=result[2], prompt=result[3] if len(result) > 3 else None)
        if tag == "died":
            return TargetCall(error=_died_message("target", result[1]), traceback=result[2])
        return TargetCall(error=f"target's result could not be read back from its worker process: {result[1]}")

    async def decide_check(self, it: Item, ctx: CheckContext) -> ItemResult:
        """A plugin's check of one item, decided in a worker (in this process if the worker cannot
        import its class: one defined in `__main__` or inside a function)."""
        check = it.check
        assert check is not None
        try:
            payload = pickle.dumps((check, ctx), PICKLE)
        except Exception:
            return await self._in_process(it, ctx)
        result = await self._run(self._new_call("check", payload, None), ctx.timeout)
        if result is _TIMED_OUT:
            return item_result(it, "error", f"check timed out: {check.type} took over {ctx.timeout:g} s")
        tag = result[0]
        if tag == "ok":
            passed, reason = result[1], result[2]
            return item_result(it, "n/a" if passed is None else ("pass" if passed else "fail"), reason)
        if tag == "timeout":
            return item_result(it, "error", f"check timed out: {result[1]}")
        if tag == "raised":
            return item_result(it, "error", f"check raised {result[1]}: {result[2]}")
        if tag == "unavailable":
            return await self._in_process(it, ctx)
        if tag == "died":
            return item_result(it, "error", _died_message("check", result[1]))
        return item_result(it, "error", f"check's result could not be read back from its worker process: {result[1]}")

    @staticmethod
    async def _in_process(it: Item, ctx: CheckContext) -> ItemResult:
        return await asyncio.to_thread(decide_item, it, ctx)

    def _new_call(self, kind: str, payload: bytes, client: BoundClient | None) -> _Call:
        return _Call(next(self._ids), kind, payload, client, contextvars.copy_context())

    # -- running a call --------------------------------------------------------------------

    async def _run(self, call: _Call, timeout: float | None) -> Any:
        loop = asyncio.get_running_loop()
        try:
            while True:
                call.future = loop.create_future()
                try:
                    await self._dispatch(call)
                except OSError as exc:
                    return ("died", ("start", f"{exc.strerror or exc}"), None)
                try:  # (on a timeout wait_for cancels the future: a late answer finds it done)
                    result = await (call.future if timeout is None else asyncio.wait_for(call.future, timeout))
                except TimeoutError:
                    self._abandon(call)
                    return _TIMED_OUT
                except asyncio.CancelledError:
                    self._abandon(call)
                    raise
                if result is not _AGAIN:
                    if call.episode is not None and result[0] == "died":
                        call.episode.blamed += 1
                    return result
                if call.client is not None:  # what the first attempt recorded is made again
                    call.client.target_requests.clear()
                    call.client.truncated = False
        finally:
            self._episode_done(call)

    def _episode_done(self, call: _Call) -> None:
        episode, call.episode = call.episode, None
        if episode is None:
            return
        episode.pending -= 1
        if episode.pending == 0 and episode.blamed == 0:
            self._warn(f"a worker process running user code ended ({episode.what}) while several calls ran in it; "
                       "each was run again alone and none ended its worker again, so no case is marked for it")

    async def _dispatch(self, call: _Call) -> None:
        if self._changed is None:
            self._changed = asyncio.Event()
        while True:
            worker = self._pick(call.solo)
            if worker is not None:
                break
            self._changed.clear()
            await self._changed.wait()
        worker.calls[call.id] = call
        call.worker = worker
        worker.send(("call", call.id, call.kind, call.payload, time.monotonic()))

    def _pick(self, solo: bool) -> _Worker | None:
        if self._closed:
            raise OSError("the run is ending")
        if solo:
            for worker in self._solo:
                if not worker.dead and not worker.retiring and not worker.calls:
                    return worker
            if len(self._solo) < self._size:
                return self._spawn(solo=True)
            return None
        live = [w for w in self._shared if not w.retiring and not w.dead]
        if not live or (len(live) < self._size and min(len(w.calls) for w in live) >= PER_WORKER):
            live.append(self._spawn(solo=False))
        return min(live, key=lambda w: len(w.calls))

    def _abandon(self, call: _Call) -> None:
        """The call timed out (or the run stopped): let it go; its worker takes no more calls."""
        for task in call.rpcs:
            task.cancel()
        worker = call.worker
        if worker is None or call.id not in worker.calls:
            return
        del worker.calls[call.id]
        worker.abandoned.add(call.id)
        worker.send(("cancel", call.id))
        self._retire(worker)

    def _retire(self, worker: _Worker) -> None:
        worker.retiring = True
        if not worker.calls:
            self._close_worker(worker)
        self._signal()

    def _signal(self) -> None:
        if self._changed is not None:
            self._changed.set()

    # -- workers ---------------------------------------------------------------------------

    def _spawn(self, *, solo: bool) -> _Worker:
        parent, child = socket.socketpair()
        fault = tempfile.TemporaryFile(prefix="evalkit-worker-fault-")
        code = (f"import sys; sys.path.insert(0, {_EVALKIT_ROOT!r}); from evalkit.user_worker import serve; "
                "serve(int(sys.argv[1]), int(sys.argv[2]))")
        try:
            proc = subprocess.Popen([sys.executable, *_interpreter_flags(), "-c", code, str(child.fileno()),
                                     str(fault.fileno())], pass_fds=(child.fileno(), fault.fileno()))
        except OSError:
            parent.close()
            fault.close()
            raise
        finally:
            child.close()
        self.started += 1
        worker = _Worker(next(self._numbers), proc, parent, fault, solo)
        worker.send(("init", list(sys.path), self._threads))
        (self._solo if solo else self._shared).append(worker)
        worker.task = asyncio.get_running_loop().create_task(self._serve_worker(worker))
        return worker

    async def _serve_worker(self, worker: _Worker) -> None:
        try:
            reader, writer = await asyncio.open_unix_connection(sock=worker.sock)
            worker.writer = writer
            worker.flush()
            if worker.closing:
                writer.close()
            while True:
                head = await reader.readexactly(HEADER.size)
                message = pickle.loads(await reader.readexactly(HEADER.unpack(head)[0]))
                self._handle(worker, message)
        except (asyncio.IncompleteReadError, ConnectionError, OSError):
            pass
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # a message that is not ours: the worker is not trusted further
            self._warn(f"a worker process running user code sent what evalkit cannot read ({one_line(exc)}); "
                       "it was stopped")
        await self._died(worker)

    def _handle(self, worker: _Worker, message: tuple[Any, ...]) -> None:
        kind = message[0]
        if kind == "done":
            call = worker.calls.pop(message[1], None)
            if call is None:
                worker.abandoned.discard(message[1])
                return
            call.waited += message[3]
            try:
                result = pickle.loads(message[2])
            except Exception as exc:  # a class of user code this process cannot import, say
                result = ("unreadable", f"{type(exc).__name__}: {one_line(exc)}")
            if call.future is not None and not call.future.done():
                call.future.set_result(result)
            if worker.retiring and not worker.calls:
                self._close_worker(worker)
            self._signal()
        elif kind == "rpc":
            _, call_id, rpc_id, payload = message
            call = worker.calls.get(call_id)
            if call is None or call.client is None:
                worker.send(("reply", rpc_id, pickle.dumps((False, ("ProviderError", "the call was given up", None)),
                                                           PICKLE)))
                return
            task = asyncio.get_running_loop().create_task(self._answer(worker, call, rpc_id, payload),
                                                          context=call.context)
            call.rpcs.add(task)
            task.add_done_callback(call.rpcs.discard)
        elif kind == "exit":
            worker.exit_note = (message[1], int(message[2]))

    async def _answer(self, worker: _Worker, call: _Call, rpc_id: int, payload: bytes) -> None:
        """Make a model call user code asked for, with its case's client, and send the answer."""
        client = call.client
        assert client is not None
        try:
            method, args, kwargs = pickle.loads(payload)
            if method == "complete":
                value: Any = await client.complete(*args, **kwargs)
            elif method == "generate":
                value = await client.generate(args[0], role=str(kwargs.get("role", "target")))
            else:
                raise ValueError(f"the client has no method {method!r}")
            reply: tuple[Any, ...] = (True, value)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            reply = (False, portable_error(exc))
        try:
            data = pickle.dumps(reply, PICKLE)
        except Exception as exc:
            data = pickle.dumps((False, ("RuntimeError", f"the reply cannot be sent: {one_line(exc)}", None)), PICKLE)
        worker.send(("reply", rpc_id, data))

    async def _died(self, worker: _Worker) -> None:
        """The worker's socket closed: wait for its exit status, and settle its calls."""
        worker.dead = True
        status = await _exit_status(worker.proc)
        calls = list(worker.calls.values())
        worker.calls.clear()
        fault = _fault_traceback(worker.fault)
        worker.fault.close()
        (self._solo if worker.solo else self._shared).remove(worker)
        self._signal()
        if not calls or worker.closing:
            return
        running = len(calls) + len(worker.abandoned)
        note = worker.exit_note
        named = note[0] if note is not None else None
        suspects = [c for c in calls if c.future is not None and not c.future.done()]
        episode = None
        if named is None and not worker.solo and running > 1:
            episode = _Episode(_exit_words(status), len(suspects))
        for call in suspects:
            for task in call.rpcs:
                task.cancel()
            assert call.future is not None
            if named is not None:
                # os._exit named its call: that one's row says so; the others did nothing wrong
                call.future.set_result(("died", ("os._exit", note[1]), None) if call.id == named else _AGAIN)  # type: ignore[index]
            elif episode is None:  # alone in its worker (or a solo worker): the death is its own
                call.future.set_result(("died", ("status", status), fault))
            else:  # one of several: each runs again alone, to find which one it was
                call.solo, call.episode = True, episode
                call.future.set_result(_AGAIN)

    def _close_worker(self, worker: _Worker) -> None:
        if worker.closing or worker.dead:
            return
        worker.flush()  # a cancel queued this turn goes first
        worker.closing = True
        if worker.writer is not None:
            worker.writer.close()

    async def close(self) -> None:
        """End every worker: their sockets close (a worker ends at once), then SIGKILL after a grace."""
        self._closed = True
        workers = [*self._shared, *self._solo]
        for worker in workers:
            self._close_worker(worker)
        deadline = time.monotonic() + CLOSE_GRACE
        for worker in workers:
            while worker.proc.poll() is None and time.monotonic() < deadline:
                await asyncio.sleep(0.01)
            if worker.proc.poll() is None:
                worker.proc.kill()
        for worker in workers:
            if worker.task is not None and not worker.task.done():
                worker.task.cancel()
        tasks = [w.task for w in workers if w.task is not None]
        if tasks:
            await asyncio.gather(*tasks, return_exceptions=True)
        for worker in workers:
            if worker.proc.poll() is None:
                await asyncio.to_thread(worker.proc.wait)
            worker.fault.close()
            worker.sock.close()


async def _exit_status(proc: subprocess.Popen[bytes]) -> int:
    """The exit status of a worker whose socket closed (it is ending); SIGKILL if it does not."""
    deadline = time.monotonic() + CLOSE_GRACE
    while proc.poll() is None:
        if time.monotonic() > deadline:
            proc.kill()
            return await asyncio.to_thread(proc.wait)
        await asyncio.sleep(0.005)
    return proc.returncode


def _exit_words(status: int) -> str:
    if status < 0:
        return f"killed by {_signal_name(-status)}"
    return f"exit status {status}"


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def _died_message(who: str, how: tuple[str, Any]) -> str:
    """`target called os._exit(0), which ended its worker process`, and the like."""
    kind, value = how
    if kind == "os._exit":
        return f"{who} called os._exit({value}), which ended its worker process"
    if kind == "start":
        return f"{who} could not run: a worker process could not be started ({value})"
    if value < 0:
        hint = _CRASHES.get(-value)
        return f"{who}'s worker process was killed by {_signal_name(-value)}" + (f" ({hint})" if hint else "")
    return f"{who} ended its worker process with exit status {value}"


def _fault_traceback(fault: IO[bytes]) -> str | None:
    """What faulthandler wrote for a crash (the crashing thread's stack), evalkit's frames left out."""
    try:
        data = os.pread(fault.fileno(), MAX_FAULT_TRACEBACK * 4, 0)
    except (OSError, ValueError):
        return None
    text = data.decode("utf-8", "replace").strip()
    if not text:
        return None
    lines = [line for line in text.splitlines() if _OURS not in line and "/threading.py" not in line
             and "/concurrent/futures/" not in line]
    return "\n".join(lines)[-MAX_FAULT_TRACEBACK:] or None


def _interpreter_flags() -> list[str]:
    """The flags this Python was started with (-X dev, -O, -W...), for the worker's Python."""
    flags = getattr(subprocess, "_args_from_interpreter_flags", None)
    return list(flags()) if flags is not None else []
