"""How every exit of the Action is told: the sticky comment, the job summary and the step
outputs, together, with every secret redacted, so no exit (pass, fail, error, setup problem,
skip) leaves a previous verdict standing."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from evalkit.action.discovery import relative
from evalkit.action.inputs import check_name, comment_key, comment_mode, read_input, wants_check_run, wants_summary
from evalkit.action.publish import check_conclusion, post_check_run, post_comment
from evalkit.action.redact import redact_text
from evalkit.action.workspace import Outputs, results_dir
from evalkit.errors import EvalkitError, Problem
from evalkit.github.api import GitHubAPI
from evalkit.github.check_run import Annotation, Conclusion
from evalkit.github.event import Event, load_event
from evalkit.render.comment import marker, setup_error_body, unfinished_body

OUTPUT_NAMES = (
    "verdict",
    "results_path",
    "comment_path",
    "selected_suites",
    "comment_id",
    "comment_url",
    "passed",
    "failed",
    "errors",
)


@dataclass
class Outcome:
    """Where the run's verdict goes; built before anything can fail, from what is readable."""

    env: Mapping[str, str]
    workspace: Path
    out_dir: Path
    outputs: Outputs
    secrets: Sequence[str]
    event: Event | None = None
    api: GitHubAPI | None = None
    comment: bool = True
    mark: str = field(default_factory=marker)
    comment_mode: str = "always"  # see inputs.COMMENT_MODES: when a comment is created
    summary: bool = True
    published: bool = False
    check_run: bool = False  # also a check run on the head commit (the `check_run` input)
    check_name: str = "evalkit"

    @classmethod
    def from_env(cls, env: Mapping[str, str], secrets: Sequence[str]) -> Outcome:
        workspace = Path(env.get("GITHUB_WORKSPACE") or os.getcwd()).resolve()
        out_dir = results_dir(env, workspace)
        try:
            event = load_event(env)
        except EvalkitError:
            event = None  # the run reports this error itself; the summary and outputs still work
        token = read_input(env, "github_token")
        api = GitHubAPI(token, env.get("GITHUB_API_URL") or None) if token else None
        mode = comment_mode(env)
        return cls(
            env,
            workspace,
            out_dir,
            Outputs(env, workspace),
            secrets,
            event,
            api,
            mode != "off",
            marker(comment_key(env)),
            mode,
            wants_summary(env),
            check_run=wants_check_run(env),
            check_name=check_name(env),
        )

    @property
    def run_url(self) -> str | None:
        return self.event.run_url if self.event else None

    def publish(
        self,
        body: str,
        *,
        verdict: str,
        summary: str | None = None,
        results_path: Path | None = None,
        selected: Sequence[str] = (),
        create: bool = True,
        changed: bool = False,
        counts: Mapping[str, int] | None = None,
        gate_code: int | None = None,
        annotations: Sequence[Annotation] = (),
        conclusion: Conclusion | None = None,
    ) -> None:
        """Write comment.md, the job summary (`summary`, else `body`), the sticky comment (created
        only if `create` and the comment mode wants one for this `verdict` — `changed`: cases got
        worse or better than on the base; otherwise an existing one is brought up to date), the
        check run when asked for (its conclusion from `verdict` and `gate_code`, the gates' exit code
        of a finished run, unless `conclusion` is given; `annotations` on the failing cases) and
        every output (`counts`: cases passed, failed and errors; empty when no run finished)."""
        body = redact_text(body, self.secrets)
        comment_path = self.out_dir / "comment.md"
        comment_path.write_text(body, encoding="utf-8")
        if self.summary:
            self.outputs.summary(redact_text(summary, self.secrets) if summary is not None else body)
        posted = None
        if self.comment and self.event is not None and self.event.is_pull_request:
            create = create and creates_comment(self.comment_mode, verdict, changed)
            posted = post_comment(self.api, self.event, body, mark=self.mark, create=create)
        if self.check_run and self.event is not None:
            notes = [
                replace(a, message=redact_text(a.message, self.secrets), title=redact_text(a.title, self.secrets))
                for a in annotations
            ]
            post_check_run(
                self.api,
                self.event,
                body,
                name=self.check_name,
                mark=self.mark,
                annotations=notes,
                conclusion=conclusion or check_conclusion(verdict, gate_code),
            )
        self.outputs.set(
            verdict=verdict,
            results_path=self.outputs.show(results_path) if results_path else "",
            comment_path=self.outputs.show(comment_path),
            selected_suites="\n".join(selected),
            comment_id=str(posted.id) if posted and posted.id else "",
            comment_url=(posted.url or "") if posted else "",
            **{name: str(counts[name]) if counts is not None else "" for name in ("passed", "failed", "errors")},
        )
        self.published = True

    def unfinished(self, reason: str, *, cancelled: bool = False) -> None:
        """The evals started and did not finish: say so, verdict error (a previous one never stays);
        `cancelled`: the job was stopped, which the check run says as its conclusion."""
        if self.published:
            return
        self.publish(
            unfinished_body(reason, run_url=self.run_url, mark=self.mark),
            verdict="error",
            conclusion="cancelled" if cancelled else None,
        )

    def setup_error(self, error: EvalkitError) -> None:
        """The evals could not run: say why (each suite problem at its file:line), verdict error."""
        if self.published:
            return

        def where(problem: Problem) -> str:
            return relative(Path(problem.file), self.workspace) if problem.file else ""

        self.publish(setup_error_body(error, where=where, run_url=self.run_url, mark=self.mark), verdict="error")


def creates_comment(mode: str, verdict: str, changed: bool) -> bool:
    """Whether this run may create the sticky comment (an existing one is updated in every mode but off)."""
    if mode == "failures":
        return verdict in ("fail", "error")
    if mode == "changes":
        return changed or verdict in ("fail", "error")
    return mode == "always"
