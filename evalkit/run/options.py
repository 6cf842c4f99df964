"""What a run is asked to do (the options every front door passes the runner), and the two settings
derived from them and the suites: the run's budget and each suite's thresholds."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from evalkit.results.report import CaseResult, SuiteResult
from evalkit.run.sharding import Shard
from evalkit.suite.model import Inconclusive, Suite
from evalkit.suite.spec import Thresholds

if TYPE_CHECKING:
    from evalkit.run.targets import CaseTarget


@dataclass
class RunOptions:
    target: str | None = None
    cases: list[str] = field(default_factory=list)  # globs over case ids
    model: str | None = None
    judge_model: str | None = None
    repeat: int | None = None
    rubric_threshold: float | None = None
    agreement_threshold: float | None = None
    jsonl_path: Path | None = None
    on_case: Callable[[SuiteResult, CaseResult], None] | None = None
    demo: bool = False
    shard: Shard | None = None  # run only this share of the cases (checks across cases: at merge)
    inconclusive: Inconclusive | None = None  # overrides the suites' setting
    resume: bool = False  # go on with the interrupted run in jsonl_path: its finished cases are not run again
    max_cost: float | None = None  # the budget in US dollars; None: the smallest `max_cost:` of the suites, if any
    # `evalkit plan` only: each suite's target as the plan calls it (evalkit/engine/plan_run.py); None: as is.
    wrap_target: "Callable[[Suite, CaseTarget], CaseTarget] | None" = None


def run_budget(suites: list[Suite], options: RunOptions) -> float | None:
    """The run's budget: --max-cost, else the smallest `max_cost:` of the suites run (one budget a run)."""
    if options.max_cost is not None:
        return options.max_cost
    return min((s.max_cost for s in suites if s.max_cost is not None), default=None)


def effective_thresholds(suite: Suite, options: RunOptions) -> Thresholds:
    return Thresholds(
        rubric=suite.thresholds.rubric if options.rubric_threshold is None else options.rubric_threshold,
        agreement=suite.thresholds.agreement if options.agreement_threshold is None else options.agreement_threshold,
    )
