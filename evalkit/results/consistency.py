"""Consistency over a case's repeats: did each run pass on its own, pass@k (at least one of the k
runs passed) and pass^k (every one of them passed)."""

from __future__ import annotations

from dataclasses import dataclass

from evalkit.results.report import CaseResult, RunResult
from evalkit.suite.spec import Thresholds


def run_passes(run: RunResult, thresholds: Thresholds) -> bool:
    """A run passes by the case gates' own rules applied to it alone: no error (of the target, the
    extraction or an item), every check and critical item passed, and its rubric pass rate at or
    above the threshold. Field agreement is across runs, so it is not a rule of one run."""
    if run.run_errors() or any(i.status == "error" for i in run.items):
        return False
    if any(i.status == "fail" and (i.required or i.critical) for i in run.items):
        return False
    rubric = [i for i in run.items if not i.required and i.status in ("pass", "fail")]
    weight = sum(i.weight for i in rubric)
    return not rubric or sum(i.weight for i in rubric if i.status == "pass") / weight >= thresholds.rubric


@dataclass(frozen=True)
class Consistency:
    """How many of a case's k runs passed."""

    passed: int
    k: int
    failed_runs: tuple[int, ...]  # 1-based, as reports number runs

    @property
    def pass_at_k(self) -> bool:
        return self.passed > 0

    @property
    def pass_all_k(self) -> bool:
        """pass^k."""
        return self.passed == self.k

    @property
    def summary(self) -> str:
        """E.g. `2/3 runs passed · pass@3 ✓ · pass^3 ✗`."""
        mark = {True: "✓", False: "✗"}
        return (
            f"{self.passed}/{self.k} runs passed · pass@{self.k} {mark[self.pass_at_k]} · "
            f"pass^{self.k} {mark[self.pass_all_k]}"
        )


def consistency(case: CaseResult) -> Consistency | None:
    """The case's consistency over its repeats; None for a single run, or for runs recorded before
    runs carried their own verdict (`RunResult.passed` absent)."""
    if len(case.runs) < 2 or any(r.passed is None for r in case.runs):
        return None
    failed = tuple(r.repeat + 1 for r in case.runs if not r.passed)
    return Consistency(passed=len(case.runs) - len(failed), k=len(case.runs), failed_runs=failed)


def pass_all_reason(case: CaseResult) -> str | None:
    """Why `pass_all: true` fails the case (which runs failed), or None when every run passed."""
    c = consistency(case)
    if c is None or c.pass_all_k:
        return None
    runs = ", ".join(map(str, c.failed_runs))
    return f"pass_all: run{'s' if len(c.failed_runs) > 1 else ''} {runs} of {c.k} failed ({c.passed}/{c.k} passed)"
