"""Open the history file: refuse what is not an evalkit history (another file, another program's
SQLite database, a damaged one) with one line, and bring an older schema up to date.

Every write runs in one `BEGIN IMMEDIATE` transaction: a second writer waits for the first (up
to `BUSY_SECONDS`), and a writer killed halfway leaves the journal SQLite rolls back at the next
open, so a run is in the file whole or not at all."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from evalkit.errors import UsageError
from evalkit.history.migrations import MIGRATIONS, SCHEMA_VERSION, statements

DEFAULT_PATH = Path(".evalkit") / "history.sqlite"
SQLITE_HEADER = b"SQLite format 3\x00"
APPLICATION_ID = 0x45564B48  # "EVKH" in the file's header: this SQLite file is an evalkit history
BUSY_SECONDS = 60.0


def open_history(path: str | Path, *, create: bool = False) -> sqlite3.Connection:
    """A connection to the history at `path`, its schema current; UsageError (one line) when the file
    is missing (unless `create`), not SQLite, another program's database, damaged or newer than us."""
    path = Path(path)
    if path.is_dir():
        raise UsageError(f"{path} is a folder, not a history file (name a file, e.g. {DEFAULT_PATH})")
    if not path.exists():
        if not create:
            raise UsageError(f"no history at {path}: record a run first (`evalkit history record RESULTS "
                             f"--history {path}`)")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise UsageError(f"cannot create the folder of {path}: {exc.strerror or exc}") from None
    else:
        _refuse_non_sqlite(path)
    try:
        conn = sqlite3.connect(path, timeout=BUSY_SECONDS, isolation_level=None)
    except sqlite3.Error as exc:
        raise UsageError(f"cannot open the history {path}: {exc}") from None
    try:
        conn.execute("PRAGMA foreign_keys = ON")
        _refuse_foreign_or_damaged(conn, path)
        migrate(conn, path)
    except sqlite3.OperationalError as exc:
        conn.close()
        raise busy_or_broken(path, exc) from None
    except sqlite3.DatabaseError as exc:
        conn.close()
        raise UsageError(f"{path} is not a usable evalkit history ({exc}); restore it or name another file "
                         "with --history") from None
    except BaseException:
        conn.close()
        raise
    return conn


def busy_or_broken(path: Path | str, exc: sqlite3.Error) -> UsageError:
    """The one line for an SQLite error: another writer holding the file too long, or a broken file."""
    if "locked" in str(exc) or "busy" in str(exc):
        return UsageError(f"the history {path} is busy: another writer held it for over {BUSY_SECONDS:.0f} s; "
                          "try again")
    return UsageError(f"{path} is not a usable evalkit history ({exc}); restore it or name another file "
                      "with --history")


def _refuse_non_sqlite(path: Path) -> None:
    try:
        with path.open("rb") as f:
            head = f.read(len(SQLITE_HEADER))
    except OSError as exc:
        raise UsageError(f"cannot read the history {path}: {exc.strerror or exc}") from None
    if head and head != SQLITE_HEADER:
        raise UsageError(f"{path} is not an evalkit history: it is not an SQLite database; name another "
                         "file with --history")


def _refuse_foreign_or_damaged(conn: sqlite3.Connection, path: Path) -> None:
    app = conn.execute("PRAGMA application_id").fetchone()[0]
    tables = sorted(r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'"))
    if app != APPLICATION_ID and (app != 0 or tables):
        listed = ", ".join(tables[:5]) + (", ..." if len(tables) > 5 else "")
        raise UsageError(f"{path} is not an evalkit history: an SQLite database of something else "
                         f"(tables: {listed or 'none'}); name another file with --history")
    if tables:
        problems = [r[0] for r in conn.execute("PRAGMA quick_check(3)")]
        if problems != ["ok"]:
            raise UsageError(f"{path} is damaged (SQLite's check: {'; '.join(problems)}); restore it from a "
                             "copy or start a new one with --history")


def schema_version(conn: sqlite3.Connection) -> int:
    """The schema the database holds (0: an empty file)."""
    if not conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'").fetchone():
        return 0
    row = conn.execute("SELECT version FROM schema_version").fetchone()
    return int(row[0]) if row else 0


def migrate(conn: sqlite3.Connection, path: Path | str = "history", *, upto: int = SCHEMA_VERSION) -> int:
    """Apply the steps the database lacks, up to `upto`, in one transaction; the version reached."""
    if schema_version(conn) == upto:
        return upto
    with transaction(conn):
        found = schema_version(conn)  # again, inside the lock: another process may have migrated it
        if found > SCHEMA_VERSION:
            raise UsageError(f"{path} was written by a newer evalkit (history schema {found}; this one knows "
                             f"up to {SCHEMA_VERSION}): upgrade evalkit")
        for step in range(found, upto):
            for statement in statements(MIGRATIONS[step]):
                conn.execute(statement)
            conn.execute("UPDATE schema_version SET version = ?", (step + 1,))
        conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    return max(found, upto)


@contextmanager
def transaction(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """One write transaction: taken before the first read (no two writers interleave), committed
    whole, rolled back on any error."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield conn
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
