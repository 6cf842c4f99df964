"""Suite files parsed in a forked child process while this one does something else.

Before its first request `evalkit run` both imports the model SDK (about a second) and parses its
suites (0.6 s for 20,000 cases). Both are CPU work under one GIL, so a thread does not overlap
them (measured: no gain); a child forked from this process parses on another core and hands the
plain data back over a pipe. It is pickled by a copy of this very process, from values the YAML
reader built: nothing from outside is unpickled.

Whatever goes wrong on that path (no fork on this platform, threads already running, a child
that dies or sends nothing usable) ends in parsing here, as without it: what a file reads as,
or the error it gives, never depends on which process parsed it.
"""

from __future__ import annotations

import os
import pickle
import signal
import sys
import threading
from pathlib import Path
from evalkit.suite._yaml import YamlDocument, read_yaml


def can_fork() -> bool:
    """Forking copies only the calling thread: with another thread alive (perhaps holding a lock
    the child would need), or off Linux (macOS frameworks are not fork-safe), files are parsed here."""
    return sys.platform.startswith("linux") and hasattr(os, "fork") and threading.active_count() == 1


class ReadAhead:
    """Parses `files`, and the case files they name (`cases: file.yml`), in a child process.

    `read(path)` is `read_yaml(path)`: the child's document when it has one, else parsed here.
    `close()` reaps the child (it is killed if it has not finished)."""

    def __init__(self, files: list[Path]):
        self._docs: dict[Path, YamlDocument | str] | None = None  # the child's results, once collected
        self._pid: int | None = None
        self._pipe: int | None = None
        self.started = bool(files) and can_fork()  # whether a child parses (or parsed) the files
        if self.started:
            self._fork(files)

    def __enter__(self) -> "ReadAhead":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def read(self, path: Path) -> YamlDocument:
        if self._docs is None:
            self._docs = self._collect()  # nothing when no child was started
        found = self._docs.pop(path, None)
        if found is None:
            return read_yaml(path)
        if isinstance(found, str):  # the message of read_yaml's ValueError or OSError
            raise ValueError(found)
        return found

    def close(self) -> None:
        if self._pipe is not None:
            os.close(self._pipe)
            self._pipe = None
        if self._pid is not None:
            try:
                os.kill(self._pid, signal.SIGKILL)  # finished already: the signal goes to a zombie
                os.waitpid(self._pid, 0)
            except (ProcessLookupError, ChildProcessError):
                pass
            self._pid = None

    def _fork(self, files: list[Path]) -> None:
        read_end, write_end = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: parse, hand over, leave without running any of the parent's exit code
            status = 1
            try:
                os.close(read_end)
                payload = pickle.dumps(_parse(files), protocol=pickle.HIGHEST_PROTOCOL)
                with open(write_end, "wb") as pipe:
                    pipe.write(payload)
                status = 0
            finally:
                os._exit(status)
        os.close(write_end)
        self._pid, self._pipe = pid, read_end

    def _collect(self) -> dict[Path, YamlDocument | str]:
        if self._pipe is None:
            return {}
        payload = bytearray()  # one buffer: a list of chunks joined would hold the payload twice
        try:
            while chunk := os.read(self._pipe, 1 << 20):
                payload += chunk
        except OSError:
            payload.clear()
        self.close()
        try:
            docs = pickle.loads(payload) if payload else {}
        except Exception:  # noqa: BLE001 - a child cut off mid-write: its files are parsed here
            return {}
        return docs if isinstance(docs, dict) else {}


def _parse(files: list[Path]) -> dict[Path, YamlDocument | str]:
    """In the child: each file's document, or its one-line error."""
    docs: dict[Path, YamlDocument | str] = {}
    queue = list(files)
    while queue:
        path = queue.pop(0)
        if path in docs:
            continue
        try:
            doc = read_yaml(path)
        except (OSError, ValueError) as exc:
            docs[path] = str(exc)
            continue
        docs[path] = doc
        if isinstance(doc.data, dict) and isinstance(doc.data.get("cases"), str):
            queue.append(path.parent / doc.data["cases"])  # as the loader names a suite's case file
    return docs
