"""Read a results file for comparison: the JSON report, or the JSONL of finished cases (what an
interrupted run leaves)."""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import ValidationError

from evalkit.errors import UsageError
from evalkit.report import CaseResult, Report, SuiteResult, Verdict

_SEVERITY = {"skipped": 0, "pass": 1, "inconclusive": 2, "fail": 3, "error": 4}


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
            whole = None  # several JSON values: the JSONL of finished cases
        if isinstance(whole, dict) and "verdict" in whole:
            return Report.model_validate(whole)
        return _from_jsonl(text)
    except (ValidationError, ValueError, KeyError, TypeError) as exc:
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise UsageError(f"{path} is not an evalkit results file (JSON report or JSONL): {first}") from None


def _worst(verdicts: list[Verdict]) -> Verdict:
    return max(verdicts, key=_SEVERITY.__getitem__, default="skipped")


def _from_jsonl(text: str) -> Report:
    suites: dict[str, SuiteResult] = {}
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            case = CaseResult.model_validate(row["case"])
            name, where = str(row["suite"]), str(row.get("path", ""))
        except (ValueError, KeyError, TypeError) as exc:
            raise ValueError(f"line {number}: {str(exc).splitlines()[0]}") from None
        suite = suites.setdefault(name, SuiteResult(name=name, path=where, verdict="skipped"))
        # A re-run appended to the same file replaces the earlier row of that case.
        suite.cases = [c for c in suite.cases if c.id != case.id] + [case]
    if not suites:
        raise ValueError("no cases in the file")
    for suite in suites.values():
        suite.verdict = _worst([c.verdict for c in suite.cases])
    return Report(verdict=_worst([s.verdict for s in suites.values()]), suites=list(suites.values()))
