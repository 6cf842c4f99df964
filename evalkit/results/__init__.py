"""What a run produced: the Report, gates, intervals, field agreement, consistency over repeats
(pass@k, pass^k), provenance, the JSONL stream and its reader."""

from __future__ import annotations

from typing import TYPE_CHECKING

from evalkit._runtime.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from evalkit.results.agreement import agreement, consensus, values_agree
    from evalkit.results.consistency import Consistency, consistency, run_passes
    from evalkit.results.gates import case_scores, case_verdict, exit_code, suite_verdict, worst
    from evalkit.results.intervals import cohen_kappa, flipped, kappa_interval, majority, wilson
    from evalkit.results.provenance import TEMPLATE_SUFFIXES, Provenance, evalkit_version
    from evalkit.results.reader import (
        Scan,
        carry_over,
        load_report,
        prior_totals,
        scan_results,
        summary_of,
        write_report,
    )
    from evalkit.results.report import (
        NOT_RUN_BUDGET,
        BudgetUse,
        CaseResult,
        ComparisonResult,
        ItemResult,
        ModelUse,
        RateLimitUse,
        Report,
        RunResult,
        SuiteResult,
        Verdict,
    )
    from evalkit.results.stream import ResultsWriter, RunLock, SessionTotals, SuiteTally, new_run_id, tally_for

# What the other rooms (and a team's code) use of this one; each name loads its module on first use.
__all__ = [
    "BudgetUse",
    "CaseResult",
    "ComparisonResult",
    "Consistency",
    "ItemResult",
    "ModelUse",
    "NOT_RUN_BUDGET",
    "Provenance",
    "RateLimitUse",
    "Report",
    "ResultsWriter",
    "RunLock",
    "RunResult",
    "Scan",
    "SessionTotals",
    "SuiteResult",
    "SuiteTally",
    "TEMPLATE_SUFFIXES",
    "Verdict",
    "agreement",
    "carry_over",
    "case_scores",
    "case_verdict",
    "cohen_kappa",
    "consensus",
    "consistency",
    "evalkit_version",
    "exit_code",
    "flipped",
    "kappa_interval",
    "load_report",
    "majority",
    "new_run_id",
    "prior_totals",
    "run_passes",
    "scan_results",
    "suite_verdict",
    "summary_of",
    "tally_for",
    "values_agree",
    "wilson",
    "worst",
    "write_report",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "agreement": "evalkit.results.agreement",
        "consensus": "evalkit.results.agreement",
        "values_agree": "evalkit.results.agreement",
        "Consistency": "evalkit.results.consistency",
        "consistency": "evalkit.results.consistency",
        "run_passes": "evalkit.results.consistency",
        "case_scores": "evalkit.results.gates",
        "case_verdict": "evalkit.results.gates",
        "exit_code": "evalkit.results.gates",
        "suite_verdict": "evalkit.results.gates",
        "worst": "evalkit.results.gates",
        "cohen_kappa": "evalkit.results.intervals",
        "flipped": "evalkit.results.intervals",
        "kappa_interval": "evalkit.results.intervals",
        "majority": "evalkit.results.intervals",
        "wilson": "evalkit.results.intervals",
        "Provenance": "evalkit.results.provenance",
        "TEMPLATE_SUFFIXES": "evalkit.results.provenance",
        "evalkit_version": "evalkit.results.provenance",
        "Scan": "evalkit.results.reader",
        "carry_over": "evalkit.results.reader",
        "load_report": "evalkit.results.reader",
        "prior_totals": "evalkit.results.reader",
        "scan_results": "evalkit.results.reader",
        "summary_of": "evalkit.results.reader",
        "write_report": "evalkit.results.reader",
        "BudgetUse": "evalkit.results.report",
        "CaseResult": "evalkit.results.report",
        "ComparisonResult": "evalkit.results.report",
        "ItemResult": "evalkit.results.report",
        "ModelUse": "evalkit.results.report",
        "NOT_RUN_BUDGET": "evalkit.results.report",
        "RateLimitUse": "evalkit.results.report",
        "Report": "evalkit.results.report",
        "RunResult": "evalkit.results.report",
        "SuiteResult": "evalkit.results.report",
        "Verdict": "evalkit.results.report",
        "ResultsWriter": "evalkit.results.stream",
        "RunLock": "evalkit.results.stream",
        "SessionTotals": "evalkit.results.stream",
        "SuiteTally": "evalkit.results.stream",
        "new_run_id": "evalkit.results.stream",
        "tally_for": "evalkit.results.stream",
    },
)

del annotations, TYPE_CHECKING, lazy_exports
