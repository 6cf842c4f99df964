"""Gates: thresholds and critical items turn scored results into verdicts, with reasons."""

from __future__ import annotations

from typing import Any

from evalkit.exit_codes import ExitCode, passed_or_failed
from evalkit.results.consistency import pass_all_reason
from evalkit.results.intervals import wilson
from evalkit.results.report import CaseResult, ComparisonResult, RunResult, SuiteResult, Verdict
from evalkit.suite.spec import Thresholds

_SEVERITY = {"skipped": 0, "pass": 1, "inconclusive": 2, "not_run": 3, "fail": 4, "error": 5}


def case_scores(runs: list[RunResult]) -> dict[str, Any]:
    """A case's pass rate, check counts, critical failures and errors from its runs (CaseResult fields)."""
    items = [i for r in runs for i in r.items]
    rubric = [i for i in items if not i.required and i.status in ("pass", "fail")]
    weight = sum(i.weight for i in rubric)
    checks = [i for i in items if i.required and i.status != "n/a"]
    errors = [f"run {r.repeat + 1}: {e}" for r in runs for e in r.run_errors()]
    errors += [f"run {r.repeat + 1}: {i.id}: {i.reason}" for r in runs for i in r.items if i.status == "error"]
    return {
        "rubric_pass_rate": sum(i.weight for i in rubric if i.status == "pass") / weight if rubric else None,
        "rubric_interval": [round(x, 4) for x in wilson(sum(i.status == "pass" for i in rubric), len(rubric))]
        if len(runs) > 1 and rubric
        else None,
        "checks_total": len(checks),
        "checks_passed": sum(i.status == "pass" for i in checks),
        "critical_failures": sorted({i.id for i in items if i.critical and i.status == "fail"}),
        "errors": errors if len(runs) > 1 else [e.removeprefix("run 1: ") for e in errors],
    }


def score_case(case: CaseResult) -> None:
    """Fill the case's pass rate, check counts, critical failures and errors from its runs."""
    for name, value in case_scores(case.runs).items():
        setattr(case, name, value)


def case_verdict(case: CaseResult, thresholds: Thresholds, pass_all: bool = False) -> tuple[Verdict, list[str]]:
    """The case's verdict and every gate it failed; `pass_all`: a case with repeats fails unless
    every one of its runs passed on its own (`RunResult.passed`)."""
    if case.verdict in ("skipped", "not_run"):
        return case.verdict, case.reasons
    reasons: list[str] = []
    if case.errors:
        reasons.append(f"{len(case.errors)} error row(s)")
    if case.checks_passed < case.checks_total:
        reasons.append(f"checks: {case.checks_total - case.checks_passed} of {case.checks_total} failed")
    if case.critical_failures:
        reasons.append("critical item failed: " + ", ".join(case.critical_failures))
    if pass_all and (failed_runs := pass_all_reason(case)):
        reasons.append(failed_runs)
    if case.rubric_pass_rate is not None and case.rubric_pass_rate < thresholds.rubric:
        interval = case.rubric_interval
        if interval is not None and interval[1] >= thresholds.rubric and not reasons:
            # The repeats cannot tell this rate from one that meets the threshold: say so, not "fail".
            return "inconclusive", [
                f"rubric pass rate {case.rubric_pass_rate:.0%} < {thresholds.rubric:.0%}, "
                f"but its 95% interval {interval[0]:.0%}–{interval[1]:.0%} reaches it "
                f"(more repeats would tell)"
            ]
        reasons.append(f"rubric pass rate {case.rubric_pass_rate:.0%} < {thresholds.rubric:.0%}")
    if case.agreement is not None and case.agreement < thresholds.agreement:
        reasons.append(f"field agreement {case.agreement:.0%} < {thresholds.agreement:.0%}")
    if case.errors:
        return "error", reasons
    return ("fail" if reasons else "pass"), reasons


def suite_verdict(suite: SuiteResult) -> Verdict:
    """The worst verdict of the suite's cases; an inconclusive case counts as the suite's
    `inconclusive` setting says (fail, pass, or warn: the suite is inconclusive, exit 0); a case the
    budget did not run fails the suite (it is never a pass)."""
    as_setting: dict[str, Verdict] = {"fail": "fail", "pass": "pass", "warn": "inconclusive"}
    verdicts: list[Verdict] = [
        as_setting[suite.inconclusive] if v == "inconclusive" else "fail" if v == "not_run" else v
        for v in suite.case_verdicts()
    ]
    verdicts += [_comparison_verdict(c) for c in suite.comparisons]
    if suite.error:
        verdicts.append("error")
    return worst(verdicts)


_COMPARISON_VERDICT: dict[str, Verdict] = {"pass": "pass", "fail": "fail", "error": "error", "n/a": "skipped"}


def _comparison_verdict(c: ComparisonResult) -> Verdict:
    return _COMPARISON_VERDICT[c.status]


def worst(verdicts: list[Verdict]) -> Verdict:
    """The most severe verdict; all skipped (or nothing) is skipped."""
    return max(verdicts, key=_SEVERITY.__getitem__, default="skipped")


def exit_code(verdict: Verdict) -> ExitCode:
    """PASSED when nothing failed (an inconclusive verdict is a warning), GATE_FAILED when a gate failed or an
    error row stands."""
    return passed_or_failed(verdict not in ("pass", "skipped", "inconclusive"))
