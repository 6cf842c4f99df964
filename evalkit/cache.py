"""On-disk response cache: one JSON file per request key, written atomically."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

from evalkit.providers.base import ModelResponse


def default_cache_dir() -> Path:
    env = os.environ.get("EVALKIT_CACHE_DIR")
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "evalkit"


class ResponseCache:
    """Replies keyed by `ModelRequest.cache_key(repeat)`; a damaged entry counts as a miss."""

    def __init__(self, directory: Path | str):
        self.dir = Path(directory)

    def _path(self, key: str) -> Path:
        return self.dir / key[:2] / f"{key}.json"

    def get(self, key: str) -> ModelResponse | None:
        try:
            data = json.loads(self._path(key).read_text(encoding="utf-8"))
            return ModelResponse.from_dict(data["response"])
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            return None

    def put(self, key: str, response: ModelResponse) -> None:
        path = self._path(key)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump({"response": response.to_dict()}, fh)
            os.replace(tmp, path)
        except OSError:
            # A read-only or full disk must not fail the run: the reply is still used.
            pass
