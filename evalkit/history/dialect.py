"""Where SQLite and PostgreSQL differ, in one place. The schema steps, the queries and the
recording are written once, in SQLite's words with `?` placeholders; a dialect says how its server
takes them: its placeholders, its column types, how a writer takes the one write lock, how the
database's tables are listed and how a database is marked as an evalkit history."""

from __future__ import annotations

import re
from dataclasses import dataclass

APPLICATION_ID = 0x45564B48  # "EVKH" in an SQLite file's header: this file is an evalkit history
MARK = "evalkit history"  # PostgreSQL: the comment on the schema_version table says the same
WRITE_LOCK = APPLICATION_ID  # PostgreSQL: the advisory lock every writer takes, one per database


@dataclass(frozen=True)
class Dialect:
    name: str
    begin_write: tuple[str, ...]  # opens a write transaction, taking the lock before the first read
    list_tables: str  # the names of the tables of the database (of its current schema)
    read_mark: str  # one row, one value: what marks the database as ours
    marked: object  # that value when it is ours
    mark: str  # the statement that marks it

    def sql(self, text: str) -> str:
        """A statement written with `?` placeholders, as this server takes it."""
        if self.name == "sqlite":
            return text
        return text.replace("%", "%%").replace("?", "%s")  # none of our statements holds a `?` in a literal

    def ddl(self, text: str) -> str:
        """A schema step's statement, in this server's column types."""
        if self.name == "sqlite":
            return text
        return re.sub(r"\bREAL\b", "DOUBLE PRECISION", text)  # PostgreSQL's REAL has 6 digits: costs need more


SQLITE = Dialect(
    name="sqlite",
    # BEGIN IMMEDIATE takes the file's write lock at once: a second writer waits (the busy timeout)
    begin_write=("BEGIN IMMEDIATE",),
    list_tables="SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name",
    read_mark="PRAGMA application_id",
    marked=APPLICATION_ID,
    mark=f"PRAGMA application_id = {APPLICATION_ID}",
)

POSTGRES = Dialect(
    name="postgresql",
    # Rows are not locked by reading them, so a writer takes one transaction-scoped advisory lock
    # (released at commit, at rollback, and when a killed client's connection drops): writers queue
    # on it as SQLite's do on the file, and read-then-insert (is this run here already?) stays safe.
    begin_write=("BEGIN", f"SELECT pg_advisory_xact_lock({WRITE_LOCK})"),
    list_tables="SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() "
    "ORDER BY table_name",
    read_mark="SELECT obj_description(to_regclass('schema_version'), 'pg_class')",
    marked=MARK,
    mark=f"COMMENT ON TABLE schema_version IS '{MARK}'",
)
