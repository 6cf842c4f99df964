"""The history file: created with the current schema, an older schema migrated in place, and every
file that is not an evalkit history refused with one line."""

from __future__ import annotations

import sqlite3

import pytest

from evalkit.errors import UsageError
from evalkit.history.connection import HistoryConnection
from evalkit.history.database import SQLITE_ERRORS, migrate, open_history, schema_version
from evalkit.history.dialect import APPLICATION_ID, SQLITE
from evalkit.history.migrations import SCHEMA_VERSION
from evalkit.history.queries import case_outcomes, runs
from evalkit.history.recording import record
from tests.history.conftest import case, report


def test_a_new_history_gets_the_current_schema(tmp_path):
    conn = open_history(tmp_path / "deep" / "h.sqlite", create=True)
    assert schema_version(conn) == SCHEMA_VERSION == 2
    assert conn.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID


def test_reading_a_missing_history_is_one_line(tmp_path):
    with pytest.raises(UsageError, match="no history at .*record a run first"):
        open_history(tmp_path / "none.sqlite")
    assert not (tmp_path / "none.sqlite").exists()


def test_a_history_of_the_first_schema_is_migrated_and_keeps_its_runs(tmp_path):
    path = tmp_path / "old.sqlite"
    old = HistoryConnection(sqlite3.connect(path, isolation_level=None), SQLITE, str(path), SQLITE_ERRORS)
    assert migrate(old, upto=1) == 1
    old.execute("INSERT INTO runs VALUES (1, 'r1', '2025-01-01', '2025-01-01', 'c1', 'main', 'pass', 0.5, 2.0, 3)")
    old.execute("INSERT INTO suite_runs VALUES (1, 'qa', 'h', 'agent:answer', '{}', 'pass', 1, 1, 0.5, 2.0)")
    old.execute("INSERT INTO case_runs VALUES (1, 'qa', 'a', 'pass', 'i', 1, 1, 0.5, 2.0)")
    old.close()

    conn = open_history(path)
    assert schema_version(conn) == 2
    assert [r.number for r in runs(conn)] == [1]
    assert conn.execute("SELECT latency_median FROM suite_runs").fetchone() == (None,)
    record(conn, report(case("a", "fail")), branch="main")  # the new tables take the next run
    assert [o.verdict for o in case_outcomes(conn, "a")] == ["pass", "fail"]
    assert [o.failed_items for o in case_outcomes(conn, "a")] == [[], ["tone"]]


def test_a_text_file_is_refused(tmp_path):
    path = tmp_path / "notes.sqlite"
    path.write_text("remember the milk\n")
    with pytest.raises(UsageError, match="not an evalkit history: it is not an SQLite database"):
        open_history(path, create=True)
    assert path.read_text() == "remember the milk\n"


def test_another_programs_sqlite_database_is_refused_and_left_alone(tmp_path):
    path = tmp_path / "app.db"
    other = sqlite3.connect(path)
    other.execute("CREATE TABLE users (name TEXT)")
    other.commit()
    other.close()
    with pytest.raises(UsageError, match=r"an SQLite database of something else \(tables: users\)"):
        open_history(path, create=True)
    check = sqlite3.connect(path)
    assert [r[0] for r in check.execute("SELECT name FROM sqlite_master")] == ["users"]


def test_a_damaged_history_is_refused_with_one_line(tmp_path):
    path = tmp_path / "h.sqlite"
    conn = open_history(path, create=True)
    for n in range(30):
        record(conn, report(case("a", "pass"), case("b", "fail")), branch="main")
    conn.close()
    data = bytearray(path.read_bytes())
    page = 4096
    data[page * 2 : page * 4] = b"\xff" * (page * 2)  # two pages of the tables overwritten
    path.write_bytes(bytes(data))
    with pytest.raises(UsageError) as caught:
        open_history(path)
    assert "\n" not in str(caught.value)
    assert "damaged" in str(caught.value) or "not a usable evalkit history" in str(caught.value)


def test_a_history_from_a_newer_evalkit_is_refused(tmp_path):
    path = tmp_path / "h.sqlite"
    conn = open_history(path, create=True)
    conn.execute("UPDATE schema_version SET version = 99")
    conn.close()
    with pytest.raises(UsageError, match="newer evalkit .*schema 99"):
        open_history(path)
