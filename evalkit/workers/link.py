"""The link between a run and the worker processes its user code runs in (evalkit/workers/pool.py
on the run's side, evalkit/workers/worker_main.py on the worker's).

Messages are length-prefixed (`!Q` length, then the bytes). The run's messages to a worker are
pickles of plain tuples (what a worker unpickles comes from the run). A worker's messages to the
run are JSON, never pickles: user code runs in the worker, and nothing it makes may run in the run's
process, which holds the key. Unpickling a value runs code its class chooses (`__reduce__`), so the
worker turns every result into plain data (str, numbers, lists, dicts; see `plain`) before it
crosses, and the run only parses it.

    parent -> worker
      ("init", sys_path, threads, secrets)              once, first; secrets: value -> label (evalkit/_runtime/redaction.py)
      ("call", call_id, kind, payload, sent)            kind "target": payload (spec, suite_dir, input, client)
                                                        kind "check": payload (check, context); sent: when
                                                        (time.monotonic(), one clock for every process)
      ("reply", rpc_id, payload)                        the answer to a model call: (ok, value)
      ("cancel", call_id)                               the call timed out: give it up
    worker -> parent (JSON arrays)
      ["ready", pid]
      ["done", call_id, result, waited]                 what the call gave, as plain data (see `_target` /
                                                        `_check`), and the seconds it waited to start
      ["rpc", call_id, rpc_id, method, args, kwargs]    the call asks its client; a request as `request_data`
      ["exit", call_id, code]                           user code called os._exit(code): this process ends
"""

from __future__ import annotations

import dataclasses
import itertools
import json
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
        """Send a message to the run, as JSON (ValueError when it is not plain data)."""
        data = json.dumps(message, allow_nan=False).encode("utf-8")
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
        try:
            self.send(("rpc", call_id, rpc_id, method, plain(list(args)), plain(kwargs)))
        except ValueError as exc:  # what plain data cannot hold (a circular list, say)
            self._replies.pop(rpc_id, None)
            future.set_exception(ValueError(f"the model call's arguments are not plain data: {one_line(exc)}"))
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


MAX_DEPTH = 200  # nesting of the data a worker sends: deeper is refused in the worker, not parsed here


def plain(value: Any, depth: int = 0, path: frozenset[int] = frozenset()) -> Any:
    """`value` as plain JSON data: str, int, float, bool, None, lists and dicts with text keys. A
    pydantic model is its JSON dump, a dataclass its fields, a tuple a list; anything else its text
    (`str()`, run here, in the worker). ValueError when it is circular or nested past MAX_DEPTH."""
    if value is None or isinstance(value, bool):
        return value if value is None else bool(value)
    if isinstance(value, str):
        return str(value)
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return float(value) if value == value and value not in (float("inf"), float("-inf")) else str(value)
    if depth >= MAX_DEPTH:
        raise ValueError(f"nested deeper than {MAX_DEPTH} levels")
    if id(value) in path:
        raise ValueError("Circular reference detected")
    inner = path | {id(value)}
    if isinstance(value, dict):
        return {(str(k) if isinstance(k, str) else safe_str(k)): plain(v, depth + 1, inner) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v, depth + 1, inner) for v in value]
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).decode("utf-8", errors="replace")
    dump = getattr(value, "model_dump", None)
    if callable(dump) and not isinstance(value, type):  # a pydantic model
        return plain(dump(mode="json"), depth + 1, inner)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: plain(getattr(value, f.name), depth + 1, inner) for f in dataclasses.fields(value)}
    return safe_str(value)


def read_message(data: bytes) -> list[Any]:
    """A worker's message as the run reads it: JSON, a list starting with its kind (ValueError if not)."""
    message = json.loads(data)
    if not isinstance(message, list) or not message or not isinstance(message[0], str):
        raise ValueError("not a message")
    return message
