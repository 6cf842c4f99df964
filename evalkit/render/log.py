"""A Report as plain log lines: one summary line per suite, the run's usage, and the failing
cases' details. The CLI and the Action print these same lines."""

from __future__ import annotations

from evalkit.llm.usage import Usage
from evalkit.render.sanitize import cap_text
from evalkit.results.report import CaseResult, Report, SuiteResult

MAX_LOGGED_OUTPUT = 4000  # characters of each failing output shown in a log (reasons: MAX_QUOTED_CHARS)
MAX_TRACEBACK_CHARS = 2000  # of a target's traceback shown in a log or a comment (the innermost frames)


def suite_line(suite: SuiteResult, width: int = 7) -> str:
    """`FAIL    pace_ai: 3 passed, 2 failed, 0 errors — why the suite could not run`; the verdict
    padded to `width` so a column of them lines up."""
    return (
        f"{suite.verdict.upper().ljust(width)} {suite.name}: {suite.count('pass')} passed, {suite.count('fail')} failed, "
        f"{suite.count('error')} errors"
        + (f", {suite.count('inconclusive')} inconclusive" if suite.count("inconclusive") else "")
        + (f", {suite.count('not_run')} not run: budget" if suite.count("not_run") else "")
        + (f" — {suite.error}" if suite.error else "")
        + (f" ({suite.calibration})" if suite.calibration else "")
        + (f"; {absorbed(suite.usage)}" if suite.usage.faults_absorbed else "")
    )


def absorbed(usage: Usage) -> str:
    """`12 faults absorbed by retries (9 rate_limited, 3 overloaded)`: what retries hid."""
    kinds = ", ".join(f"{n} {kind}" for kind, n in sorted(usage.retried.items(), key=lambda kv: -kv[1]))
    return f"{usage.faults_absorbed} faults absorbed by retries ({kinds})"


def usage_line(report: Report) -> str:
    """Calls, cache hits, tokens, dollars and wall time of the run."""
    u = report.usage
    limited = report.rate_limit
    waits = (
        (
            f", rate limit: {limited.rejected} × 429, {limited.paused_seconds:.1f} s held"
            f"{', paced' if limited.paced else ''}"
        )
        if limited.rejected or limited.paced
        else ""
    )
    return (
        f"{u.calls} model calls, {u.cache_hits} cache hits, {u.input_tokens + u.output_tokens:,} tokens, "
        f"${u.cost_usd:.4f}, {report.wall_seconds:.1f} s{waits}" + (f", {absorbed(u)}" if u.faults_absorbed else "")
    )


def budget_line(report: Report) -> str | None:
    """What the run's budget did, when it had one: `budget: stopped the run: $0.0991 spent of $0.10, 868 cases
    not run (why)`, or `budget: $0.41 spent of $5.00`."""
    b = report.budget
    if b is None:
        return None
    if b.stopped:
        return (
            f"budget: stopped the run: ${b.spent_usd:.4f} spent of ${b.limit_usd:.2f}, {b.not_run} cases not run "
            f"({b.stopped}); a case not run is never a pass: exit 1"
        )
    return f"budget: ${b.spent_usd:.4f} spent of ${b.limit_usd:.2f}"


def tail(text: str, limit: int = MAX_TRACEBACK_CHARS) -> str:
    """The end of a traceback (its innermost frames and the error), cut at a line."""
    if len(text) <= limit:
        return text
    return "[... outer frames in results.json ...]\n" + text[-limit:].split("\n", 1)[-1]


def case_lines(suite: SuiteResult, max_output: int = MAX_LOGGED_OUTPUT) -> list[str]:
    """Each case's verdict; for failing cases, their failing items, run errors and outputs."""
    lines = []
    if suite.error:
        lines.append(f"suite error: {suite.error}")
    for case in suite.cases:
        lines += case_detail(case, max_output)
    return lines


def case_detail(case: CaseResult, max_output: int = MAX_LOGGED_OUTPUT) -> list[str]:
    """One case's verdict line; for a failing case, its failing items, run errors, tracebacks and outputs
    (the log's lines, and the message of its check-run annotation)."""
    reasons = cap_text("; ".join(case.reasons))
    lines = [f"{case.verdict.upper():7} {case.id}" + (f"  ({reasons})" if reasons else "")]
    if case.verdict not in ("fail", "error"):
        return lines
    for repeat, item in case.failing_items():
        lines.append(f"    [run {repeat + 1}] {item.id} {item.status}: {cap_text(item.reason)}")
    for run in case.runs:
        lines += [f"    [run {run.repeat + 1}] {cap_text(e)}" for e in run.run_errors()]
        if run.traceback:
            lines.append(f"    --- traceback of run {run.repeat + 1} (the target's own frames) ---")
            lines += ["    " + ln for ln in tail(run.traceback).splitlines()]
        if run.output:
            lines.append(f"    --- output of run {run.repeat + 1} ---")
            lines.append(cap_text(run.output, max_output))
    return lines
