"""Reports built in code for the history's tests (one suite, cases with their runs and items), and
where a test keeps its history: an SQLite file, or a database on a throwaway PostgreSQL server."""

from __future__ import annotations

import uuid

import pytest

from evalkit.results.provenance import Provenance
from evalkit.results.report import CaseResult, ItemResult, Report, RunResult, SuiteResult
from tests.history import postgres_server as postgres_server_module


def item(item_id: str, status: str, *, critical: bool = False, decided_by: str = "code") -> ItemResult:
    return ItemResult(
        id=item_id,
        text=f"{item_id} holds",
        status=status,
        critical=critical,  # type: ignore[arg-type]
        decided_by=decided_by,
        reason=f"{item_id} {status}",
    )  # type: ignore[arg-type]


def case(
    case_id: str, *statuses: str, item_id: str = "tone", critical: bool = False, case_input: object = None
) -> CaseResult:
    """A case with one run per status of its one item; its verdict fails when any run failed."""
    runs = [
        RunResult(repeat=i, items=[item(item_id, s, critical=critical)], passed=s == "pass", wall_seconds=0.5)
        for i, s in enumerate(statuses)
    ]
    verdict = "pass" if all(s == "pass" for s in statuses) else "fail"
    return CaseResult(
        id=case_id,
        verdict=verdict,
        runs=runs,
        input=case_input or {"q": case_id},  # type: ignore[arg-type]
        critical_failures=[item_id] if critical and verdict == "fail" else [],
    )


def report(
    *cases: CaseResult,
    suite_file_hash: str = "h1",
    commit: str = "c0",
    models: dict | None = None,
    run_id: str | None = None,
    started_at: str = "2026-01-01T00:00:00+00:00",
) -> Report:
    """A run of suite `qa` (/repo/suites/qa.yml), its provenance naming the suite file's hash."""
    verdict = "pass" if all(c.verdict == "pass" for c in cases) else "fail"
    suite = SuiteResult(
        name="qa",
        path="/repo/suites/qa.yml",
        verdict=verdict,
        target="agent:answer",  # type: ignore[arg-type]
        cases=list(cases),
        models=models or {"target": "m1", "judge": "j1"},
    )
    return Report(
        verdict=verdict,
        suites=[suite],
        run_id=run_id or uuid.uuid4().hex,
        started_at=started_at,  # type: ignore[arg-type]
        provenance=Provenance(git_commit=commit, files={"suites/qa.yml": suite_file_hash}),
    )


@pytest.fixture(scope="session")
def postgres_server():
    """One throwaway PostgreSQL server a test session (a worker), stopped at its end."""
    server = postgres_server_module.start()
    yield server
    server.stop()


@pytest.fixture
def postgres_url(postgres_server) -> str:
    """A new, empty database on the throwaway server: its URL (the unix socket, no password)."""
    return postgres_server.socket_url(postgres_server.new_database())


@pytest.fixture(params=["sqlite", "postgresql"])
def history_at(request, tmp_path) -> str:
    """Where a backend-agnostic test keeps its history: a new SQLite file, or a new PostgreSQL database."""
    if request.param == "sqlite":
        return str(tmp_path / "h.sqlite")
    return request.getfixturevalue("postgres_url")
