"""An open history, whichever database holds it: statements in SQLite's words (the dialect turns
them into the server's), one write transaction at a time, and the driver's errors as ours, so the
code above never imports a driver (psycopg is an optional extra)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Protocol

from evalkit.history.dialect import Dialect


class Rows(Protocol):
    """What a statement returns: its rows, one at a time or all (both drivers' cursors)."""

    def fetchone(self) -> Any: ...

    def fetchall(self) -> list[Any]: ...

    def __iter__(self) -> Iterator[Any]: ...


class HistoryError(Exception):
    """The database refused a statement; the message is the driver's, on one line."""


class HistoryConflict(HistoryError):
    """A statement broke a key (a suite or a case twice in one run)."""


class HistoryBusy(HistoryError):
    """Another writer held the write lock for longer than a writer waits."""


@dataclass(frozen=True)
class DriverErrors:
    """The driver's exception classes that map to ours."""

    base: type[Exception]
    conflict: type[Exception]
    busy: tuple[type[Exception], ...] = ()
    is_busy: Callable[[Exception], bool] | None = None  # a driver that says busy in its message only


def one_line(exc: BaseException) -> str:
    """The first line of a driver's message (PostgreSQL's add DETAIL and HINT lines)."""
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


class HistoryConnection:
    """An open history: `execute` a statement, `transaction()` for a write, `close()` at the end."""

    def __init__(self, raw: Any, dialect: Dialect, where: str, errors: DriverErrors) -> None:
        self.raw = raw  # the driver's connection
        self.dialect = dialect
        self.where = where  # what to call it in a message: a path, or a URL without its password
        self._errors = errors

    def execute(self, sql: str, params: tuple[Any, ...] | list[Any] = ()) -> Rows:
        try:
            return _Rows(self.raw.execute(self.dialect.sql(sql), params), self._errors.base, self._ours)
        except self._errors.base as exc:
            raise self._ours(exc) from exc

    def _ours(self, exc: Exception) -> HistoryError:
        if isinstance(exc, self._errors.conflict):
            return HistoryConflict(one_line(exc))
        if isinstance(exc, self._errors.busy) or (self._errors.is_busy and self._errors.is_busy(exc)):
            return HistoryBusy(one_line(exc))
        return HistoryError(one_line(exc))

    @contextmanager
    def transaction(self) -> Iterator[HistoryConnection]:
        """One write transaction: the write lock taken before the first read (no two writers
        interleave), committed whole, rolled back on any error."""
        first, *rest = self.dialect.begin_write
        self.execute(first)
        try:
            for statement in rest:  # taking the lock may time out: roll back the transaction it opened
                self.execute(statement)
            yield self
        except BaseException:
            try:
                self.execute("ROLLBACK")
            except HistoryError:
                pass  # the connection is gone: the server rolled the transaction back itself
            raise
        self.execute("COMMIT")

    def close(self) -> None:
        self.raw.close()


class _Rows:
    """A driver's cursor whose errors while fetching (SQLite reads a damaged page only then) are ours."""

    def __init__(self, cursor: Any, driver_error: type[Exception], ours: Callable[[Exception], HistoryError]) -> None:
        self._cursor = cursor
        self._driver_error = driver_error
        self._ours = ours

    def fetchone(self) -> Any:
        try:
            return self._cursor.fetchone()
        except self._driver_error as exc:
            raise self._ours(exc) from exc

    def fetchall(self) -> list[Any]:
        try:
            return list(self._cursor.fetchall())
        except self._driver_error as exc:
            raise self._ours(exc) from exc

    def __iter__(self) -> Iterator[Any]:
        return iter(self.fetchall())
