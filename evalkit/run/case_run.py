"""One run of a case — or one turn of a conversation — as its scoring reads it: a frozen value passed
whole from the runner to the judge, the extraction and the checks, instead of a dozen loose values."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from evalkit.checks.base import CheckContext
from evalkit.llm.client import BoundClient
from evalkit.results.report import ItemResult
from evalkit.scoring.items import applicable_items
from evalkit.scoring.judge_input import JudgeInput, JudgeSettings
from evalkit.suite.model import Case, Item, Suite
from evalkit.trace.steps import Step, judged_trace


@dataclass(frozen=True)
class CaseRun:
    """What the target answered in one run of `case`, and how; `client` is the run's own (its repeat
    index, model and account of calls)."""

    suite: Suite
    case: Case  # a conversation's turn: the case seen with that turn's items and fields
    client: BoundClient
    output: Any  # as the target returned it
    text: str  # the output as text, which the judge and the extraction read
    facts: dict[str, Any] = field(default_factory=dict)
    trace: list[Step] | None = None
    truncated: bool = False  # the model's reply stopped at max_tokens
    output_model: str | None = None  # `module:Class` of a pydantic output that crossed from a worker
    conversation: list[dict[str, Any]] | None = None  # the messages a conversation's reply answered
    earlier_fields: dict[str, Any] | None = None  # the fields of a conversation's earlier turns

    def items(self) -> tuple[list[Item], list[ItemResult]]:
        """The case's items that apply to this run, and the results of those that do not."""
        return applicable_items(self.case, self.facts)

    def judge_input(self, applicable: list[Item]) -> JudgeInput:
        """What the judge and the extraction read: the output, the judged items among `applicable`, the
        case's fields, and the case around it (a conversation's judge sees the messages the reply
        answered beside the case's input)."""
        case, suite = self.case, self.suite
        judged = {it.id: (it.judge, it.judge_repeats) for it in applicable if it.judge is not None}
        case_input = (
            case.input if self.conversation is None else {"input": case.input, "conversation": self.conversation}
        )
        return JudgeInput(
            self.text,
            criteria={k: criterion for k, (criterion, _) in judged.items()},
            repeats={k: n for k, (_, n) in judged.items()},
            fields={n: suite.fields[n] for n in case.fields},
            case_input=case_input,
            facts=self.facts,
            truncated=self.truncated,
            trace=judged_trace(self.trace),
        )

    def judge_settings(self, judge_model: str) -> JudgeSettings:
        suite = self.suite
        return JudgeSettings(
            judge_model, timeout=suite.timeout.judge, thinking=suite.judge_thinking, confirm=suite.confirm_failures
        )

    def check_context(self, fields: dict[str, Any] | None) -> CheckContext:
        """What code checks read; a conversation's case-level checks also see the earlier turns'
        fields (as "turn N.<field>"), so code can compare one turn's plan with another's."""
        seen = {**self.earlier_fields, **fields} if self.earlier_fields and fields is not None else fields
        return CheckContext(
            output=self.output,
            input=self.case.input,
            fields=seen,
            facts=self.facts,
            case_id=self.case.id,
            suite_dir=self.suite.dir,
            timeout=self.suite.timeout.check,
            trace=self.trace,
            output_model=self.output_model,
        )
