"""What a check is and what it sees; `registry` maps a YAML `type` to a check class."""

from __future__ import annotations

import json
from abc import abstractmethod
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict

from evalkit.trace.steps import Step


@dataclass(frozen=True)
class Outcome:
    """A check's decision: passed True/False, or None when the check does not apply."""

    passed: bool | None
    reason: str = ""

    @classmethod
    def not_applicable(cls, reason: str) -> "Outcome":
        return cls(None, reason)


@dataclass
class CheckContext:
    """Everything a check may look at for one run of one case."""

    output: Any
    input: Any = None
    fields: dict[str, Any] | None = None
    facts: dict[str, Any] = field(default_factory=dict)
    case_id: str = ""
    suite_dir: Path | None = None
    timeout: float | None = None  # seconds a check from a plugin may take (built-ins are bounded)
    trace: list[Step] | None = None  # the run's trajectory (evalkit.trace.steps), when the target had one
    # `module:Class` of the pydantic model a target in a worker returned (the output is its JSON dump)
    output_model: str | None = None

    @property
    def text(self) -> str:
        """The output as text: strings as they are, anything else as JSON."""
        return output_text(self.output)


def output_text(output: Any) -> str:
    if isinstance(output, str):
        return output
    if isinstance(output, BaseModel):
        return output.model_dump_json(indent=2)
    try:
        return json.dumps(output, indent=2, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        return str(output)


class Check(BaseModel):
    """A scored criterion. Subclasses set `type` and declare their YAML arguments as fields.

    `evaluate` returns an `Outcome`, a bool, or a `(bool, reason)` pair; raising makes an
    error row, never a pass.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    type: ClassVar[str]
    # Checks that read extracted fields make the runner extract them for the case.
    needs_fields: ClassVar[bool] = False
    # A built-in that calls the user's code (code_node: the team's pydantic validators): decided in a
    # worker process under the check timeout, as a plugin's check is, never in evalkit's own process.
    calls_user_code: ClassVar[bool] = False

    @abstractmethod
    def evaluate(self, ctx: CheckContext) -> Outcome | bool | tuple[bool, str]:
        """Decide this check for one run."""

    def describe(self) -> str:
        """A short human label, e.g. `max_words(per_message=6)`."""
        args = ", ".join(f"{k}={v!r}" for k, v in self.model_dump(exclude_defaults=True).items())
        return f"{self.type}({args})" if args else self.type

    def referenced_fields(self) -> set[str]:
        return set()


def out_of_range(
    value: float, minimum: float | None, maximum: float | None, words: tuple[str, str] = ("fewer than", "more than")
) -> str | None:
    """`fewer than MIN` / `more than MAX` (or other words) when `value` is outside, else None."""
    if minimum is not None and value < minimum:
        return f"{words[0]} {minimum:g}"
    if maximum is not None and value > maximum:
        return f"{words[1]} {maximum:g}"
    return None


def normalize(result: Outcome | bool | tuple[bool, str] | None) -> Outcome:
    """Turn what `evaluate` returned into an Outcome."""
    if isinstance(result, Outcome):
        return result
    if isinstance(result, tuple) and len(result) == 2:
        return Outcome(bool(result[0]), str(result[1]))
    if isinstance(result, bool):
        return Outcome(result, "")
    raise TypeError(f"a check returned {type(result).__name__}; expected Outcome, bool or (bool, reason)")
