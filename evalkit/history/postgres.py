"""A history in a PostgreSQL database, through psycopg (the optional extra `evalkit[postgres]`).
Every way a connection fails (psycopg missing, a URL libpq cannot read, a server that does not
answer, a wrong password, no such database) is one line, with the URL's password hidden."""

from __future__ import annotations

from typing import Any

from evalkit.errors import UsageError
from evalkit.history.connection import DriverErrors, HistoryConnection, one_line
from evalkit.history.dialect import POSTGRES
from evalkit.history.location import hide_password, shown

CONNECT_SECONDS = 10  # a server that does not answer in this long is taken as down
LOCK_SECONDS = 60  # as long as a second SQLite writer waits for the first
INSTALL = "pip install 'evalkit[postgres]'"


def _psycopg(url: str) -> Any:
    try:
        import psycopg
    except ImportError:
        raise UsageError(
            f"--history {shown(url)} names a PostgreSQL database, which needs the psycopg driver: {INSTALL}"
        ) from None
    return psycopg


def connect(url: str) -> HistoryConnection:
    """An open connection to the database at `url`, each statement its own transaction unless a
    write opens one; UsageError (one line, no password) when it cannot be had."""
    psycopg = _psycopg(url)
    where = shown(url)
    try:
        raw = psycopg.connect(url, autocommit=True, connect_timeout=CONNECT_SECONDS, application_name="evalkit")
    except psycopg.ProgrammingError as exc:  # libpq could not read the URL
        raise UsageError(
            f"--history {where} is not a PostgreSQL URL libpq can read ({hide_password(one_line(exc), url)})"
        ) from None
    except psycopg.Error as exc:  # no answer, refused, a wrong password, no such database
        raise UsageError(f"cannot connect to the history {where}: {hide_password(_reason(exc), url)}") from None
    errors = DriverErrors(base=psycopg.Error, conflict=psycopg.IntegrityError, busy=(psycopg.errors.LockNotAvailable,))
    conn = HistoryConnection(raw, POSTGRES, where, errors)
    # a writer waits this long for another's lock, then gives up as a busy SQLite file does
    conn.execute(f"SET lock_timeout = '{LOCK_SECONDS}s'")
    return conn


def _reason(exc: Exception) -> str:
    """libpq's reason, without its preamble naming the socket or host it tried."""
    text = one_line(exc)
    marker = "failed: "
    reason = text.rsplit(marker, 1)[-1] if marker in text else text
    return reason.removeprefix("FATAL:  ").strip()
