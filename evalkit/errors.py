"""One hierarchy of errors; the CLI is the only place that turns them into exit codes."""

from __future__ import annotations


class EvalkitError(Exception):
    """Base of every error evalkit raises on purpose; its message is meant for a user."""


class UsageError(EvalkitError):
    """A bad flag, path or setting given by the user (exit code 2)."""


class SuiteError(EvalkitError):
    """A suite file that cannot be loaded; carries every problem found in it."""

    def __init__(self, path: str, problems: list[str]):
        self.path = path
        self.problems = list(problems)
        head = f"{path}: {len(self.problems)} problem{'s' if len(self.problems) != 1 else ''}"
        super().__init__(head + "".join(f"\n  {p}" for p in self.problems))


class TargetError(EvalkitError):
    """A target that cannot be resolved (bad `module:function`, missing template)."""


class MissingKeyError(UsageError):
    """No API key for a provider that needs one."""


class ProviderError(EvalkitError):
    """A model call failed. `retryable` and `retry_after` drive the one retry layer (the client)."""

    def __init__(
        self,
        message: str,
        *,
        retryable: bool = False,
        retry_after: float | None = None,
        status: int | None = None,
    ):
        super().__init__(message)
        self.retryable = retryable
        self.retry_after = retry_after
        self.status = status


class JudgeError(EvalkitError):
    """The judge's reply could not be turned into a verdict (after the allowed retry)."""
