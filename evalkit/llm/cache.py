"""On-disk response cache: one JSON file per request key, written atomically.

What comes back is checked field by field: a damaged or wrong-shape entry is a miss (and the
fresh reply rewrites it), never an output. A folder that cannot be written turns the cache off
for the run, with one warning saying why.

Every entry is sealed: an HMAC-SHA256 of its key and its reply, with a key user code does not
hold. The folder is writable by whatever runs as the same user — a target included — so an entry
rewritten by anyone but evalkit (a judge's "fail" turned into "pass", one entry copied over
another's key) fails its seal and is a miss, never a served reply. The seal's key is, in order:
the one a front door gave (`use_seal`: the Action's entrypoint hands its worker one derived from
the API key, which the worker never sees), else one derived from the `ANTHROPIC_API_KEY` of the
environment (`seal_from`: the `evalkit` command reads it before any user code runs, and its
workers get no key), else a random key kept in the cache folder (`seal.key`, mode 0600), which
only tells evalkit's entries from damaged ones: without an API key nothing is paid for."""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from evalkit.llm.providers.interface import ModelResponse


def default_cache_dir() -> Path:
    env = os.environ.get("EVALKIT_CACHE_DIR")
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "evalkit"


# The stored reply's fields and their JSON types: the first four are required, the rest may be
# absent (older entries) but not of another type.
_REQUIRED = {"text": (str,), "model": (str,), "input_tokens": (int,), "output_tokens": (int,)}
_OPTIONAL = {
    "tool_name": (str, type(None)),
    "tool_input": (dict, type(None)),
    "tool_uses": (list,),
    "stop_reason": (str, type(None)),
    "cache_read_tokens": (int,),
    "cache_write_tokens": (int,),
    "batch": (bool,),
}


def entry_response(data: Any) -> ModelResponse | None:
    """The reply a cache entry holds, or None when the entry is not exactly the shape `put` writes."""
    reply = data.get("response") if isinstance(data, dict) else None
    if not isinstance(reply, dict):
        return None
    for name, types in (*_REQUIRED.items(), *_OPTIONAL.items()):
        if name not in reply:
            if name in _REQUIRED:
                return None
            continue
        value = reply[name]
        if not isinstance(value, types) or (isinstance(value, bool) and bool not in types):
            return None
        if isinstance(value, int) and not isinstance(value, bool) and value < 0:
            return None
    return ModelResponse.from_dict(reply)


_SEAL_LABEL = b"evalkit response cache seal 1"
SEAL_FILE = "seal.key"
_seal: bytes | None = None  # the key a front door set for this process


def derive_seal(api_key: str) -> bytes:
    """The seal's key for the run that calls the model with `api_key` (which it does not reveal)."""
    return hmac.new(api_key.strip().encode("utf-8"), _SEAL_LABEL, hashlib.sha256).digest()


def use_seal(key: bytes | None) -> None:
    """Seal and check every entry of this process's caches with `key` (None: decide per folder)."""
    global _seal
    _seal = key


def seal_from(env: Mapping[str, str]) -> None:
    """Seal with a key derived from `env`'s ANTHROPIC_API_KEY, when it has one."""
    api_key = (env.get("ANTHROPIC_API_KEY") or "").strip()
    use_seal(derive_seal(api_key) if api_key else None)


def _folder_seal(directory: Path) -> bytes:
    """The random key kept in `directory` (made on first use); a fresh one for this process when
    the folder cannot hold it."""
    path = directory / SEAL_FILE
    try:
        data = path.read_bytes()
        if len(data) == 64:
            return bytes.fromhex(data.decode("ascii"))
    except (OSError, ValueError):
        pass
    key = secrets.token_bytes(32)
    try:
        directory.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=directory, suffix=".tmp")
        with os.fdopen(fd, "w", encoding="ascii") as fh:
            fh.write(key.hex())
        try:
            os.link(tmp, path)  # the first writer's key wins; a concurrent run reads it
        except FileExistsError:
            os.unlink(tmp)
            return _folder_seal(directory)
        os.unlink(tmp)
    except OSError:
        pass
    return key


def _sealed(seal: bytes, key: str, reply: Mapping[str, Any]) -> str:
    body = json.dumps(reply, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hmac.new(seal, f"{key}\n{body}".encode("utf-8"), hashlib.sha256).hexdigest()


class ResponseCache:
    """Replies keyed by `ModelRequest.cache_key(repeat)`; a damaged entry, or one whose seal does
    not match, counts as a miss."""

    def __init__(self, directory: Path | str, seal: bytes | None = None):
        self.dir = Path(directory)
        self.unusable: str | None = None  # why the folder cannot be written, once a write failed
        self._seal = seal

    @property
    def seal(self) -> bytes:
        if self._seal is None:
            self._seal = _seal if _seal is not None else _folder_seal(self.dir)
        return self._seal

    @property
    def empty(self) -> bool:
        """No entry can be served: the folder is missing, empty or unreadable."""
        try:
            with os.scandir(self.dir) as entries:
                return not any(entry.name != SEAL_FILE for entry in entries)
        except OSError:
            return True

    def _path(self, key: str) -> Path:
        return self.dir / key[:2] / f"{key}.json"

    def get(self, key: str) -> ModelResponse | None:
        try:
            data = json.loads(self._path(key).read_bytes())
        except (OSError, ValueError, RecursionError):
            return None
        seal = data.get("seal") if isinstance(data, dict) else None
        reply = data.get("response") if isinstance(data, dict) else None
        if not isinstance(seal, str) or not isinstance(reply, dict):
            return None
        try:
            expected = _sealed(self.seal, key, reply)
        except (ValueError, RecursionError):
            return None
        if not hmac.compare_digest(seal, expected):
            return None  # not written by evalkit with this key: a miss, and the fresh reply rewrites it
        return entry_response(data)

    def put(self, key: str, response: ModelResponse) -> None:
        path = self._path(key)
        tmp = None
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
            reply = response.to_dict()
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump({"response": reply, "seal": _sealed(self.seal, key, reply)}, fh)
            os.replace(tmp, path)
        except OSError as exc:
            # A read-only, misplaced or full cache must not fail the run: the reply is still used.
            if tmp is not None:
                _remove(tmp)
            why = exc.strerror or type(exc).__name__
            self.unusable = f"response cache {self.dir} is unusable ({why}); this run goes on without it"


def _remove(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass
