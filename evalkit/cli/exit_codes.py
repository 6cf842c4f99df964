"""How the `evalkit` command turns errors into exit codes, the only place that does:
0 all gates passed, 1 a gate failed, 2 a usage or configuration error, 3 evalkit's own fault
(an unexpected exception: never read as a verdict). The codes themselves: evalkit/exit_codes.py."""

from __future__ import annotations

import functools
import sys
from typing import Any, Callable

import click

from evalkit._runtime.redaction import redacted
from evalkit.errors import EvalkitError, RefusedRequest, SuiteError, safe_str
from evalkit.exit_codes import ExitCode


def internal_error(exc: BaseException) -> None:
    """One line saying it is evalkit's fault, the traceback in a log file, exit 3."""
    import tempfile
    import traceback

    try:
        text = "".join(traceback.format_exception(exc))
    except Exception:  # noqa: BLE001 - an exception that even the traceback module cannot format
        text = f"{type(exc).__name__}: {safe_str(exc)}\n"
    try:
        fd, log = tempfile.mkstemp(prefix="evalkit-internal-error-", suffix=".log")
        with open(fd, "w", encoding="utf-8", errors="backslashreplace") as f:
            f.write(redacted(f"evalkit {' '.join(sys.argv[1:])}\n\n{text}"))
        where = f"the traceback is in {log}"
    except OSError:
        where = "the traceback could not be saved; it follows\n" + text
    click.echo(
        f"evalkit: internal error, evalkit's fault and not yours ({type(exc).__name__}: "
        f"{' '.join(safe_str(exc).split())[:200]}); the run did not finish and is not a verdict; "
        f"finished cases are kept in the results stream; {where}",
        err=True,
    )
    sys.exit(ExitCode.INTERNAL)


class ExitCodes(click.Group):
    """The command group, which turns an unexpected exception into exit 3 instead of a traceback and exit 1."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except (click.exceptions.Exit, click.ClickException, click.exceptions.Abort, SystemExit, KeyboardInterrupt):
            raise
        except BaseException as exc:  # noqa: BLE001 - anything else (a CancelledError, a GeneratorExit too) is evalkit's bug
            internal_error(exc)


def fail(message: str) -> None:
    click.echo(f"evalkit: {message}", err=True)
    sys.exit(ExitCode.USAGE)


def guard(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Turn evalkit's own errors into a clear message and exit code 2 (never a traceback)."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except SuiteError as exc:
            click.echo(f"evalkit: {exc}", err=True)
            sys.exit(ExitCode.USAGE)
        except RefusedRequest as exc:  # evalkit's own request shape: its fault, never a verdict
            click.echo(f"evalkit: {exc}", err=True)
            sys.exit(ExitCode.INTERNAL)
        except EvalkitError as exc:
            fail(str(exc))

    return wrapper
