"""What the judge, the extraction and their combined call read of one output (`JudgeInput`), and the
suite's settings they are asked with (`JudgeSettings`): one value each, passed whole from the runner,
calibration, gold replays and the pytest plugin to `score_output`, `judge`, `grade` and `extract_fields`."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Mapping

from evalkit.suite.model import JudgeThinking
from evalkit.suite.spec import FieldSpec
from evalkit.trace.steps import Step


@dataclass(frozen=True)
class JudgeInput:
    """One output to assess, and the case around it that the judge sees."""

    output_text: str
    criteria: Mapping[str, str] = field(default_factory=dict)  # rubric id -> what the judge checks
    repeats: Mapping[str, int] = field(default_factory=dict)  # rubric id -> its judge_repeats (1 when absent)
    fields: Mapping[str, FieldSpec] = field(default_factory=dict)  # what extraction reads from the output
    case_input: Any = None  # a conversation's: {"input": ..., "conversation": [...]}
    facts: dict[str, Any] | None = None
    truncated: bool = False  # the target's reply stopped at max_tokens: the judge is told so
    trace: list[Step] | None = None  # the steps the judge is shown (evalkit.trace.steps.judged_trace)

    def asking(self, criteria: Mapping[str, str]) -> JudgeInput:
        """The same output, judged on `criteria` alone (confirming the items that failed)."""
        return replace(self, criteria=dict(criteria))

    def context(self) -> dict[str, Any]:
        """The request builders' keyword arguments for the case around the output."""
        return {"case_input": self.case_input, "facts": self.facts, "truncated": self.truncated, "trace": self.trace}


@dataclass(frozen=True)
class JudgeSettings:
    """How the suite asks: its judge model, and what it set for the judge's calls."""

    model: str
    extract_model: str | None = None  # None: the judge model extracts too (in the judge's call)
    timeout: float | None = None  # seconds for one call's whole exchange (the suite's timeout.judge)
    thinking: JudgeThinking | None = None  # the suite's judge_thinking
    confirm: int = 0  # the suite's confirm_failures

    @property
    def extractor(self) -> str:
        return self.extract_model or self.model
