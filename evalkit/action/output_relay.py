"""What a worker prints (user code's output, evalkit's in the worker), streamed to the Action's log as it
comes, never held whole: whole lines go out redacted (the secrets replaced by `***`), with workflow
commands stopped around them; only the last `WORKER_OUTPUT_TAIL_CHARS` are kept, for the error
message of a worker that fails (evalkit/limits.py).

Redaction works on text, not on reads: a line is written once it is whole, so a secret that arrives
in two reads is replaced as one. A line longer than `LONG_LINE_CHARS` is written in pieces, holding
back any tail that could be the start of a secret until the next read shows whether it is one."""

from __future__ import annotations

import codecs
import os
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TextIO

from evalkit._runtime.redaction import held_back
from evalkit.action.redact import redact_text
from evalkit.github import commands
from evalkit.limits import WORKER_LOG_MAX_CHARS, WORKER_OUTPUT_TAIL_CHARS

READ_BYTES = 64 * 1024  # one read of the worker's pipe
LONG_LINE_CHARS = 8192  # a line without its end yet is written in pieces past this


class OutputRelay:
    """Fed the worker's output as bytes (`feed`), writes it to `stream` (default: stdout) in whole,
    redacted lines inside one log group titled `title`, opened at the first output; `close()` writes
    the rest and closes the group. `tail` is the last `tail_chars` of what was written."""

    def __init__(
        self,
        title: str,
        secrets: Sequence[str],
        stream: TextIO | None = None,
        *,
        tail_chars: int = WORKER_OUTPUT_TAIL_CHARS,
        log_chars: int = WORKER_LOG_MAX_CHARS,
    ):
        self._title = title
        self._secrets = [s for s in secrets if s]
        self._stream = stream
        self._tail_chars = tail_chars
        self._log_chars = log_chars
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._pending = ""  # the end of the output not yet written: a line not yet whole
        self._tail = ""
        self._logged = 0
        self._token: str | None = None  # the stop-commands token while the group is open
        self.chars = 0  # characters of output relayed in all

    @property
    def tail(self) -> str:
        return self._tail

    def feed(self, data: bytes) -> None:
        text = self._decoder.decode(data)
        if not text:
            return
        self._pending += text
        end = self._pending.rfind("\n")
        if end >= 0:
            whole, self._pending = self._pending[: end + 1], self._pending[end + 1 :]
            self._emit(redact_text(whole, self._secrets))
        if len(self._pending) > LONG_LINE_CHARS:
            redacted = redact_text(self._pending, self._secrets)
            keep = held_back(redacted, self._secrets)
            self._pending = redacted[len(redacted) - keep :] if keep else ""
            self._emit(redacted[: len(redacted) - keep])

    def close(self) -> None:
        rest = self._pending + self._decoder.decode(b"", final=True)
        self._pending = ""
        if rest:
            self._emit(redact_text(rest, self._secrets) + ("" if rest.endswith("\n") else "\n"))
        if self._token is not None:
            out = self._out()
            out.write(f"::{self._token}::\n::endgroup::\n")
            out.flush()
            self._token = None

    def _out(self) -> TextIO:
        import sys

        return self._stream if self._stream is not None else sys.stdout

    def _emit(self, text: str) -> None:
        if not text:
            return
        self.chars += len(text)
        self._tail = (self._tail + text)[-self._tail_chars :]
        out = self._out()
        if self._token is None:
            out.write(f"::group::{commands.escape_data(self._title)}\n")
            self._token = _stop_commands(out)
        room = self._log_chars - self._logged
        if room > 0:
            shown = text[:room]
            self._logged += len(shown)
            out.write(shown)
            if len(shown) < len(text):
                out.write(
                    f"\n… the worker's output past {self._log_chars:,} characters is not shown in the log "
                    f"(its last {self._tail_chars:,} are kept for an error message)\n"
                )
            out.flush()


def _stop_commands(out: TextIO) -> str:
    """Stop workflow commands in `out` (a token the output cannot guess); returns the token."""
    import secrets

    token = secrets.token_hex(16)
    out.write(f"::stop-commands::{token}\n")
    return token


def stream_process(
    argv: list[str],
    relay: OutputRelay,
    *,
    env: Mapping[str, str],
    cwd: Path | None = None,
    pass_fds: Sequence[int] = (),
) -> int:
    """Run `argv`, its stdout and stderr (one pipe, in the order written) fed to `relay` as they come;
    its exit status (negative: the signal that ended it)."""
    with subprocess.Popen(
        argv,
        env=dict(env),
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        pass_fds=tuple(pass_fds),
    ) as proc:
        assert proc.stdout is not None
        try:
            fd = proc.stdout.fileno()
            while True:
                data = os.read(fd, READ_BYTES)
                if not data:
                    break
                relay.feed(data)
        finally:
            relay.close()
        return proc.wait()
