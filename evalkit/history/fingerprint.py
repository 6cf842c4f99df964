"""What a suite's and a case's outcome depends on, as hashes: two runs of a case with the same
fingerprint ran the same suite files, target, models and input, so a different outcome between
them is the case's own noise, not a change."""

from __future__ import annotations

import hashlib
import json
from pathlib import PurePosixPath
from typing import Any

from evalkit.results.provenance import TEMPLATE_SUFFIXES, Provenance
from evalkit.results.report import SuiteResult


def suite_hash(suite: SuiteResult, provenance: Provenance | None) -> str | None:
    """sha256 over the hashes the run's provenance gives the suite's file, its cases' files and the
    templates under its folder; None when the provenance does not name the suite's file (an older
    results file): such a run's outcomes never count as flaky."""
    if provenance is None:
        return None
    path = PurePosixPath(str(suite.path).replace("\\", "/"))
    own = next((label for label in provenance.files if _ends_with(path, label)), None)
    if own is None:
        return None
    root = str(path)[: len(str(path)) - len(own)]  # the provenance's labels are relative to this
    folder = PurePosixPath(own).parent
    case_files = {_relative(str(c.file), root) for c in suite.cases if c.file}
    mine = {
        label: digest
        for label, digest in provenance.files.items()
        if label == own
        or label in case_files
        or (PurePosixPath(label).suffix in TEMPLATE_SUFFIXES and PurePosixPath(label).is_relative_to(folder))
    }
    return hashlib.sha256(json.dumps(sorted(mine.items())).encode()).hexdigest()


def _ends_with(path: PurePosixPath, label: str) -> bool:
    parts = PurePosixPath(label).parts
    return bool(parts) and path.parts[-len(parts) :] == parts


def _relative(file: str, root: str) -> str:
    file = file.replace("\\", "/")
    return file[len(root) :] if root and file.startswith(root) else file


def input_hash(case_input: Any) -> str:
    """sha256 of the case's input, as JSON with sorted keys."""
    text = json.dumps(case_input, sort_keys=True, default=repr, ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
