"""Open a history: a SQLite file (the default) or a PostgreSQL database (a URL). Refuse what is not
an evalkit history (another file, another program's database, a damaged file) with one line, and
bring an older schema up to date.

Every write runs in one transaction that takes the write lock first (SQLite: `BEGIN IMMEDIATE`;
PostgreSQL: an advisory lock): a second writer waits for the first (up to `BUSY_SECONDS`), and a
writer killed halfway leaves nothing (SQLite rolls its journal back at the next open, PostgreSQL
when the connection drops), so a run is in the history whole or not at all."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from evalkit.errors import UsageError
from evalkit.history.connection import DriverErrors, HistoryBusy, HistoryConnection, HistoryError
from evalkit.history.dialect import SQLITE
from evalkit.history.location import is_server_url, shown
from evalkit.history.migrations import MIGRATIONS, SCHEMA_VERSION, statements

DEFAULT_PATH = Path(".evalkit") / "history.sqlite"
SQLITE_HEADER = b"SQLite format 3\x00"
BUSY_SECONDS = 60.0
SQLITE_ERRORS = DriverErrors(
    base=sqlite3.Error, conflict=sqlite3.IntegrityError, is_busy=lambda exc: "locked" in str(exc) or "busy" in str(exc)
)


def open_history(target: str | Path, *, create: bool = False) -> HistoryConnection:
    """A connection to the history at `target` (a file path or a PostgreSQL URL), its schema current;
    UsageError (one line) when it is missing (unless `create`; a PostgreSQL database must exist, its
    tables are made), unreachable, not SQLite, another program's database, damaged or newer than us."""
    if is_server_url(target):
        from evalkit.history.postgres import connect  # psycopg is an optional extra

        conn = connect(str(target))
    else:
        conn = _open_file(Path(target), create)
    try:
        _refuse_foreign_or_damaged(conn)
        migrate(conn)
    except HistoryError as exc:
        conn.close()
        raise busy_or_broken(conn.where, exc) from None
    except BaseException:
        conn.close()
        raise
    return conn


def busy_or_broken(where: Path | str, exc: HistoryError) -> UsageError:
    """The one line for a database error: another writer holding the lock too long, or a broken history."""
    if isinstance(exc, HistoryBusy):
        return UsageError(
            f"the history {shown(where)} is busy: another writer held it for over {BUSY_SECONDS:.0f} s; try again"
        )
    return UsageError(
        f"{shown(where)} is not a usable evalkit history ({exc}); restore it or name another with --history"
    )


def _open_file(path: Path, create: bool) -> HistoryConnection:
    if path.is_dir():
        raise UsageError(f"{path} is a folder, not a history file (name a file, e.g. {DEFAULT_PATH})")
    if not path.exists():
        if not create:
            raise UsageError(
                f"no history at {path}: record a run first (`evalkit history record RESULTS --history {path}`)"
            )
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise UsageError(f"cannot create the folder of {path}: {exc.strerror or exc}") from None
    else:
        _refuse_non_sqlite(path)
    try:
        raw = sqlite3.connect(path, timeout=BUSY_SECONDS, isolation_level=None)
    except sqlite3.Error as exc:
        raise UsageError(f"cannot open the history {path}: {exc}") from None
    conn = HistoryConnection(raw, SQLITE, str(path), SQLITE_ERRORS)
    try:
        conn.execute("PRAGMA foreign_keys = ON")
    except HistoryError as exc:
        conn.close()
        raise busy_or_broken(path, exc) from None
    return conn


def _refuse_non_sqlite(path: Path) -> None:
    try:
        with path.open("rb") as f:
            head = f.read(len(SQLITE_HEADER))
    except OSError as exc:
        raise UsageError(f"cannot read the history {path}: {exc.strerror or exc}") from None
    if head and head != SQLITE_HEADER:
        raise UsageError(
            f"{path} is not an evalkit history: it is not an SQLite database; name another file with --history"
        )


def tables(conn: HistoryConnection) -> list[str]:
    """The database's tables (PostgreSQL: of its current schema), by name."""
    return [r[0] for r in conn.execute(conn.dialect.list_tables)]


def _refuse_foreign_or_damaged(conn: HistoryConnection) -> None:
    found = tables(conn)
    mark = conn.execute(conn.dialect.read_mark).fetchone()[0]
    # an SQLite file's id is 0 until marked: a new (empty) file is ours to build
    if mark != conn.dialect.marked and (mark not in (0, None) or found):
        listed = ", ".join(found[:5]) + (", ..." if len(found) > 5 else "")
        what = "an SQLite database" if conn.dialect is SQLITE else "a PostgreSQL database"
        raise UsageError(
            f"{shown(conn.where)} is not an evalkit history: {what} of something else "
            f"(tables: {listed or 'none'}); name another with --history"
        )
    if found and conn.dialect is SQLITE:  # a server keeps its own pages whole
        problems = [r[0] for r in conn.execute("PRAGMA quick_check(3)")]
        if problems != ["ok"]:
            raise UsageError(
                f"{conn.where} is damaged (SQLite's check: {'; '.join(problems)}); restore it from "
                "a copy or start a new one with --history"
            )


def schema_version(conn: HistoryConnection) -> int:
    """The schema the database holds (0: an empty one)."""
    if "schema_version" not in tables(conn):
        return 0
    row = conn.execute("SELECT version FROM schema_version").fetchone()
    return int(row[0]) if row else 0


def migrate(conn: HistoryConnection, *, upto: int = SCHEMA_VERSION) -> int:
    """Apply the steps the database lacks, up to `upto`, in one transaction; the version reached."""
    if schema_version(conn) == upto:
        return upto
    with conn.transaction():
        found = schema_version(conn)  # again, inside the lock: another process may have migrated it
        if found > SCHEMA_VERSION:
            raise UsageError(
                f"{shown(conn.where)} was written by a newer evalkit (history schema {found}; this "
                f"one knows up to {SCHEMA_VERSION}): upgrade evalkit"
            )
        for step in range(found, upto):
            for statement in statements(MIGRATIONS[step]):
                conn.execute(conn.dialect.ddl(statement))
            conn.execute("UPDATE schema_version SET version = ?", (step + 1,))
        conn.execute(conn.dialect.mark)
    return max(found, upto)
