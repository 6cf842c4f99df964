"""Read a results file for comparison: the JSON report, or the JSONL of a run (what an
interrupted run leaves), read by the one JSONL reader."""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import ValidationError

from evalkit.errors import UsageError
from evalkit.results.reader import load_report
from evalkit.results.report import Report


def load_results(path: str | Path) -> Report:
    """A Report from `path`; UsageError (exit 2) naming the file when it is neither format."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror or exc}") from None
    try:
        try:
            whole = json.loads(text)
        except ValueError:
            whole = None  # several JSON values: a run's JSONL
        if isinstance(whole, dict) and "verdict" in whole:
            return Report.model_validate(whole)
        return load_report(path)
    except (ValidationError, ValueError, KeyError, TypeError) as exc:
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise UsageError(f"{path} is not an evalkit results file (JSON report or JSONL): {first}") from None
