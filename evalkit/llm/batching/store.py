"""The batches a run has submitted, saved beside its results (`RESULTS.batches.json`), so an
interrupted run resumes by batch id instead of submitting (and paying for) the requests again."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path


def store_path_for(results: Path) -> Path:
    """`runs/x.json` -> `runs/x.batches.json`."""
    return results.with_name(results.stem + ".batches.json")


class BatchStore:
    """Batch id -> the custom ids it holds; rewritten atomically on every change."""

    def __init__(self, path: Path):
        self.path = path
        self.batches: dict[str, list[str]] = self._load()

    def _load(self) -> dict[str, list[str]]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            batches = data["batches"]
            return {str(k): [str(c) for c in v] for k, v in batches.items()}
        except FileNotFoundError:
            return {}
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            # A damaged file costs a resubmission, never the run.
            return {}

    def by_custom_id(self) -> dict[str, str]:
        return {cid: batch_id for batch_id, ids in self.batches.items() for cid in ids}

    def add(self, batch_id: str, custom_ids: list[str]) -> None:
        self.batches[batch_id] = list(custom_ids)
        self._save()

    def clear(self) -> None:
        """The run finished: every batch's results are in the report (and the response cache)."""
        self.batches = {}
        self.path.unlink(missing_ok=True)

    def _save(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=self.path.parent, suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump({"batches": self.batches}, fh)
        os.replace(tmp, self.path)
