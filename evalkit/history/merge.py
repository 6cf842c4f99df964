"""Join two histories by run key: the runs of another history file that this one lacks are copied
in (each with its suites, cases and items, renumbered), oldest first, in one transaction. Two copies
of the history that each recorded a run of their own (two default-branch jobs at once) join into one
that has both. A run older than all of this history's runs is not copied: it was pruned from it."""

from __future__ import annotations

from pathlib import Path

from evalkit.errors import UsageError
from evalkit.history.connection import HistoryConnection, HistoryError
from evalkit.history.database import busy_or_broken, open_history
from evalkit.history.dialect import SQLITE

_CHILDREN = ("suite_runs", "case_runs", "item_runs")  # in the order their foreign keys need


def add_missing_runs(conn: HistoryConnection, other: str | Path) -> int:
    """Copy into `conn` the runs of the history at `other` whose run key it lacks; how many. `other`
    is checked and brought to the current schema as any history is (UsageError when it is unusable)."""
    if conn.dialect is not SQLITE:  # the Action joins copies of its file; a server needs no joining
        raise UsageError("joining histories is for SQLite files: a PostgreSQL history has every writer's runs")
    open_history(other).close()
    conn.execute("ATTACH DATABASE ? AS other", (str(other),))
    try:
        with conn.transaction():
            # A run older than every run this history holds was pruned from it (evalkit.history.pruning):
            # it stays out. Runs an overlapping upload left out are newer, and come back.
            missing = conn.execute(
                "SELECT id FROM other.runs WHERE run_key NOT IN (SELECT run_key FROM main.runs) "
                "AND (NOT EXISTS (SELECT 1 FROM main.runs) OR started_at >= (SELECT MIN(started_at) FROM main.runs)) "
                "ORDER BY started_at, id"
            ).fetchall()
            run_columns = [c for c in _columns(conn, "runs") if c != "id"]
            listed = ", ".join(run_columns)
            for (old,) in missing:
                new = conn.execute(
                    f"INSERT INTO main.runs ({listed}) SELECT {listed} FROM other.runs WHERE id = ? RETURNING id",
                    (old,),
                ).fetchone()[0]
                for table in _CHILDREN:
                    rest = [c for c in _columns(conn, table) if c != "run"]
                    conn.execute(
                        f"INSERT INTO main.{table} (run, {', '.join(rest)}) SELECT ?, {', '.join(rest)} "
                        f"FROM other.{table} WHERE run = ?",
                        (new, old),
                    )
        return len(missing)
    except HistoryError as exc:
        raise busy_or_broken(other, exc) from None
    finally:
        conn.execute("DETACH DATABASE other")


def _columns(conn: HistoryConnection, table: str) -> list[str]:
    return [row[1] for row in conn.execute(f"PRAGMA main.table_info({table})")]
