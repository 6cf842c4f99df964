"""The comparison of two runs as data: what changed per case, item and field, and the totals of
each side. Round-trips through JSON like the Report."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from evalkit.compare.flaky import FlakyCase
from evalkit.compare.trajectory_diff import TrajectoryDiff
from evalkit.results.intervals import wilson

Change = Literal[
    "regressed",
    "flaky on main",
    "fixed",
    "too few runs to tell",
    "within noise",
    "still failing",
    "still passing",
    "new",
    "removed",
    "not comparable",
]
CHANGES: tuple[Change, ...] = (
    "regressed",
    "flaky on main",
    "fixed",
    "too few runs to tell",
    "within noise",
    "still failing",
    "still passing",
    "new",
    "removed",
    "not comparable",
)
_FAILING = ("fail", "error")


class ItemFlip(BaseModel):
    """An item whose pass rate differs between base and head."""

    id: str
    text: str = ""
    decided_by: Literal["code", "judge"] = "code"
    critical: bool = False
    base_passed: int
    base_runs: int
    head_passed: int
    head_runs: int
    base_reason: str = ""
    head_reason: str = ""
    worse: bool
    significant: bool
    p_value: float | None = None
    too_few_runs: bool = Field(
        False,
        description="Not significant, and these run counts could never be: even "
        "all-pass against all-fail gives p >= alpha.",
    )
    repeats_needed: int | None = Field(
        default=None,
        description="Runs a side at which the observed pass rates would "
        "give p < alpha (None: more than 100, or it counts).",
    )
    why: str = Field(description="Why the flip counts, or why it does not.")

    @property
    def by_collapse(self) -> bool:
        """Counted by the collapse rule (every run one way on base, the other on head, of a critical or
        code-decided item), not by the test: its p-value decided nothing and is not shown."""
        every_way = (self.base_passed == self.base_runs and self.head_passed == 0) or (
            self.base_passed == 0 and self.head_passed == self.head_runs
        )
        return self.significant and every_way and (self.critical or self.decided_by == "code")

    @property
    def label(self) -> str:
        """ "worse" or "better" when the flip counts, else "too few runs to tell" or "within noise"."""
        if self.significant:
            return "worse" if self.worse else "better"
        return "too few runs to tell" if self.too_few_runs else "within noise"

    @property
    def short(self) -> str:
        """The flip in a table cell: `tone 1/1→0/1 (too few runs: 4 a side needed)`."""
        text = f"{self.id} {self.base_passed}/{self.base_runs}→{self.head_passed}/{self.head_runs}"
        if self.p_value is not None and not self.by_collapse:
            text += f" (p={self.p_value:.3g})"
        if not self.significant:
            needed = f"{self.repeats_needed} a side needed" if self.repeats_needed else "over 100 a side needed"
            text += f" (too few runs: {needed})" if self.too_few_runs else " ~noise"
        return text


class FieldChange(BaseModel):
    field: str
    base: list[Any]
    head: list[Any]


class CaseDiff(BaseModel):
    suite: str
    id: str
    change: Change
    base_verdict: str | None = None
    head_verdict: str | None = None
    base_reasons: list[str] = Field(default_factory=list)
    head_reasons: list[str] = Field(default_factory=list)
    flips: list[ItemFlip] = Field(default_factory=list)
    fields: list[FieldChange] = Field(default_factory=list)
    note: str = ""
    trajectory: TrajectoryDiff | None = Field(
        default=None, description="What changed in the case's tool calls (None: no trace on a side, or no change)."
    )
    flaky: FlakyCase | None = Field(
        default=None, description="The history's word that the case flips on the default branch (None: not known to)."
    )


class SideStats(BaseModel):
    """One side's totals: of a suite, or of the whole run."""

    cases: int = 0
    passed: int = 0
    failed: int = 0
    errors: int = 0
    pass_rate: float | None = None
    critical_failures: int = 0
    agreement: float | None = None
    calls: int = 0
    cache_hits: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    cached_cost_usd: float = Field(
        default=0.0, description="The cache hits' replies at list price (not paid by this run)."
    )
    wall_seconds: float = 0.0
    latency_median: float | None = None
    latency_p95: float | None = None


class SuiteDiff(BaseModel):
    name: str
    base: SideStats | None = None
    head: SideStats | None = None
    cases: list[CaseDiff] = Field(default_factory=list)


class Comparison(BaseModel):
    base_label: str
    head_label: str
    alpha: float
    suites: list[SuiteDiff] = Field(default_factory=list)
    base: SideStats = Field(default_factory=SideStats)
    head: SideStats = Field(default_factory=SideStats)
    base_commit: str | None = None
    head_commit: str | None = None
    changed_files: list[str] = Field(default_factory=list, description="Files whose hash differs (provenance).")
    notes: list[str] = Field(default_factory=list)
    demo: bool = False

    def cases(self, change: Change | None = None) -> list[CaseDiff]:
        return [c for s in self.suites for c in s.cases if change is None or c.change == change]

    def count(self, change: Change) -> int:
        return len(self.cases(change))

    @property
    def regressed(self) -> int:
        return self.count("regressed")

    @property
    def fixed(self) -> int:
        return self.count("fixed")

    def failing(self) -> list[CaseDiff]:
        """Cases that fail (or error) on head."""
        return [c for c in self.cases() if c.head_verdict in _FAILING]

    def pass_rate_drop(self) -> str | None:
        """The run's pass rate before → after, when head's falls below the 95 % Wilson interval of
        base's (the range base's own rate could read by chance alone); None when it stays within it.
        Said in plain words: the headline uses no term it does not define."""
        b, h = self.base, self.head
        if not b.cases or not h.cases or h.pass_rate is None or b.pass_rate is None:
            return None
        low, high = wilson(b.passed, b.cases)
        if h.pass_rate >= low:
            return None
        return (
            f"pass rate {b.pass_rate:.0%} → {h.pass_rate:.0%}, a bigger drop than chance explains "
            f"(by chance alone base's rate could read {low:.0%}–{high:.0%})"
        )

    def icon(self, gate_failed: bool | None = None) -> str:
        """❌ when a gate fails (`gate_failed`; unknown: when a case regressed), ⚠️ when cases fail
        or the pass rate fell beyond the noise band or a change could not be told from noise, else ✅."""
        if gate_failed or (gate_failed is None and self.regressed):
            return "❌"
        if self.regressed or self.failing() or self.pass_rate_drop() or self.count("too few runs to tell"):
            return "⚠️"
        return "✅"

    def sentence(self) -> str:
        """ "3 cases now fail (2 passed on the base branch): 1 got worse, 1 too few runs to tell, 0 got
        better, 1 was already failing on the base branch"."""

        def cases(n: int) -> str:
            return f"{n} case{'s' if n != 1 else ''}"

        failing = self.failing()
        was_passing = sum(c.base_verdict not in _FAILING and c.base_verdict is not None for c in failing)
        if not failing:
            lead = "no case fails"
        elif len(failing) == 1:
            base_side = (
                "it passed on the base branch"
                if was_passing
                else "it is new"
                if failing[0].base_verdict is None
                else "it failed on the base branch too"
            )
            lead = f"1 case now fails ({base_side})"
        else:
            lead = f"{cases(len(failing))} now fail ({was_passing or 'none'} of them passed on the base branch)"
        parts = [f"{cases(self.regressed)} got worse"]
        if self.count("flaky on main"):
            parts.append(f"{self.count('flaky on main')} flaky on the default branch (not counted as worse)")
        if self.count("too few runs to tell"):
            parts.append(f"{self.count('too few runs to tell')} too few runs to tell")
        parts.append(f"{self.fixed} got better")
        if self.count("still failing"):
            n = self.count("still failing")
            parts.append(f"{n} {'was' if n == 1 else 'were'} already failing on the base branch")
        if self.count("within noise"):
            parts.append(f"{self.count('within noise')} changed no more than chance explains")
        if self.count("new"):
            parts.append(f"{self.count('new')} new")
        if self.count("removed"):
            parts.append(f"{self.count('removed')} removed")
        if self.count("not comparable"):
            whats = sorted({c.note.removeprefix("not comparable: ") for c in self.cases("not comparable")})
            parts.append(
                f"{self.count('not comparable')} not comparable ({'; '.join(whats[:3])}"
                + (f"; and {len(whats) - 3} more" if len(whats) > 3 else "")
                + ")"
            )
        drop = self.pass_rate_drop()
        return f"{lead}: " + ", ".join(parts) + (f"; {drop}" if drop else "")
