"""The one reader of a run's JSONL (the format: evalkit/results/stream.py). Everything that reads
results back goes through `scan_results`: the results JSON each run writes (`write_report`, which
copies the cases' bytes and so needs no memory per case), `evalkit report` and `evalkit compare`
on a JSONL (`load_report`), and `evalkit run --resume` (`carry_over`, `prior_totals`).

A run that did not finish (no `end` line) reads as a partial Report: its finished cases, their
suites' verdicts from the same gates, no checks across cases (they need every case)."""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, BinaryIO

from evalkit._runtime.atomic_write import write_atomic
from evalkit.llm.usage import Usage
from evalkit.results.gates import suite_verdict, worst
from evalkit.results.report import CaseResult, Report, SuiteResult
from evalkit.results.stream import CASE_KEY, SessionTotals, SuiteTally, model_json


@dataclass(slots=True)
class CaseSpan:
    """Where one finished case's CaseResult lies in the file, and what the runner needs of it."""

    path: str
    index: int
    id: str
    verdict: str
    start: int
    end: int
    session: int


@dataclass
class Session:
    started_at: str = ""
    totals: SessionTotals | None = None  # from its `stopped` line; None if it finished or was killed


@dataclass
class Scan:
    path: Path
    header: dict[str, Any] | None = None
    suites: dict[str, dict[str, Any]] = field(default_factory=dict)  # suite path -> {"name", "start", "planned"}
    cases: dict[tuple[str, str], CaseSpan] = field(default_factory=dict)
    sessions: list[Session] = field(default_factory=lambda: [Session()])
    end: dict[str, Any] | None = None
    size: int = 0  # bytes of whole lines: a line torn by a crash is left out

    @property
    def run_id(self) -> str | None:
        return self.header["run_id"] if self.header else None

    def spans(self, path: str | None = None) -> list[CaseSpan]:
        """Finished cases (of one suite), in their suite file's order."""
        found = [s for s in self.cases.values() if path is None or s.path == path]
        return sorted(found, key=lambda s: s.index)


def scan_results(path: Path) -> Scan:
    """Read a JSONL's lines (not its CaseResults). ValueError naming the line when it is not one."""
    scan = Scan(path)
    offset = 0
    with path.open("rb") as f:
        for number, raw in enumerate(f, 1):
            if not raw.endswith(b"\n"):
                break  # torn by a crash in the middle of a write: never a finished case
            start, offset = offset, offset + len(raw)
            if raw.strip():
                try:
                    _line(scan, raw, start, f)
                except (ValueError, KeyError, TypeError) as exc:
                    raise ValueError(
                        f"line {number}: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}"
                    ) from None
            scan.size = offset
    return scan


def _line(scan: Scan, raw: bytes, start: int, f: BinaryIO) -> None:
    k = raw.find(CASE_KEY)
    if k > 0:
        head = json.loads(raw[:k] + b"}")
        if "suite" in head:
            _check_run(scan, head)
            body_start, body_end = start + k + len(CASE_KEY), start + len(raw.rstrip(b"\r\n")) - 1
            if "id" not in head:  # a line written before run ids: the id is inside the case
                case = json.loads(raw[k + len(CASE_KEY) : len(raw.rstrip(b"\r\n")) - 1])
                head.update(id=case["id"], verdict=case["verdict"], index=len(scan.cases))
            path = sys.intern(str(head.get("path", "")))
            scan.suites.setdefault(path, {"name": str(head["suite"])})
            scan.cases[(path, str(head["id"]))] = CaseSpan(
                path,
                int(head["index"]),
                str(head["id"]),
                str(head["verdict"]),
                body_start,
                body_end,
                len(scan.sessions) - 1,
            )
            return
    row = json.loads(raw)
    if not isinstance(row, dict):
        raise ValueError("not a JSON object")
    if "evalkit_results" in row:
        if scan.header is not None or scan.cases:
            raise ValueError("a second header: two runs in one file")
        scan.header = row
        scan.sessions[0].started_at = str(row.get("started_at", ""))
        return
    _check_run(scan, row)
    if "suite_start" in row:
        result = row["suite_start"]
        scan.suites[sys.intern(str(result["path"]))] = {
            "name": result["name"],
            "start": result,
            "planned": row.get("planned"),
        }
    elif "stopped" in row:
        scan.sessions[-1].totals = SessionTotals.from_json(row["stopped"])
    elif "resumed" in row:
        scan.sessions.append(Session(str(row["resumed"].get("started_at", ""))))
    elif "end" in row:
        scan.end = row["end"]
    else:
        raise ValueError("not a line of an evalkit results file")


def _check_run(scan: Scan, row: dict[str, Any]) -> None:
    if scan.run_id is not None and row.get("run_id") != scan.run_id:
        raise ValueError(f"it belongs to run {row.get('run_id')}, not to run {scan.run_id} (the header's)")


def read_case(f: BinaryIO, span: CaseSpan) -> bytes:
    f.seek(span.start)
    return f.read(span.end - span.start)


def prior_totals(scan: Scan) -> SessionTotals:
    """What the sessions so far spent; a session killed before it could say is counted from its cases."""
    if scan.end is not None:  # the run had finished: its end line has every session's totals
        return SessionTotals.from_json(scan.end)
    total = SessionTotals()
    with scan.path.open("rb") as f:
        for number, session in enumerate(scan.sessions):
            if session.totals is None:
                counted = SessionTotals()
                for span in scan.cases.values():
                    if span.session == number:
                        counted.usage.add(Usage.model_validate(json.loads(read_case(f, span)).get("usage") or {}))
                session_totals = counted
            else:
                session_totals = session.totals
            total.add(session_totals)
    return total


def carry_over(scan: Scan, path: str, tally: SuiteTally) -> None:
    """Put the suite's cases finished in earlier sessions into `tally` (a resumed run skips them)."""
    with scan.path.open("rb") as f:
        for span in scan.spans(path):
            data = json.loads(read_case(f, span))
            if span.id in tally.keep:
                tally.add(CaseResult.model_validate(data))
            else:
                tally.counts[span.verdict] += 1
                tally.usage.add(Usage.model_validate(data.get("usage") or {}))
                tally.finished.add(span.id)


def summary_of(scan: Scan) -> Report:
    """The Report without its cases: the run's own end line, or for a run that stopped, one made
    from its finished cases (marked partial)."""
    if scan.end is not None:
        return Report.model_validate(scan.end)
    header = scan.header or {}
    suites = []
    for path, info in scan.suites.items():
        suite = (
            SuiteResult.model_validate(info["start"])
            if info.get("start")
            else SuiteResult(name=info["name"], path=path, verdict="skipped")
        )
        suite.counts = {}
        for span in scan.spans(path):
            suite.counts[span.verdict] = suite.counts.get(span.verdict, 0) + 1
        suite.verdict = suite_verdict(suite)
        suites.append(suite)
    totals = prior_totals(scan)
    planned = [info["planned"] for info in scan.suites.values() if isinstance(info.get("planned"), int)]
    of = f" of {sum(planned)}" if planned and len(planned) == len(scan.suites) else ""
    note = (
        (f"partial run: {len(scan.cases)}{of} cases finished; `evalkit run --resume {scan.path}` completes it")
        if scan.header
        else f"partial run: {len(scan.cases)} cases finished"
    )
    return Report(
        verdict=worst([s.verdict for s in suites]),
        suites=suites,
        usage=totals.usage,
        models=totals.models,
        warnings=[note, *totals.warnings],
        started_at=str(header.get("started_at", "")),
        wall_seconds=round(totals.wall_seconds, 3),
        results_path=str(scan.path),
        provenance=header.get("provenance"),
        rate_limit=totals.rate_limit,
        shard=(header.get("options") or {}).get("shard"),
        run_id=scan.run_id,
        partial=True,
    )


def load_report(path: str | Path) -> Report:
    """The whole Report of a JSONL (every CaseResult in memory: for rendering, not for running)."""
    scan = scan_results(Path(path))
    if not scan.cases and scan.end is None and not scan.suites:
        raise ValueError("no cases in the file")
    report = summary_of(scan)
    by_path = {s.path: s for s in report.suites}
    with scan.path.open("rb") as f:
        for span in scan.spans():
            suite = by_path.get(span.path)
            if suite is None:
                raise ValueError(f"case {span.id} of {span.path}, a suite the run's end line does not list")
            suite.cases.append(CaseResult.model_validate_json(read_case(f, span)))
    return report


def write_report(jsonl: Path, out: Path, summary: Report | None = None) -> Report:
    """Write the results JSON of the run in `jsonl` to `out`, copying each case's bytes from the
    JSONL (memory stays flat however many cases); returns the summary (the Report without cases).
    Written whole or not at all (evalkit/_runtime/atomic_write.py): OutputError when it cannot be."""
    scan = scan_results(jsonl)
    summary = summary or summary_of(scan)
    top = json.loads(model_json(summary))
    suites = top.pop("suites")

    def write(sink: IO[str]) -> None:
        sink.write(json.dumps(top, indent=2)[:-2] + ',\n  "suites": [')
        for i, suite in enumerate(suites):
            suite.pop("cases", None)
            sink.write(("," if i else "") + "\n    " + json.dumps(suite)[:-1] + ', "cases": [')
            _copy_cases(source, sink, scan.spans(suite["path"]))
            sink.write("]}")
        sink.write("\n  ]\n}\n")

    with jsonl.open("rb") as source:
        write_atomic(out, write)
    return summary


def _copy_cases(source: BinaryIO, sink: IO[str], spans: list[CaseSpan]) -> None:
    for j, span in enumerate(spans):
        sink.write(("," if j else "") + "\n      ")
        sink.write(read_case(source, span).decode("utf-8"))
