"""Keep a history to its newest runs: `evalkit history prune --keep N`, and the Action's history
after each recorded run (it travels as an artifact on every push and every pull request, so it
must not grow without end). A run goes whole, with its suites, cases and items, in one write
transaction; the runs kept keep their numbers. An SQLite file is then compacted (VACUUM), so the
file shrinks too; a PostgreSQL server reclaims the space itself (autovacuum)."""

from __future__ import annotations

from evalkit.history.connection import HistoryConnection

# Tables holding a run's rows, children first (each refers to the one after it).
_RUN_TABLES = (("item_runs", "run"), ("case_runs", "run"), ("suite_runs", "run"), ("runs", "id"))


def prune(conn: HistoryConnection, *, keep: int) -> int:
    """Remove every run but the newest `keep` (by number); how many were removed."""
    if keep < 1:
        raise ValueError("keep at least one run")
    with conn.transaction():
        row = conn.execute("SELECT id FROM runs ORDER BY id DESC LIMIT 1 OFFSET ?", (keep - 1,)).fetchone()
        if row is None:
            return 0  # no more than `keep` runs
        oldest_kept = int(row[0])
        gone = int(conn.execute("SELECT COUNT(*) FROM runs WHERE id < ?", (oldest_kept,)).fetchone()[0])
        for table, column in _RUN_TABLES:
            conn.execute(f"DELETE FROM {table} WHERE {column} < ?", (oldest_kept,))
    if gone and conn.dialect.name == "sqlite":
        conn.execute("VACUUM")  # outside the transaction, as SQLite requires: the file gives the pages back
    return gone
