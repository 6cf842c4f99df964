"""Gates: thresholds and critical items turn scored results into verdicts, with reasons."""

from __future__ import annotations

from evalkit.suite._spec import Thresholds
from evalkit.report import CaseResult, ComparisonResult, SuiteResult, Verdict

_SEVERITY = {"skipped": 0, "pass": 1, "fail": 2, "error": 3}


def score_case(case: CaseResult) -> None:
    """Fill the case's pass rate, check counts, critical failures and errors from its runs."""
    rubric = [i for r in case.runs for i in r.items if not i.required and i.status in ("pass", "fail")]
    weight = sum(i.weight for i in rubric)
    case.rubric_pass_rate = sum(i.weight for i in rubric if i.status == "pass") / weight if rubric else None
    checks = [i for r in case.runs for i in r.items if i.required and i.status != "n/a"]
    case.checks_total = len(checks)
    case.checks_passed = sum(i.status == "pass" for i in checks)
    case.critical_failures = sorted({i.id for r in case.runs for i in r.items if i.critical and i.status == "fail"})
    errors = [f"run {r.repeat + 1}: {e}" for r in case.runs for e in r.run_errors()]
    errors += [f"run {r.repeat + 1}: {i.id}: {i.reason}" for r in case.runs for i in r.items if i.status == "error"]
    case.errors = errors if len(case.runs) > 1 else [e.removeprefix("run 1: ") for e in errors]


def case_verdict(case: CaseResult, thresholds: Thresholds) -> tuple[Verdict, list[str]]:
    """The case's verdict and every gate it failed."""
    if case.verdict == "skipped":
        return "skipped", case.reasons
    reasons: list[str] = []
    if case.errors:
        reasons.append(f"{len(case.errors)} error row(s)")
    if case.checks_passed < case.checks_total:
        reasons.append(f"checks: {case.checks_total - case.checks_passed} of {case.checks_total} failed")
    if case.critical_failures:
        reasons.append("critical item failed: " + ", ".join(case.critical_failures))
    if case.rubric_pass_rate is not None and case.rubric_pass_rate < thresholds.rubric:
        reasons.append(f"rubric pass rate {case.rubric_pass_rate:.0%} < {thresholds.rubric:.0%}")
    if case.agreement is not None and case.agreement < thresholds.agreement:
        reasons.append(f"field agreement {case.agreement:.0%} < {thresholds.agreement:.0%}")
    if case.errors:
        return "error", reasons
    return ("fail" if reasons else "pass"), reasons


def suite_verdict(suite: SuiteResult) -> Verdict:
    verdicts: list[Verdict] = [c.verdict for c in suite.cases]
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


def exit_code(verdict: Verdict) -> int:
    """0 when nothing failed, 1 when a gate failed or an error row stands."""
    return 0 if verdict in ("pass", "skipped") else 1
