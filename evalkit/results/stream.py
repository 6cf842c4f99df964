"""The results stream: a run's JSONL, one line per event, flushed as it happens, so a run that
stops (Ctrl-C, SIGTERM, a crash) loses no finished case and can be resumed.

Every line carries the run's id. In file order:

    {"evalkit_results": 1, "run_id", "started_at", "suites", "options", "provenance"}  the header
    {"run_id", "suite_start": {SuiteResult without cases}, "planned": n}       a suite began (each session)
    {"run_id", "suite", "path", "index", "id", "verdict", "case": {CaseResult}} a case finished
    {"run_id", "stopped": {session totals}}                                    the session stopped early
    {"run_id", "resumed": {"started_at"}}                                      `run --resume` went on
    {"run_id", "end": {Report without cases}}                                  every case finished

A case line ends with its CaseResult, so the results JSON is assembled by copying those bytes
(evalkit/results/reader.py, the one reader). While running, the runner keeps only a `SuiteTally`
per suite: counts and usage, plus the whole result of the few cases a check across cases reads.

Every text is stored as it came where JSON can hold it; a lone surrogate, which UTF-8 cannot
encode, becomes U+FFFD (see evalkit/results/storable.py). A case whose result still cannot be written becomes an
error row that keeps its usage, never a lost run. Lines are written whole: a write that fails (a
full disk) is cut back to the last whole line, and raises an OutputError saying what was kept.
Secrets the front door knows (evalkit/_runtime/redaction.py) are replaced in every line as it is written.
"""

from __future__ import annotations

import functools
import json
import os
import uuid
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel

from evalkit._runtime.end_of_turn import before_next_wait
from evalkit._runtime.redaction import redacted
from evalkit.errors import OutputError, UsageError, one_line
from evalkit.llm.usage import Usage
from evalkit.results.report import CaseResult, ModelUse, RateLimitUse, Report, SuiteResult
from evalkit.results.storable import storable, storable_text
from evalkit.suite.model import Suite

FORMAT = 1
CASE_KEY = b', "case": '  # what separates a case line's head from its CaseResult


def new_run_id() -> str:
    return f"{datetime.now(timezone.utc):%Y%m%dT%H%M%SZ}-{uuid.uuid4().hex[:8]}"


def case_line(run_id: str, suite: SuiteResult, index: int, case: CaseResult) -> str:
    """One case's line: a small head the reader parses alone, then the whole CaseResult."""
    # The head is what json.dumps gives for {"run_id", "suite", "path", "index", "id", "verdict"};
    # its first three keys are the same for every case of a suite, written once.
    return (
        f'{_head_start(run_id, suite.name, suite.path)}, "index": {index:d}, "id": {json.dumps(case.id)}, '
        f'"verdict": {json.dumps(case.verdict)}{_CASE_KEY}{case.model_dump_json()}}}\n'
    )


@functools.lru_cache(maxsize=64)
def _head_start(run_id: str, suite: str, path: str) -> str:
    return json.dumps({"run_id": run_id, "suite": suite, "path": path})[:-1]


_CASE_KEY = CASE_KEY.decode()
M = TypeVar("M", bound=BaseModel)


def storable_model(model: M) -> M:
    """The model with every text made storable (a copy, validated again), for a model whose JSON
    could not be written as it was."""
    return type(model).model_validate(storable(model.model_dump()))


def model_json(model: BaseModel) -> str:
    """`model.model_dump_json()`, with lone surrogates replaced where there are some."""
    try:
        return model.model_dump_json()
    except ValueError:  # pydantic's serialisation error: UTF-8 cannot encode a lone surrogate
        return storable_model(model).model_dump_json()


def dumps(data: Any) -> str:
    """json.dumps for a line: text stored as itself (not \\u escapes), lone surrogates replaced."""
    try:
        text = json.dumps(data, ensure_ascii=False)
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return json.dumps(storable(data), ensure_ascii=False)


def unstorable_row(case: CaseResult, exc: BaseException) -> CaseResult:
    """What is kept of a case whose result cannot be written: its id, place, usage and an error."""
    return CaseResult(
        id=case.id,
        line=case.line,
        file=case.file,
        description=storable_text(case.description),
        usage=case.usage,
        verdict="error",
        queue_seconds=case.queue_seconds,
        wall_seconds=case.wall_seconds,
        reasons=[f"the case's result could not be stored: {type(exc).__name__}: {storable_text(one_line(exc))}"],
    )


@dataclass
class SessionTotals:
    """What one session of a run (a start or a resume) spent: the client's own counts."""

    usage: Usage = field(default_factory=Usage)
    models: list[ModelUse] = field(default_factory=list)
    rate_limit: RateLimitUse = field(default_factory=RateLimitUse)
    warnings: list[str] = field(default_factory=list)
    wall_seconds: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "usage": self.usage.model_dump(),
            "models": [m.model_dump() for m in self.models],
            "rate_limit": self.rate_limit.model_dump(),
            "warnings": self.warnings,
            "wall_seconds": round(self.wall_seconds, 3),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "SessionTotals":
        return cls(
            usage=Usage.model_validate(data.get("usage") or {}),
            models=[ModelUse.model_validate(m) for m in data.get("models") or []],
            rate_limit=RateLimitUse.model_validate(data.get("rate_limit") or {}),
            warnings=list(data.get("warnings") or []),
            wall_seconds=float(data.get("wall_seconds") or 0),
        )

    def add(self, other: "SessionTotals") -> None:
        self.usage.add(other.usage)
        by_model = {m.model: m for m in self.models}
        for use in other.models:
            have = by_model.get(use.model)
            if have is None:
                by_model[use.model] = use.model_copy(deep=True)
            else:
                have.roles = sorted(set(have.roles) | set(use.roles))
                have.usage.add(use.usage)
        self.models = [by_model[m] for m in sorted(by_model)]
        self.rate_limit = RateLimitUse(
            rejected=self.rate_limit.rejected + other.rate_limit.rejected,
            paused_seconds=self.rate_limit.paused_seconds + other.rate_limit.paused_seconds,
            paced=self.rate_limit.paced or other.rate_limit.paced,
        )
        self.warnings = list(dict.fromkeys(self.warnings + other.warnings))
        self.wall_seconds += other.wall_seconds


@dataclass
class SuiteTally:
    """The compact record of one suite's finished cases: what its verdict, its checks across
    cases and the summary need. Everything else is in the JSONL."""

    order: dict[str, int]  # case id -> position in the suite file (the report's order)
    keep: frozenset[str]  # ids a check across cases reads: their whole results stay in memory
    counts: Counter[str] = field(default_factory=Counter)
    usage: Usage = field(default_factory=Usage)
    kept: dict[str, CaseResult] = field(default_factory=dict)
    finished: set[str] = field(default_factory=set)

    def add(self, case: CaseResult) -> None:
        self.counts[case.verdict] += 1
        self.usage.add(case.usage)
        self.finished.add(case.id)
        if case.id in self.keep:
            self.kept[case.id] = case

    def close(self, result: SuiteResult) -> None:
        """Put the tally into the suite's result (its cases stay in the JSONL)."""
        result.counts = {v: n for v, n in sorted(self.counts.items()) if n}
        result.usage.add(self.usage)


def tally_for(suite: Suite) -> SuiteTally:
    """An empty tally that keeps whole the cases the suite's checks across cases read."""
    compared = {ref.case for cmp in suite.comparisons for ref in (cmp.left, cmp.right) if ref.case}
    return SuiteTally({c.id: k for k, c in enumerate(suite.cases)}, frozenset(compared))


class ResultsWriter:
    """Appends the lines of one run's JSONL. A case line is on disk before the event loop next
    waits for anything (see `case`); every other line is written at once. Lines go out whole."""

    def __init__(self, path: Path, run_id: str, *, keep_bytes: int | None = None):
        """A fresh file (truncating an old one), or with `keep_bytes` the first bytes of an
        interrupted run's file (a line torn by a crash is cut off) to append to."""
        self.path, self.run_id = path, run_id
        self.cases = 0  # case lines on disk, written by this writer
        self._pending: list[bytes] = []
        self._pending_cases = 0
        self._flush_due = False
        self._fd: int | None = None
        self._error: OutputError | None = None  # a write failed: every later one raises it
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(
                path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | (0 if keep_bytes is not None else os.O_TRUNC), 0o666
            )
            if keep_bytes is not None:
                os.ftruncate(fd, keep_bytes)
            self._size = os.fstat(fd).st_size
        except OSError as exc:
            raise OutputError(f"cannot write {path}: {exc.strerror or exc}") from None
        self._fd = fd

    def _write(self, text: str, *, soon: bool = False) -> None:
        """Append `text` (whole lines), written at once, or `soon`: before the event loop next
        waits for anything (see `case`; outside a running loop, at once)."""
        if self._error is not None:
            raise self._error
        if self._fd is None:
            return
        self._pending.append(redacted(text).encode("utf-8"))
        if soon and (self._flush_due or before_next_wait(self._flush_soon)):
            self._flush_due = True
            return
        self._flush()

    def _flush_soon(self) -> None:
        """The end-of-turn write: a failure is raised by the next call that writes (or by `close`)."""
        try:
            self._flush()
        except OutputError:
            pass

    def _flush(self) -> None:
        self._flush_due = False
        if self._error is not None:
            raise self._error
        if self._fd is None or not self._pending:
            return
        data = b"".join(self._pending)
        self._pending.clear()
        view = memoryview(data)
        try:
            while view:
                view = view[os.write(self._fd, view) :]
        except OSError as exc:
            self._failed(exc)
        self._size += len(data)
        self.cases += self._pending_cases
        self._pending_cases = 0

    def _failed(self, exc: OSError) -> None:
        """A write failed (a full disk, say): cut the file back to its last whole line, write no
        more, and say what is kept."""
        fd, self._fd = self._fd, None
        assert fd is not None
        try:
            os.ftruncate(fd, self._size)
        except OSError:
            pass
        os.close(fd)
        self._error = OutputError(
            f"could not write {self.path}: {exc.strerror or exc}; it keeps, whole, every line written before "
            f"({self.cases} finished case{'s' if self.cases != 1 else ''} of this session); make room, then "
            f"`evalkit run --resume {self.path}` runs the rest"
        )
        raise self._error

    def event(self, **data: Any) -> None:
        self._write(dumps({"run_id": self.run_id, **data}) + "\n")

    def header(self, started_at: str, suites: list[str], options: dict[str, Any], provenance: dict[str, Any]) -> None:
        self._write(
            dumps(
                {
                    "evalkit_results": FORMAT,
                    "run_id": self.run_id,
                    "started_at": started_at,
                    "suites": suites,
                    "options": options,
                    "provenance": provenance,
                }
            )
            + "\n"
        )

    def case(self, suite: SuiteResult, index: int, case: CaseResult) -> CaseResult:
        """Write the case's line; returns the result as written (text made storable, or an error
        row for a result that cannot be stored at all).

        The line is written with the others of this turn of the event loop, before the loop
        waits for anything again: at 32 calls in flight about six cases finish in one turn, and
        they take one write to the file, not six. A kill loses no more than a write per line
        would: the cases of the turn it interrupts, which `run --resume` runs again."""
        try:
            line = case_line(self.run_id, suite, index, case)
        except (ValueError, RecursionError):  # a lone surrogate in a reply, or worse
            try:
                case = storable_model(case)
                line = case_line(self.run_id, suite, index, case)
            except Exception as exc:
                case = unstorable_row(case, exc)
                line = case_line(self.run_id, suite, index, case)
        self._pending_cases += 1
        self._write(line, soon=True)
        return case

    def end(self, summary: Report) -> None:
        self._write(dumps({"run_id": self.run_id, "end": json.loads(model_json(summary))}) + "\n")

    def close(self) -> None:
        try:
            self._flush()
        finally:
            if self._fd is not None:
                os.close(self._fd)
                self._fd = None


class RunLock:
    """`RESULTS.jsonl.lock`, holding the pid of the run writing RESULTS.jsonl: a second run on the same
    output is refused (UsageError, exit 2) naming the first, so no run's results replace or mix with
    another's. The lock of a run that died (its pid is gone) is taken over."""

    def __init__(self, path: Path):
        self.path = path

    @classmethod
    def take(cls, results: Path) -> "RunLock":
        lock = results.with_name(results.name + ".lock")
        try:
            lock.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise OutputError(f"cannot write {results}: {exc.strerror or exc}") from None
        for _ in range(3):
            try:
                fd = os.open(lock, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
            except FileExistsError:
                holder = _lock_holder(lock)
                if holder is None and _young(lock):  # another run made it a moment ago and is writing its pid
                    holder = -1
                if holder == -1 or (holder is not None and holder != os.getpid() and _alive(holder)):
                    who = f"pid {holder}, " if holder > 0 else ""
                    raise UsageError(
                        f"{results} is being written by another evalkit run ({who}see {lock}): "
                        "wait for it to finish, or pass another --output"
                    ) from None
                try:  # a run that died left it: taken over
                    lock.unlink()
                except FileNotFoundError:
                    pass
                continue
            except OSError as exc:
                raise OutputError(f"cannot write {lock}: {exc.strerror or exc}") from None
            with os.fdopen(fd, "w") as f:
                f.write(f"{os.getpid()}\n")
            return cls(lock)
        raise UsageError(f"{results} is being written by another evalkit run (see {lock}): pass another --output")

    def release(self) -> None:
        try:
            if _lock_holder(self.path) == os.getpid():
                self.path.unlink()
        except OSError:
            pass


def _lock_holder(lock: Path) -> int | None:
    try:
        text = lock.read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return None
    return int(text) if text.isdigit() else None


def _young(lock: Path) -> bool:
    import time

    try:
        return time.time() - lock.stat().st_mtime < 5
    except OSError:
        return False


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process: alive
        return True
    return True
