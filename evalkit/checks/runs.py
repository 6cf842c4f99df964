"""The `runs` check: the generated `main(input, **kwargs) -> str` is run, and what it returns compared.

Code that parses and has the right signature can still ignore the task, read secrets from the
environment or print instead of returning; only running it tells. Each evaluation starts one child
process (`_run_child.py`) for all of the check's inputs, with:

- an empty environment and an empty temporary working folder;
- a time limit per call (a timer in the child; the parent kills it past the sum, plus start-up);
- a memory limit (RLIMIT_AS) and a CPU-time limit (RLIMIT_CPU);
- an audit hook refusing sockets, new processes, signals, ctypes and file-system changes.

Not enforced: reading files the user can read, and anything done by native code, which an audit
hook cannot see (Python's docs: audit hooks are not a sandbox). Run untrusted suites in a container.
"""

from __future__ import annotations

import json
import secrets
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, Callable

import regex
from pydantic import BaseModel, ConfigDict, Field, field_validator

from evalkit.checks.base import Check, CheckContext, Outcome
from evalkit.checks.code import code_of
from evalkit.limits import REGEX_TIMEOUT

CHILD = Path(__file__).with_name("_run_child.py")
START_SECONDS = 5.0  # the child's start-up and loading the code, beyond the calls' own limits


class RunInput(BaseModel):
    """One call of `main` and what it must return; without a condition, only that it returns a str."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    input: str
    kwargs: dict[str, Any] = Field(default_factory=dict)
    expected: str | None = None  # equal, surrounding whitespace ignored
    contains: str | list[str] | None = None
    not_contains: str | list[str] | None = None
    # A regular expression, searched. No expression language: it would run in evalkit's own process,
    # beside the results, where a suite from a pull request must not be able to build huge values.
    matches: str | None = None
    ignore_case: bool = False

    @field_validator("matches")
    @classmethod
    def _compiles(cls, v: str | None) -> str | None:
        if v is not None:
            try:
                regex.compile(v)
            except regex.error as exc:
                raise ValueError(f"invalid regular expression: {exc}") from None
        return v

    def problem(self, output: str) -> str | None:
        """Why `output` does not meet this input's conditions, or None when it does."""
        fold: Callable[[str], str] = str.casefold if self.ignore_case else str
        if self.expected is not None and fold(output.strip()) != fold(self.expected.strip()):
            return f"expected {self.expected[:80]!r}"
        missing = [w for w in _listed(self.contains) if fold(w) not in fold(output)]
        if missing:
            return "missing " + ", ".join(repr(w) for w in missing)
        present = [w for w in _listed(self.not_contains) if fold(w) in fold(output)]
        if present:
            return "contains " + ", ".join(repr(w) for w in present)
        if self.matches is not None and not regex.search(
            self.matches, output, regex.IGNORECASE if self.ignore_case else 0, timeout=REGEX_TIMEOUT
        ):
            return f"no match for /{self.matches}/"
        return None


def _listed(value: str | list[str] | None) -> list[str]:
    return [value] if isinstance(value, str) else (value or [])


class Runs(Check):
    """`main` is run on each of `inputs` (no environment, no network, limits) and returns what they expect."""

    type = "runs"
    inputs: list[RunInput] = Field(min_length=1)
    timeout: float = Field(default=2.0, gt=0, le=60)  # seconds per call
    memory_mb: int = Field(default=256, ge=64, le=8192)

    def describe(self) -> str:
        n = len(self.inputs)
        return f"runs(main on {n} input{'s' if n != 1 else ''})"

    def evaluate(self, ctx: CheckContext) -> Outcome:
        try:
            code = code_of(ctx.output)
        except ValueError as exc:
            return Outcome(False, str(exc))
        results = run_main(code, self.inputs, self.timeout, self.memory_mb)
        failures = []
        for i, (call, got) in enumerate(zip(self.inputs, results), 1):
            problem = got.get("error") or call.problem(got["output"])
            if problem:
                seen = f"returned {got['output'][:60]!r}, " if "output" in got else ""
                printed = f" (printed {got['printed'][:60]!r})" if got.get("printed") else ""
                failures.append(f"#{i} main({call.input[:40]!r}): {seen}{problem}{printed}")
        if failures:
            more = f" (and {len(failures) - 2} more)" if len(failures) > 2 else ""
            return Outcome(False, f"{len(failures)} of {len(self.inputs)} failed: " + "; ".join(failures[:2]) + more)
        return Outcome(True, f"main returned what was expected on {len(self.inputs)} input(s)")


def run_main(code: str, inputs: list[RunInput], timeout: float, memory_mb: int) -> list[dict[str, Any]]:
    """What `main` returned (or the error) for each input, from one child process under limits."""
    # Marks the result line, so that stray output is never taken for it. Not a boundary: code written
    # to cheat could find the token in the child's memory and print a result of its own.
    token = secrets.token_hex(8)
    request = {
        "code": code,
        "calls": [{"input": i.input, "kwargs": i.kwargs} for i in inputs],
        "timeout": timeout,
        "memory_mb": memory_mb,
        "token": token,
    }
    limit = timeout * (len(inputs) + 1) + START_SECONDS
    with tempfile.TemporaryDirectory(prefix="evalkit-runs-") as folder:
        try:
            # -I: no PYTHON* variables, no user site, no script folder on sys.path; -B: no .pyc writes.
            done = subprocess.run(
                [sys.executable, "-I", "-B", "-X", "utf8", str(CHILD)],
                input=json.dumps(request),
                capture_output=True,
                text=True,
                encoding="utf-8",
                errors="replace",
                env={},
                cwd=folder,
                timeout=limit,
                start_new_session=True,
            )
        except subprocess.TimeoutExpired:
            return [{"error": f"the run took over {limit:g} s and was stopped"}] * len(inputs)
    for line in reversed(done.stdout.splitlines()):
        if line.startswith(token):
            results: list[dict[str, Any]] = json.loads(line[len(token) :])
            return results
    tail = (done.stderr.strip().splitlines() or [""])[-1][:200]
    ended = f"the run ended without a result ({_ended(done.returncode)})" + (f": {tail}" if tail else "")
    return [{"error": ended}] * len(inputs)


def _ended(returncode: int) -> str:
    if returncode == -9:
        return "killed, SIGKILL: over the CPU-time limit or out of memory?"
    if returncode == -24:
        return "over the CPU-time limit"
    return f"exit status {returncode}"


# The registry lists these as built-ins (they are not registered by import side effect).
CHECKS = (Runs,)
