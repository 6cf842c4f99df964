"""What the Action tells GitHub: the sticky PR comment, the check run, the log groups and annotations."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from evalkit.action.discovery import relative
from evalkit.errors import SuiteError
from evalkit.exit_codes import ExitCode
from evalkit.github import commands
from evalkit.github.api import GitHubAPI
from evalkit.github.check_run import Annotation, CheckRunResult, Conclusion, Level, create_check_run
from evalkit.github.event import Event
from evalkit.github.sticky_comment import CommentResult, upsert_comment
from evalkit.render.comment import MARKER, headline
from evalkit.render.log import budget_line, case_detail, case_lines, suite_line, usage_line
from evalkit.render.sanitize import strip_invisible
from evalkit.results.report import CaseResult, Report, SuiteResult

MAX_CHECK_ANNOTATIONS = 500  # ten requests of 50; a run with more failing cases says how many are not annotated


@dataclass(frozen=True)
class Failure:
    """A failing or erroring case and where it is written: the log's annotation and the check run's
    point at the same file and line."""

    suite: SuiteResult
    case: CaseResult
    file: str  # relative to the workspace (the repository root)
    line: int | None
    label: str = ""  # the model, in a model-against-model run

    @property
    def title(self) -> str:
        model = f" ({self.label})" if self.label else ""
        return f"evalkit {self.suite.name}: {self.case.id} {self.case.verdict}{model}"


def failures(report: Report, workspace: Path, label: str = "") -> list[Failure]:
    """The report's cases whose verdict is fail or error, in the report's order."""
    return [
        Failure(suite, case, relative(Path(case.file or suite.path), workspace), case.line, label)
        for suite in report.suites
        for case in suite.cases
        if case.verdict in ("fail", "error")
    ]


def check_annotation(failure: Failure) -> Annotation:
    """A failing case as a check-run annotation on its line of the suite file (line 1 when the loader
    did not know it): `failure` level for a failed gate, `warning` for an error row (the case could not
    be scored); the message is the case's lines of the log."""
    level: Level = "failure" if failure.case.verdict == "fail" else "warning"
    message = "\n".join(case_detail(failure.case)).strip()
    return Annotation(failure.file, failure.line or 1, level, strip_invisible(message), title=failure.title)


def check_conclusion(verdict: str, gate_code: int | None) -> Conclusion:
    """The check run's conclusion. `gate_code` is the exit code the gates decided (before
    `fail_on_gate`; the check reports what the gates say), None when no run finished.

    A finished run: failure when a gate failed (an error row fails a gate too: the team's code raised),
    neutral for an inconclusive pass (reported, not failed, as the step), skipped when nothing was
    evaluated, else success. No finished run: skipped for a skip (no key on a fork, nothing affected),
    else action_required — the evals could not run or did not finish, so there is no verdict: not a
    failure of the change (failure would say the answers fell short) and never a pass (neutral and
    skipped satisfy a required check; action_required does not), but a setup a person must fix."""
    if gate_code is None:
        return "skipped" if verdict == "skipped" else "action_required"
    if gate_code != ExitCode.PASSED:
        return "failure"
    if verdict == "inconclusive":
        return "neutral"
    return "skipped" if verdict == "skipped" else "success"


def post_comment(
    api: GitHubAPI | None, event: Event, body: str, *, mark: str = MARKER, create: bool = True
) -> CommentResult | None:
    """Create or edit the sticky comment; without a token or permission, say the summary has it."""
    if api is None:
        commands.annotation(
            "warning", "evalkit: no github_token: the results are in the job summary only", title="evalkit"
        )
        return None
    assert event.pr_number is not None
    result = upsert_comment(api, event.owner, event.repo, event.pr_number, body, marker=mark, create=create)
    if result.action == "fallback":
        commands.annotation("warning", f"evalkit: {result.reason}; the results are in the job summary", title="evalkit")
    elif result.action != "unchanged":
        print(f"evalkit: {result.action} the PR comment {result.url or ''}".rstrip())
    return result


def post_check_run(
    api: GitHubAPI | None,
    event: Event,
    body: str,
    *,
    name: str,
    conclusion: Conclusion,
    annotations: Sequence[Annotation] = (),
    mark: str = MARKER,
) -> CheckRunResult | None:
    """Report the verdict as a check run on the change's head commit: the comment's headline as its
    title, the comment (without its marker) as its summary, an annotation per failing case. Without a
    token or permission: a one-line warning; the run's verdict and exit code do not change."""
    if api is None or not event.head_sha:
        why = "no github_token" if api is None else "the event names no commit"
        commands.annotation("warning", f"evalkit: {why}: no check run (check_run: true)", title="evalkit")
        return None
    summary = body.removeprefix(mark).lstrip("\n")
    shown = list(annotations[:MAX_CHECK_ANNOTATIONS])
    if len(annotations) > len(shown):
        summary = (
            f"> {len(annotations) - len(shown)} more failing cases are not annotated here (GitHub's checks "
            f"show {len(shown)}); this summary and `results.json` list them all.\n\n" + summary
        )
    result = create_check_run(
        api,
        event.owner,
        event.repo,
        name=name,
        head_sha=event.head_sha,
        conclusion=conclusion,
        title=headline(summary) or f"evalkit: {conclusion}",
        summary=summary,
        annotations=shown,
        details_url=event.run_url,
    )
    if result.action == "failed":
        commands.annotation(
            "warning", f"evalkit: {result.reason}; the verdict is in the comment and the job summary", title="evalkit"
        )
    elif result.action == "partial":
        commands.annotation("warning", f"evalkit: check run {name!r}: {result.reason}", title="evalkit")
    else:
        print(
            f"evalkit: check run {name!r}: {conclusion}, {result.annotations} annotations {result.url or ''}".rstrip()
        )
    return result


def log_report(report: Report, workspace: Path) -> None:
    """A `::group::` per suite (model text only inside stop-commands), then an annotation per failure."""
    for suite in report.suites:
        with commands.group(suite_line(suite, width=0)):
            commands.print_untrusted("\n".join(case_lines(suite)))
    for failure in failures(report, workspace):
        case = failure.case
        commands.annotation(
            "error",
            f"{case.id}: {'; '.join(case.reasons) or case.verdict}"[:1000],
            file=failure.file,
            line=failure.line,
            title=failure.title,
        )
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
        commands.annotation(
            "error",
            problem.describe(),
            file=relative(Path(problem.file), workspace),
            line=problem.line or None,
            title="evalkit: suite file",
        )
