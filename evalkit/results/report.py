"""The run's results as data: a pydantic `Report` that round-trips through JSON."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field

from evalkit._runtime.atomic_write import write_atomic
from evalkit.llm.usage import Usage
from evalkit.results.agreement import FieldAgreement
from evalkit.results.intervals import wilson
from evalkit.results.provenance import Provenance
from evalkit.results.storable import storable
from evalkit.suite.spec import Thresholds
from evalkit.trace.steps import Step

# not_run: a case the run's budget (--max-cost) stopped before it started; its suite fails.
Verdict = Literal["pass", "fail", "error", "skipped", "inconclusive", "not_run"]
NOT_RUN_BUDGET = "not run: budget"  # the reason of every case the budget stopped
Status = Literal["pass", "fail", "error", "n/a"]
REPORT_VERSION = 1


class ItemResult(BaseModel):
    """One check or rubric item, decided for one run."""

    id: str
    text: str
    status: Status
    reason: str = ""
    decided_by: Literal["code", "judge", "code+judge"] = "code"
    critical: bool = False
    required: bool = False
    weight: float = 1.0
    votes: list[str] = Field(default_factory=list, description="Each judge call's verdict (judge_repeats > 1).")

    @property
    def passed(self) -> bool | None:
        return {"pass": True, "fail": False}.get(self.status)


class RunResult(BaseModel):
    repeat: int
    output: str = ""
    output_chars: int = 0
    items: list[ItemResult] = Field(default_factory=list)
    fields: dict[str, Any] | None = None
    facts: dict[str, Any] = Field(default_factory=dict)
    error: str | None = Field(default=None, description="The target failed: no output.")
    traceback: str | None = Field(default=None, description="Where the target raised, when it raised.")
    prompt: str | None = Field(default=None, description="The rendered prompt of a prompt target.")
    extraction_error: str | None = None
    truncated: bool = Field(default=False, description="The target's reply stopped at max_tokens.")
    target_requests: list[str] | None = Field(
        default=None, description="Cache keys of the model requests the target made in this run."
    )
    trace: list[Step] | None = Field(
        default=None,
        description="The steps the target took (messages, tool calls), when it used tools or returned a trace.",
    )
    wall_seconds: float = 0.0
    passed: bool | None = Field(
        default=None,
        description="This run passed the case's gates on its own "
        "(consistency: pass@k, pass^k); absent in results "
        "older than it.",
    )

    def run_errors(self) -> list[str]:
        return [e for e in (self.error, self.extraction_error) if e]


class CaseResult(BaseModel):
    id: str
    verdict: Verdict
    line: int | None = None
    file: str | None = None
    description: str = ""
    input: Any = None
    runs: list[RunResult] = Field(default_factory=list)
    rubric_pass_rate: float | None = None
    checks_passed: int = 0
    checks_total: int = 0
    rubric_interval: list[float] | None = Field(
        default=None, description="Wilson 95 % interval of the rubric pass rate over repeats."
    )
    agreement: float | None = None
    field_agreement: list[FieldAgreement] = Field(default_factory=list)
    critical_failures: list[str] = Field(default_factory=list)
    errors: list[str] = Field(default_factory=list)
    reasons: list[str] = Field(default_factory=list, description="Why the gates gave this verdict.")
    usage: Usage = Field(default_factory=Usage)
    wall_seconds: float = Field(
        default=0.0, description="The case's own time: from its start to its end, less queue_seconds."
    )
    queue_seconds: float = Field(
        default=0.0,
        description="Time the case's calls waited for a slot of the run's concurrency limit (or for a worker thread).",
    )

    def failing_items(self) -> list[tuple[int, ItemResult]]:
        return [(run.repeat, item) for run in self.runs for item in run.items if item.status in ("fail", "error")]


class ComparisonResult(BaseModel):
    id: str
    text: str
    status: Status
    reason: str = ""


class SuiteResult(BaseModel):
    name: str
    path: str
    verdict: Verdict
    target: str = ""
    description: str = ""
    cases: list[CaseResult] = Field(default_factory=list)
    comparisons: list[ComparisonResult] = Field(default_factory=list)
    thresholds: Thresholds = Field(default_factory=Thresholds)
    models: dict[str, str] = Field(default_factory=dict, description="Role to model id.")
    error: str | None = None
    usage: Usage = Field(default_factory=Usage)
    wall_seconds: float = 0.0
    calibration: str | None = Field(default=None, description="The judge's last calibration on gold labels.")
    inconclusive: Literal["fail", "warn", "pass"] = Field(
        default="warn", description="What an inconclusive case does to the verdict."
    )
    counts: dict[str, int] = Field(
        default_factory=dict,
        description="Cases per verdict (all a summary keeps: the cases themselves stay in the JSONL).",
    )

    def pass_interval(self) -> tuple[float, float] | None:
        """Wilson 95 % interval of the share of the suite's scored cases that passed."""
        scored = [c for c in self.cases if c.verdict not in ("skipped", "not_run")]
        return wilson(sum(c.verdict == "pass" for c in scored), len(scored)) if scored else None

    def count(self, verdict: Verdict) -> int:
        if not self.cases:
            return self.counts.get(verdict, 0)
        return sum(1 for c in self.cases if c.verdict == verdict)

    def case_verdicts(self) -> list[Verdict]:
        """Every verdict a case of the suite has (from the counts when the cases are not loaded)."""
        if not self.cases:
            return [v for v, n in self.counts.items() if n]  # type: ignore[misc]  # the counts are keyed by Verdict values only
        return list(dict.fromkeys(c.verdict for c in self.cases))


class ModelUse(BaseModel):
    model: str
    roles: list[str]
    usage: Usage
    deprecated: str | None = None


class RateLimitUse(BaseModel):
    """What the provider's rate limit cost the run."""

    rejected: int = Field(default=0, description="429 replies met (each call retried after the pause).")
    paused_seconds: float = Field(default=0.0, description="Wall seconds new calls were held after 429s.")
    paced: bool = Field(default=False, description="Call starts were spaced from the rate-limit headers.")


class BudgetUse(BaseModel):
    """The run's budget (`--max-cost`, `max_cost:`) and what it did."""

    limit_usd: float
    spent_usd: float = Field(default=0.0, description="Dollars the run's calls cost (this session's).")
    stopped: str | None = Field(default=None, description="Why the budget stopped the run; None: it did not.")
    not_run: int = Field(default=0, description="Cases not run because of the budget.")


class Report(BaseModel):
    version: int = REPORT_VERSION
    verdict: Verdict
    suites: list[SuiteResult] = Field(default_factory=list)
    usage: Usage = Field(default_factory=Usage)
    models: list[ModelUse] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)
    started_at: str = ""
    wall_seconds: float = 0.0
    demo: bool = False
    run_url: str | None = None
    results_path: str | None = None
    provenance: Provenance | None = Field(default=None, description="Absent in reports older than it.")
    rate_limit: RateLimitUse = Field(default_factory=RateLimitUse)
    shard: str | None = Field(default=None, description="`I/N` for one shard's results; `evalkit merge` joins them.")
    run_id: str | None = Field(default=None, description="The id every line of the run's JSONL carries.")
    budget: BudgetUse | None = Field(default=None, description="The run's budget, when it had one.")
    partial: bool = Field(
        default=False,
        description="The run stopped before every case finished (`evalkit run --resume RESULTS.jsonl` completes it).",
    )

    def save(self, path: str | Path) -> None:
        """Write the report as JSON, whole or not at all (OutputError when it cannot be); text UTF-8
        cannot hold (a lone surrogate) is written as U+FFFD."""
        try:
            text = self.model_dump_json(indent=2)
        except ValueError:  # pydantic's serialisation error: a lone surrogate in some text
            text = type(self).model_validate(storable(self.model_dump())).model_dump_json(indent=2)
        write_atomic(path, text)

    @classmethod
    def load(cls, path: str | Path) -> "Report":
        return cls.model_validate_json(Path(path).read_text(encoding="utf-8"))
