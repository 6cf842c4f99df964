"""The worker processes of one run (evalkit/workers/worker_main.py runs in each): started as calls need
them, fed calls over a socket (evalkit/workers/link.py), replaced when one dies. A worker runs many
calls at once; when it dies with several in it and cannot say which ended it (a signal, a
segfault), each runs again alone in a "solo" worker, and the one that ends its worker again is
blamed; `os._exit` names its call, so only that one is. A call's model calls come back here and
are made with its case's client, in its case's context (queue time, batching eligibility)."""

from __future__ import annotations

import asyncio
import contextvars
import itertools
import os
import pickle
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable

from evalkit.errors import one_line
from evalkit.llm.providers.interface import ModelRequest
from evalkit.workers.link import HEADER, PICKLE, portable_error, read_message
from evalkit.workers.process import CLOSE_GRACE, WorkerProcess, exit_words

if TYPE_CHECKING:
    from evalkit.llm.client import BoundClient

MAX_MESSAGE = 256 * 2**20  # bytes of one message from a worker (an output is stored up to 20,000 characters)
PER_WORKER = 4  # calls in each worker before another worker is started (up to the pool's size)
MAX_WORKERS = 4
_AGAIN = object()  # a call's worker died for another call's sake: run it again
TIMED_OUT = object()
# A call's timeout runs from the moment its worker is up: starting a fresh Python is not the call's
# time (on a loaded machine it can take longer than a 1 s check timeout). A worker not up within
# START_LIMIT seconds is given up, and its calls fail saying so.
START_LIMIT = 60.0


def pool_size() -> int:
    """Worker processes for shared calls: EVALKIT_WORKERS, else one per core up to 4."""
    configured = os.environ.get("EVALKIT_WORKERS", "").strip()
    if configured.isdigit() and int(configured) > 0:
        return int(configured)
    return max(1, min(os.cpu_count() or 1, MAX_WORKERS))


@dataclass(eq=False)
class _Call:
    id: int
    kind: str  # "target" | "check"
    payload: bytes
    client: BoundClient | None
    context: contextvars.Context
    solo: bool = False
    worker: WorkerProcess | None = None
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


class WorkerPool:
    """The worker processes of one run; `run` never raises for what user code does; `close()`
    ends every worker."""

    def __init__(self, *, threads: int, warn: Callable[[str], None] = lambda message: None, size: int | None = None):
        self._threads = max(threads, 1)
        self._size = size or pool_size()
        self._warn = warn
        self._shared: list[WorkerProcess] = []
        self._solo: list[WorkerProcess] = []
        self._ids = itertools.count(1)
        self._numbers = itertools.count(1)
        self._changed: asyncio.Event | None = None
        self._closed = False
        self.started = 0  # worker processes started (for tests and the benchmark)

    async def run(
        self, kind: str, payload: bytes, client: BoundClient | None, timeout: float | None
    ) -> tuple[Any, float]:
        """Run one call (`kind` "target" or "check", `payload` pickled as the worker reads it) with
        `client` serving its model calls: (what the worker answered, or ("died", how, traceback),
        or TIMED_OUT; the seconds it waited for a worker to start it)."""
        call = self._new_call(kind, payload, client)
        return await self._run(call, timeout), call.waited

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
                    if timeout is not None and not await self._worker_up(call):
                        self._abandon(call)  # its worker takes no more calls, and is closed
                        return ("died", ("start", f"it was not ready within {START_LIMIT:g} s"), None)
                    result = await (call.future if timeout is None else asyncio.wait_for(call.future, timeout))
                except TimeoutError:
                    self._abandon(call)
                    return TIMED_OUT
                except asyncio.CancelledError:
                    self._abandon(call)
                    raise
                if result is not _AGAIN:
                    if call.episode is not None and result[0] == "died":
                        call.episode.blamed += 1
                    return result
                if call.client is not None:  # what the first attempt recorded is made again
                    call.client.forget_calls()
        finally:
            self._episode_done(call)

    @staticmethod
    async def _worker_up(call: _Call) -> bool:
        """Wait (up to START_LIMIT) until the call's worker has said it is ready, or has died (then the
        call's answer says so); False when it did neither in time."""
        worker = call.worker
        if worker is None or worker.ready or worker.dead:
            return True
        try:
            await asyncio.wait_for(worker.up.wait(), START_LIMIT)
        except TimeoutError:
            return False
        return True

    def _episode_done(self, call: _Call) -> None:
        episode, call.episode = call.episode, None
        if episode is None:
            return
        episode.pending -= 1
        if episode.pending == 0 and episode.blamed == 0:
            self._warn(
                f"a worker process running user code ended ({episode.what}) while several calls ran in it; "
                "each was run again alone and none ended its worker again, so no case is marked for it"
            )

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

    def _pick(self, solo: bool) -> WorkerProcess | None:
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

    def _retire(self, worker: WorkerProcess) -> None:
        worker.retiring = True
        if not worker.calls:
            self._close_worker(worker)
        self._signal()

    def _signal(self) -> None:
        if self._changed is not None:
            self._changed.set()

    # -- workers ---------------------------------------------------------------------------

    def _spawn(self, *, solo: bool) -> WorkerProcess:
        worker = WorkerProcess.start(next(self._numbers), solo=solo, threads=self._threads)
        self.started += 1
        (self._solo if solo else self._shared).append(worker)
        worker.task = asyncio.get_running_loop().create_task(self._serve_worker(worker))
        return worker

    async def _serve_worker(self, worker: WorkerProcess) -> None:
        try:
            reader = await worker.connect()
            while True:
                head = await reader.readexactly(HEADER.size)
                size = HEADER.unpack(head)[0]
                if size > MAX_MESSAGE:
                    raise ValueError(f"a message of {size} bytes (over {MAX_MESSAGE})")
                # JSON, never a pickle: nothing user code made runs here (evalkit/workers/link.py).
                self._handle(worker, read_message(await reader.readexactly(size)))
        except (asyncio.IncompleteReadError, ConnectionError, OSError):
            pass
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # a message that is not ours: the worker is not trusted further
            self._warn(
                f"a worker process running user code sent what evalkit cannot read ({one_line(exc)}); it was stopped"
            )
        await self._died(worker)

    def _handle(self, worker: WorkerProcess, message: list[Any]) -> None:
        kind = message[0]
        if kind == "done":
            call = worker.calls.pop(message[1], None)
            if call is None:
                worker.abandoned.discard(message[1])
                return
            call.waited += float(message[3])
            data = message[2]
            result = (
                tuple(data)
                if isinstance(data, list) and data and isinstance(data[0], str)
                else ("unreadable", "not a result")
            )
            if call.future is not None and not call.future.done():
                call.future.set_result(result)
            if worker.retiring and not worker.calls:
                self._close_worker(worker)
            self._signal()
        elif kind == "rpc":
            _, call_id, rpc_id, method, args, kwargs = message
            call = worker.calls.get(call_id)
            if call is None or call.client is None:
                worker.send(
                    ("reply", rpc_id, pickle.dumps((False, ("ProviderError", "the call was given up", None)), PICKLE))
                )
                return
            task = asyncio.get_running_loop().create_task(
                self._answer(worker, call, rpc_id, method, args=args, kwargs=kwargs), context=call.context
            )
            call.rpcs.add(task)
            task.add_done_callback(call.rpcs.discard)
        elif kind == "exit":
            worker.exit_note = (message[1], int(message[2]))
        elif kind == "ready":
            worker.ready = True
            worker.up.set()

    async def _answer(
        self, worker: WorkerProcess, call: _Call, rpc_id: int, method: Any, *, args: Any, kwargs: Any
    ) -> None:
        """Make a model call user code asked for (as plain data), with its case's client, and send the answer."""
        client = call.client
        assert client is not None
        try:
            if not isinstance(args, list) or not isinstance(kwargs, dict) or not args:
                raise ValueError("the model call's arguments are not what the client takes")
            if method == "complete":
                prompt, options = complete_args(args, kwargs)
                value: Any = await client.complete(prompt, **options)
            elif method == "generate":
                value = await client.generate(ModelRequest.from_data(args[0]), role=str(kwargs.get("role", "target")))
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

    async def _died(self, worker: WorkerProcess) -> None:
        """The worker's socket closed: wait for its exit status, and settle its calls."""
        worker.dead = True
        worker.up.set()
        status = await worker.exit_status()
        calls = list(worker.calls.values())
        worker.calls.clear()
        fault = worker.fault_traceback()
        (self._solo if worker.solo else self._shared).remove(worker)
        self._signal()
        if not calls or worker.closing:
            return
        running = len(calls) + len(worker.abandoned)
        named, code = worker.exit_note or (None, 0)
        suspects = [c for c in calls if c.future is not None and not c.future.done()]
        episode = None
        if named is None and not worker.solo and running > 1 and worker.ready:
            episode = _Episode(exit_words(status), len(suspects))
        for call in suspects:
            for task in call.rpcs:
                task.cancel()
            assert call.future is not None
            if not worker.ready:  # it never ran user code: it could not start (its output says why)
                call.future.set_result(("died", ("start", f"it ended as it started, {exit_words(status)}"), None))
            elif named is not None:
                # os._exit named its call: that one's row says so; the others did nothing wrong
                call.future.set_result(("died", ("os._exit", code), None) if call.id == named else _AGAIN)
            elif episode is None:  # alone in its worker (or a solo worker): the death is its own
                call.future.set_result(("died", ("status", status), fault))
            else:  # one of several: each runs again alone, to find which one it was
                call.solo, call.episode = True, episode
                call.future.set_result(_AGAIN)

    def _close_worker(self, worker: WorkerProcess) -> None:
        if not worker.closing and not worker.dead:
            worker.close()

    async def close(self) -> None:
        """End every worker: their sockets close (a worker ends at once), then SIGKILL after a grace."""
        self._closed = True
        workers = [*self._shared, *self._solo]
        for worker in workers:
            self._close_worker(worker)
        deadline = time.monotonic() + CLOSE_GRACE
        for worker in workers:
            await worker.end(deadline)
        for worker in workers:
            if worker.task is not None and not worker.task.done():
                worker.task.cancel()
        tasks = [w.task for w in workers if w.task is not None]
        if tasks:
            await asyncio.gather(*tasks, return_exceptions=True)
        for worker in workers:
            worker.release()


_COMPLETE_OPTIONS = {"system": (str,), "model": (str,), "max_tokens": (int,), "temperature": (int, float)}


def complete_args(args: list[Any], kwargs: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    """`client.complete(prompt, **options)`'s arguments read from a worker's plain data (ValueError if not)."""
    prompt = args[0]
    if not isinstance(prompt, str) and not (isinstance(prompt, list) and all(isinstance(m, dict) for m in prompt)):
        raise ValueError("complete() takes text or a list of messages")
    options: dict[str, Any] = {}
    for name, value in kwargs.items():
        kinds = _COMPLETE_OPTIONS.get(name)
        if kinds is None:
            raise TypeError(f"complete() got an unexpected keyword argument {name!r}")
        if value is not None and (not isinstance(value, kinds) or isinstance(value, bool)):
            raise TypeError(f"complete(): {name} must be {' or '.join(k.__name__ for k in kinds)}")
        options[name] = value
    return prompt, options
