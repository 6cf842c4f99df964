"""On-disk response cache: one JSON file per request key, written atomically.

What comes back is checked field by field: a damaged or wrong-shape entry is a miss (and the
fresh reply rewrites it), never an output. A folder that cannot be written turns the cache off
for the run, with one warning saying why."""

from __future__ import annotations

import json
import os
import tempfile
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
_OPTIONAL = {"tool_name": (str, type(None)), "tool_input": (dict, type(None)), "tool_uses": (list,), "stop_reason": (str, type(None)),
             "cache_read_tokens": (int,), "cache_write_tokens": (int,), "batch": (bool,)}


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


class ResponseCache:
    """Replies keyed by `ModelRequest.cache_key(repeat)`; a damaged entry counts as a miss."""

    def __init__(self, directory: Path | str):
        self.dir = Path(directory)
        self.unusable: str | None = None  # why the folder cannot be written, once a write failed

    @property
    def empty(self) -> bool:
        """No entry can be served: the folder is missing, empty or unreadable."""
        try:
            with os.scandir(self.dir) as entries:
                return next(entries, None) is None
        except OSError:
            return True

    def _path(self, key: str) -> Path:
        return self.dir / key[:2] / f"{key}.json"

    def get(self, key: str) -> ModelResponse | None:
        try:
            data = json.loads(self._path(key).read_bytes())
        except (OSError, ValueError, RecursionError):
            return None
        return entry_response(data)

    def put(self, key: str, response: ModelResponse) -> None:
        path = self._path(key)
        tmp = None
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump({"response": response.to_dict()}, fh)
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
