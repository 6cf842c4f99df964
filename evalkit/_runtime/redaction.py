"""Secrets kept out of everything evalkit writes: the values of the environment's secret-like
variables (the API key, `*_TOKEN`, `*_KEY`, `*_SECRET`, passwords; 8 characters or more, so
that "1" is not replaced everywhere), read once when a front door starts.

`protect(env)` (the `evalkit` command does it before anything else) remembers them and puts a
redacting stream in front of `sys.stdout` and `sys.stderr`; the two writers of every output
file (the results stream, evalkit/results/stream.py, and evalkit/_runtime/atomic_write.py for the results JSON,
markdown, HTML and JUnit) replace them too, visibly: `[redacted ANTHROPIC_API_KEY]`. The worker
processes user code runs in get the same list and protect their own streams
(evalkit/workers/worker_main.py). The Action (evalkit/action/redact.py) uses the same list and
replaces with `***`, as GitHub's own mask does.
"""

from __future__ import annotations

import atexit
import io
import json
import re
import sys
import threading
from collections.abc import Iterable, Mapping
from typing import Any, TextIO

# Names whose values are credentials: an API key, tokens, secrets, passwords, anything `*_KEY`.
_SECRET_NAME = re.compile(r"(?i)(TOKEN|SECRET|PASSWORD|PASSWD|API_?KEY|PRIVATE_KEY|CREDENTIAL|_KEY$)")
_NOT_SECRET = frozenset(
    {
        "ACTIONS_ID_TOKEN_REQUEST_URL",
        "ACTIONS_RUNTIME_URL",
        "ACTIONS_RESULTS_URL",
        "ACTIONS_CACHE_URL",
        "INPUT_COMMENT_KEY",
    }
)
MIN_SECRET_CHARS = 8  # shorter values would redact ordinary words

_known: dict[str, str] = {}  # secret value -> what replaces it, longest first


def secret_values(env: Mapping[str, str]) -> list[str]:
    """Every secret-like value of `env` (longest first, each once)."""
    return list(labelled(env))


def secret_names(env: Mapping[str, str]) -> list[str]:
    """The names of the variables `secret_values` reads, and any other holding one of them."""
    values = set(secret_values(env))
    return [k for k, v in env.items() if v.strip() in values]


def labelled(env: Mapping[str, str]) -> dict[str, str]:
    """Each secret-like value of `env` (longest first) with what replaces it: `[redacted NAME]`."""
    found: dict[str, str] = {}
    for name in sorted(env):
        value = env[name].strip()
        if _SECRET_NAME.search(name) and name not in _NOT_SECRET and len(value) >= MIN_SECRET_CHARS:
            found.setdefault(value, f"[redacted {name}]")
    return {v: found[v] for v in sorted(found, key=lambda v: (-len(v), v))}


def redact_text(text: str, secrets: Iterable[str] | Mapping[str, str]) -> str:
    """`text` with every secret (raw or JSON-escaped) replaced: by its label when `secrets` is a
    mapping (see `labelled`), else by `***`."""
    labels = secrets if isinstance(secrets, Mapping) else dict.fromkeys(secrets, "***")
    for secret, label in labels.items():
        if len(secret) < MIN_SECRET_CHARS:
            continue
        escaped = json.dumps(secret)[1:-1]
        if escaped != secret and escaped in text:
            text = text.replace(escaped, label)
        if secret in text:
            text = text.replace(secret, label)
    return text


def known() -> dict[str, str]:
    """The secrets `protect` remembered (a copy), for a worker process to protect its own outputs."""
    return dict(_known)


def redacting() -> bool:
    """Whether `protect` remembered any secret."""
    return bool(_known)


def redacted(text: str) -> str:
    """`text` without the secrets `protect` remembered."""
    return redact_text(text, _known) if _known else text


def protect(secrets: Mapping[str, str]) -> None:
    """Remember `secrets` (value -> label) for every output of this process, and redact them
    from what is written to `sys.stdout` and `sys.stderr` from now on."""
    _known.clear()
    _known.update({v: secrets[v] for v in sorted(secrets, key=lambda v: (-len(v), v))})
    if not _known:
        return
    for name in ("stdout", "stderr"):
        stream = getattr(sys, name)
        if stream is not None and not isinstance(stream, RedactingStream):
            setattr(sys, name, RedactingStream(stream))
    global _draining
    if not _draining:
        _draining = True
        atexit.register(_drain_streams)


_draining = False


def _drain_streams() -> None:
    for name in ("stdout", "stderr"):
        stream = getattr(sys, name, None)
        if isinstance(stream, RedactingStream):
            try:
                stream.drain()
            except (OSError, ValueError):
                pass


def held_back(text: str, secrets: Iterable[str]) -> int:
    """How many characters at the end of `text` could be the start of a secret (raw or
    JSON-escaped) that the next write completes: the longest such tail."""
    longest = 0
    for secret in secrets:
        for form in {secret, json.dumps(secret)[1:-1]}:
            first = form[0]
            # Only tails shorter than the secret, starting with its first character, can be its start.
            start = max(len(text) - len(form) + 1, 0)
            pos = text.find(first, start)
            while pos != -1:
                tail = len(text) - pos
                if tail > longest and form.startswith(text[pos:]):
                    longest = tail
                    break  # the first match from the left is the longest for this form
                pos = text.find(first, pos + 1)
    return longest


class RedactingStream(io.TextIOBase):
    """A text stream that writes to another with the remembered secrets replaced. It offers no
    binary `buffer`: bytes written through it are decoded and redacted too.

    Redaction is on the whole text written, not on each `write`: a secret written in two pieces
    (`write(key[:10]); write(key[10:])`) is replaced too. A tail that could be the start of a secret
    is held back until the next write shows whether it is one, or until `drain()` (at the end of
    the process, or `close()`)."""

    def __init__(self, stream: TextIO):
        super().__init__()
        self._stream = stream
        self._held = ""
        self._lock = threading.Lock()  # the run's own writes and its workers' relayed output

    def write(self, text: Any) -> int:
        if isinstance(text, (bytes, bytearray)):
            text = bytes(text).decode(self.encoding or "utf-8", "replace")
        with self._lock:
            return self._write(text)

    def _write(self, text: str) -> int:
        if not _known:
            self._stream.write(self._held + text)
            self._held = ""
            return len(text)
        whole = redacted(self._held + text)
        keep = held_back(whole, _known)
        self._held = whole[len(whole) - keep :] if keep else ""
        if len(whole) > keep:
            self._stream.write(whole[: len(whole) - keep])
        return len(text)

    def drain(self) -> None:
        """Write what was held back (it did not become a secret) and flush."""
        with self._lock:
            if self._held:
                held, self._held = self._held, ""
                self._stream.write(held)
        self._stream.flush()

    def writelines(self, lines: Iterable[str]) -> None:  # type: ignore[override]  # text only, as the stream it wraps
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        self._stream.flush()

    def writable(self) -> bool:
        return True

    def isatty(self) -> bool:
        return self._stream.isatty()

    def fileno(self) -> int:
        return self._stream.fileno()

    @property
    def encoding(self) -> str:  # type: ignore[override]  # a read-only property over TextIOWrapper's attribute
        return getattr(self._stream, "encoding", None) or "utf-8"

    @property
    def errors(self) -> str | None:  # type: ignore[override]  # as for encoding
        return getattr(self._stream, "errors", None)

    def close(self) -> None:  # user code that closes sys.stdout cannot close evalkit's own output
        self.drain()
