"""The link between a run and the worker processes its user code runs in (evalkit/workers/pool.py
on the run's side, evalkit/workers/worker_main.py on the worker's).

Messages are length-prefixed pickles (`!Q` length, then the bytes) of plain tuples; what user
code gives or gets travels pickled again inside them, so a value that cannot be read back fails
its own call, never the link.

    parent -> worker
      ("init", sys_path, threads, secrets)              once, first; secrets: value -> label (evalkit/_runtime/redaction.py)
      ("call", call_id, kind, payload, sent)            kind "target": payload (spec, suite_dir, input, client)
                                                        kind "check": payload (check, context); sent: when
                                                        (time.monotonic(), one clock for every process)
      ("reply", rpc_id, payload)                        the answer to a model call: (ok, value)
      ("cancel", call_id)                               the call timed out: give it up
    worker -> parent
      ("ready", pid)
      ("done", call_id, payload, waited)                what the call gave (see `_target` / `_check`), and the
                                                        seconds it waited to start (a thread, this process)
      ("rpc", call_id, rpc_id, payload)                 the call asks its client: (method, args, kwargs)
      ("exit", call_id, code)                           user code called os._exit(code): this process ends
"""

from __future__ import annotations

import itertools
import pickle
import socket
import struct
import threading
from concurrent.futures import Future
from typing import Any, Callable, NoReturn

from evalkit.errors import ProviderError, one_line, safe_str

HEADER = struct.Struct("!Q")
PICKLE = pickle.HIGHEST_PROTOCOL


class Link:
    """This end of the socket: whole messages sent under a lock (many threads send), received
    by the main thread only; the model calls user code makes wait here for their replies."""

    def __init__(self, sock: socket.socket, on_lost: Callable[[], NoReturn]):
        self.sock = sock
        self._on_lost = on_lost
        self._in = sock.makefile("rb", buffering=1 << 16)  # the main thread's alone
        self._lock = threading.Lock()
        self._replies: dict[int, Future[Any]] = {}
        self._ids = itertools.count(1)

    def send(self, message: tuple[Any, ...]) -> None:
        data = pickle.dumps(message, PICKLE)
        head = HEADER.pack(len(data))
        try:
            with self._lock:
                if len(data) < 1 << 16:  # one system call for the usual small message
                    self.sock.sendall(head + data)
                else:
                    self.sock.sendall(head)
                    self.sock.sendall(data)
        except OSError:  # the parent is gone: nothing is left to do here
            self._on_lost()

    def recv(self) -> tuple[Any, ...] | None:
        head = self._in.read(HEADER.size)
        if len(head) < HEADER.size:
            return None
        size = HEADER.unpack(head)[0]
        data = self._in.read(size)
        return None if len(data) < size else pickle.loads(data)

    def ask(self, call_id: int, method: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Future[Any]:
        """Ask the parent's client; the future holds its answer (or the error it raised)."""
        future: Future[Any] = Future()
        rpc_id = next(self._ids)
        self._replies[rpc_id] = future
        self.send(("rpc", call_id, rpc_id, pickle.dumps((method, args, kwargs), PICKLE)))
        return future

    def answer(self, rpc_id: int, payload: bytes) -> None:
        future = self._replies.pop(rpc_id, None)
        if future is None:
            return
        try:
            ok, value = pickle.loads(payload)
        except Exception as exc:  # a reply this process cannot read back
            future.set_exception(ProviderError(f"the model's reply could not be read in the worker: {one_line(exc)}"))
            return
        if ok:
            future.set_result(value)
        else:
            future.set_exception(rebuild_error(value))


def portable_error(exc: BaseException) -> tuple[str, str, int | None]:
    """An exception as (kind, message, status), which crosses the socket whatever it holds."""
    kind = "ProviderError" if isinstance(exc, ProviderError) else type(exc).__name__
    return kind, safe_str(exc), getattr(exc, "status", None) if isinstance(exc, ProviderError) else None


def rebuild_error(error: tuple[str, str, int | None]) -> BaseException:
    """The exception `portable_error` described: a ProviderError, a built-in error by name, or a
    RuntimeError naming the kind it was."""
    import builtins

    kind, message, status = error
    if kind == "ProviderError":
        return ProviderError(message, status=status)
    cls = getattr(builtins, kind, None)
    if isinstance(cls, type) and issubclass(cls, Exception):
        try:
            return cls(message)
        except Exception:
            pass
    return RuntimeError(f"{kind}: {message}")


def safe_one_line(exc: BaseException) -> str:
    """`one_line(exc)`, which holds even for an exception whose `__str__` raises."""
    return one_line(exc)