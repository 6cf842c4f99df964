"""What the Action tells GitHub: the sticky PR comment, the log groups and annotations."""

from __future__ import annotations

from pathlib import Path

from evalkit.action.discovery import relative
from evalkit.errors import SuiteError
from evalkit.github import commands
from evalkit.github.api import GitHubAPI
from evalkit.github.event import Event
from evalkit.github.sticky_comment import CommentResult, upsert_comment
from evalkit.render.comment import MARKER
from evalkit.render.log import budget_line, case_lines, suite_line, usage_line
from evalkit.results.report import Report


def post_comment(api: GitHubAPI | None, event: Event, body: str, *, mark: str = MARKER,
                 create: bool = True) -> CommentResult | None:
    """Create or edit the sticky comment; without a token or permission, say the summary has it."""
    if api is None:
        commands.annotation("warning", "evalkit: no github_token: the results are in the job summary only",
                            title="evalkit")
        return None
    assert event.pr_number is not None
    result = upsert_comment(api, event.owner, event.repo, event.pr_number, body, marker=mark, create=create)
    if result.action == "fallback":
        commands.annotation("warning", f"evalkit: {result.reason}; the results are in the job summary",
                            title="evalkit")
    elif result.action != "unchanged":
        print(f"evalkit: {result.action} the PR comment {result.url or ''}".rstrip())
    return result


def log_report(report: Report, workspace: Path) -> None:
    """A `::group::` per suite (model text only inside stop-commands), then an annotation per failure."""
    for suite in report.suites:
        with commands.group(suite_line(suite, width=0)):
            commands.print_untrusted("\n".join(case_lines(suite)))
    for suite in report.suites:
        for case in suite.cases:
            if case.verdict not in ("fail", "error"):
                continue
            file = relative(Path(case.file or suite.path), workspace)
            commands.annotation("error", f"{case.id}: {'; '.join(case.reasons) or case.verdict}"[:1000],
                                file=file, line=case.line, title=f"evalkit {suite.name}: {case.id} {case.verdict}")
    for warning in report.warnings:
        commands.annotation("warning", f"evalkit: {warning}", title="evalkit")
    budget = budget_line(report)
    if budget and report.budget is not None and report.budget.stopped:
        commands.annotation("error", f"evalkit: {budget}", title="evalkit: the budget stopped the run")
    elif budget:
        print(f"evalkit: {budget}")
    print(f"evalkit: {usage_line(report)}")


def annotate_suite_error(exc: SuiteError, workspace: Path) -> None:
    """One error annotation for the whole, then one on each problem's own file and line."""
    commands.annotation("error", f"evalkit: {exc}", title="evalkit: suite files")
    for problem in exc.problems:
        if not problem.file or not Path(problem.file).is_file():
            continue
        commands.annotation("error", problem.describe(), file=relative(Path(problem.file), workspace),
                            line=problem.line or None, title="evalkit: suite file")
