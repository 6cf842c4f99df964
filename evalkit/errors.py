"""One hierarchy of errors; the CLI is the only place that turns them into exit codes."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any


def safe_str(value: object) -> str:
    """`str(value)`, or a stand-in naming its type when its `__str__` itself raises (user code's exceptions)."""
    try:
        return str(value)
    except Exception as exc:  # noqa: BLE001 - any failure of user code's __str__
        return f"<{type(value).__name__} whose str() raised {type(exc).__name__}>"


def one_line(exc: BaseException) -> str:
    """An exception's message on one line, cut at 300 characters (for an error row or a report)."""
    text = " ".join(safe_str(exc).split())
    return text[:300] + ("…" if len(text) > 300 else "")


class EvalkitError(Exception):
    """Base of every error evalkit raises on purpose; its message is meant for a user."""


class UsageError(EvalkitError):
    """A bad flag, path or setting given by the user (exit code 2)."""


@dataclass(frozen=True)
class Problem:
    """One problem of a suite file, with where it is, so a front door can point at the line.

    `line` 0 means the top of the file (a key missing from the whole document); None, nowhere
    in particular (the file cannot be read)."""

    message: str
    file: str | None = None
    line: int | None = None
    case_id: str | None = None

    def describe(self, suite_file: str | None = None) -> str:
        """`line 12: case x: message`; the file's name is added when it is not `suite_file`."""
        at = "" if self.line is None else ("top" if self.line == 0 else f"line {self.line}")
        if self.file and suite_file is not None and self.file != suite_file:
            at = f"{Path(self.file).name} {at}".strip()
        who = f"case {self.case_id}: " if self.case_id else ""
        return f"{at}: {who}{self.message}" if at else f"{who}{self.message}"

    def __str__(self) -> str:
        return self.describe(self.file)


class SuiteError(EvalkitError):
    """Suite files that cannot be loaded; carries every problem found, each a `Problem`."""

    def __init__(self, path: str, problems: Sequence[Problem | str]):
        self.path = path
        self.problems = [p if isinstance(p, Problem) else Problem(p, file=path) for p in problems]
        self.blocks: list[tuple[str, list[Problem]]] = [(path, self.problems)]
        super().__init__(_headed(path, self.problems))

    @classmethod
    def merge(cls, errors: Sequence["SuiteError"], label: str) -> "SuiteError":
        """One error for several suite files' errors, each file's problems kept in a block."""
        if len(errors) == 1:
            return errors[0]
        merged = cls(label, [p for e in errors for p in e.problems])
        merged.blocks = [b for e in errors for b in e.blocks]
        text = "\n".join(_headed(path, problems) for path, problems in merged.blocks)
        merged.args = (f"{label}: {len(merged.problems)} problems\n" + _indent(text),)
        return merged


def _headed(path: str, problems: Sequence[Problem]) -> str:
    head = f"{path}: {len(problems)} problem{'s' if len(problems) != 1 else ''}"
    return head + "".join(f"\n  {p.describe(path)}" for p in problems)


def _indent(text: str) -> str:
    return "\n".join("  " + line for line in text.splitlines())


class TargetError(EvalkitError):
    """A target that cannot be resolved (bad `module:function`, missing template)."""


class MissingKeyError(UsageError):
    """No API key for a provider that needs one."""


class OutputError(EvalkitError):
    """Results could not be written: a full disk, a read-only folder, no permission (exit 2). Its
    message says which file and what was kept."""


class ProviderError(EvalkitError):
    """A model call failed. `retryable` and `retry_after` drive the one retry layer (the client)."""

    def __init__(
        self,
        message: str,
        *,
        retryable: bool = False,
        retry_after: float | None = None,
        status: int | None = None,
        rate_limit: Any = None,
    ):
        super().__init__(message)
        self.retryable = retryable
        self.retry_after = retry_after
        self.status = status
        self.rate_limit = rate_limit  # providers.ratelimit.RateLimitInfo from a 429's headers, if any


class JudgeError(EvalkitError):
    """The judge's reply could not be turned into a verdict (after the allowed retry)."""


class RefusedRequest(EvalkitError):
    """The model API refused a request whose shape evalkit chose (not the user's prompt or settings):
    the run stops at the first one, exit 3 — evalkit's fault, never a verdict."""


class IncompleteRun(Exception):
    """A run that ended with fewer case rows than it planned: evalkit's own fault (exit 3), never a
    verdict. Not an EvalkitError: the front doors treat it as the internal error it is."""


class RefusedSetting(UsageError):
    """The model API refused a setting of the user's suite (exit 2, naming the setting)."""
