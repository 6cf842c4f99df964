"""The comparison of two runs as data: what changed per case, item and field, and the totals of
each side. Round-trips through JSON like the Report."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

Change = Literal["regressed", "fixed", "within noise", "still failing", "still passing", "new", "removed"]
CHANGES: tuple[Change, ...] = ("regressed", "fixed", "within noise", "still failing", "still passing", "new",
                               "removed")


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
    why: str = Field(description="Why the flip counts, or why it is within noise.")


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

    def sentence(self) -> str:
        """"2 cases got worse, 1 got better, 3 were already failing on the base branch"."""
        def cases(n: int) -> str:
            return f"{n} case{'s' if n != 1 else ''}"

        parts = [f"{cases(self.regressed)} got worse", f"{self.fixed} got better"]
        if self.count("still failing"):
            n = self.count("still failing")
            parts.append(f"{n} {'was' if n == 1 else 'were'} already failing on the base branch")
        if self.count("within noise"):
            parts.append(f"{self.count('within noise')} changed within noise")
        if self.count("new"):
            parts.append(f"{self.count('new')} new")
        if self.count("removed"):
            parts.append(f"{self.count('removed')} removed")
        return ", ".join(parts)
