"""One worker process user code runs in (evalkit/workers/worker_main.py): started with a socket and a
file for faulthandler, written to in one write per turn of the event loop, ended, and asked how
it ended (exit status, signal, the crashing thread's stack)."""

from __future__ import annotations

import asyncio
import codecs
import os
import pickle
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from evalkit._runtime.out_of_reach import overlaps_credential, without_credentials, without_ptrace
from evalkit._runtime.redaction import known
from evalkit.workers.link import HEADER, PICKLE

if TYPE_CHECKING:
    from evalkit.workers.pool import _Call

CLOSE_GRACE = 2.0  # seconds a worker has to end once its socket is closed, before SIGKILL
MAX_FAULT_TRACEBACK = 8_000
_EVALKIT_ROOT = str(Path(__file__).resolve().parents[2])  # the folder holding evalkit
_OURS = str(Path(__file__).resolve().parents[1])  # the evalkit package


class WorkerProcess:
    def __init__(
        self, number: int, proc: subprocess.Popen[bytes], sock: socket.socket, fault: IO[bytes], *, solo: bool
    ):
        self.number, self.proc, self.sock, self.fault, self.solo = number, proc, sock, fault, solo
        self.calls: dict[int, _Call] = {}
        self.abandoned: set[int] = set()  # calls given up (timed out) that may still be running
        self.retiring = False  # takes no new call; closed once its calls are done
        self.closing = False  # closed by the pool: its end is no one's fault
        self.dead = False
        self.ready = False  # said so: it runs no user code before
        self.up = asyncio.Event()  # set once it is ready, or dead
        self.exit_note: tuple[int | None, int] | None = None
        self.writer: asyncio.StreamWriter | None = None
        self.outbox: list[bytes] = []  # frames to write: at the end of this turn of the event loop
        self._flush_due = False
        self.task: asyncio.Task[None] | None = None

    @classmethod
    def start(cls, number: int, *, solo: bool, threads: int) -> WorkerProcess:
        """A new worker (OSError when it cannot be started), its first message queued."""
        parent, child = socket.socketpair()
        fault = tempfile.TemporaryFile(prefix="evalkit-worker-fault-")
        code = (
            f"import sys; sys.path.insert(0, {_EVALKIT_ROOT!r}); from evalkit.workers.worker_main import serve; "
            "serve(int(sys.argv[1]), int(sys.argv[2]))"
        )
        try:
            # Without CAP_SYS_PTRACE and without the key: the run's process (non-dumpable) is out of its reach.
            proc = subprocess.Popen(
                without_ptrace(
                    [sys.executable, *_interpreter_flags(), "-c", code, str(child.fileno()), str(fault.fileno())]
                ),
                pass_fds=(child.fileno(), fault.fileno()),
                env=without_credentials(os.environ),
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
            )
        except OSError:
            parent.close()
            fault.close()
            raise
        finally:
            child.close()
        for pipe, name in ((proc.stdout, "stdout"), (proc.stderr, "stderr")):
            if pipe is not None:
                threading.Thread(
                    target=_relay, args=(pipe, name), daemon=True, name=f"evalkit-worker-{number}-{name}"
                ).start()
        worker = cls(number, proc, parent, fault, solo=solo)
        # The secrets its outputs must not show, but the key: the worker never holds it.
        shown = {value: label for value, label in known().items() if not overlaps_credential(value)}
        worker.send(("init", list(sys.path), threads, shown))
        return worker

    async def connect(self) -> asyncio.StreamReader:
        """The stream this worker's messages come in on; what was queued before goes out."""
        reader, writer = await asyncio.open_unix_connection(sock=self.sock)
        self.writer = writer
        self.flush()
        if self.closing:
            writer.close()
        return reader

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

    def close(self) -> None:
        """Close the socket (what is queued goes first): the worker ends as a program ends."""
        self.flush()
        self.closing = True
        if self.writer is not None:
            self.writer.close()

    async def end(self, deadline: float) -> None:
        """Wait until `deadline` (time.monotonic) for the worker to end, then SIGKILL it."""
        while self.proc.poll() is None and time.monotonic() < deadline:
            await asyncio.sleep(0.01)
        if self.proc.poll() is None:
            self.proc.kill()
            await asyncio.to_thread(self.proc.wait)

    def release(self) -> None:
        self.fault.close()
        self.sock.close()

    async def exit_status(self) -> int:
        """The exit status of a worker whose socket closed (it is ending); SIGKILL if it does not."""
        await self.end(time.monotonic() + CLOSE_GRACE)
        return self.proc.returncode

    def fault_traceback(self) -> str | None:
        """What faulthandler wrote for a crash (the crashing thread's stack), evalkit's frames left out."""
        try:
            data = os.pread(self.fault.fileno(), MAX_FAULT_TRACEBACK * 4, 0)
        except (OSError, ValueError):
            return None
        text = data.decode("utf-8", "replace").strip()
        if not text:
            return None
        lines = [
            line
            for line in text.splitlines()
            if _OURS not in line and "/threading.py" not in line and "/concurrent/futures/" not in line
        ]
        return "\n".join(lines)[-MAX_FAULT_TRACEBACK:] or None


def _relay(pipe: IO[bytes], name: str) -> None:
    """What a worker prints, written to this process's own `sys.stdout` / `sys.stderr` as it comes:
    redacted there, on the whole text (evalkit/_runtime/redaction.py), by the process that knows the
    secrets — the worker holds no key to redact with."""
    decoder = codecs.getincrementaldecoder("utf-8")("replace")
    fd = pipe.fileno()
    try:
        while True:
            data = os.read(fd, 65536)
            text = decoder.decode(data, final=not data)
            stream = getattr(sys, name, None)
            if text and stream is not None:
                try:
                    stream.write(text)
                    stream.flush()
                except (OSError, ValueError):
                    pass
            if not data:
                return
    except OSError:
        return
    finally:
        pipe.close()


def exit_words(status: int) -> str:
    if status < 0:
        return f"killed by {signal_name(-status)}"
    return f"exit status {status}"


def signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def _interpreter_flags() -> list[str]:
    """The flags this Python was started with (-X dev, -O, -W...), for the worker's Python."""
    flags = getattr(subprocess, "_args_from_interpreter_flags", None)
    return list(flags()) if flags is not None else []
