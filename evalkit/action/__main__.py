"""The Docker action's entrypoint (`python -m evalkit.action`): read the runner's environment,
pick the suites, run them through the engine, and report to GitHub. Orchestration only: each
step lives in a module of its own.

Exit codes: 0 gates passed (or nothing to run, or no key where that means skip), 1 a gate
failed and `fail_on_gate` is true, 2 the evals could not run or did not finish (a bad input or
suite file, a missing key where one was expected, a refused fork, user code that ended the
worker), 3 an internal error of evalkit, 130/143 stopped by SIGINT/SIGTERM (a cancelled job).
Every exit publishes the comment, the summary and the outputs (evalkit/action/outcome.py): a run
that ends without a verdict says "the run did not finish", never leaving a previous verdict.
"""

from __future__ import annotations

import os
import sys
import traceback
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path

from evalkit._runtime.signals import Terminated
from evalkit.action.baseline import BaseResult, Settings, base_ref, compare_with_base
from evalkit.action.credential import NO_OIDC, ApiKey, Credential, federated
from evalkit.action.discovery import parse_list, read_watch_map
from evalkit.action.evaluate import ModelRuns, RepoIndex, evaluate, index_suites
from evalkit.action.guard import fork_head_refusal, missing_key_action
from evalkit.action.inputs import Inputs, parse_inputs
from evalkit.action.install import prepare_python
from evalkit.action.kept_history import (
    ARTIFACT,
    FILE,
    ReadHistory,
    past_of_recorded,
    read_default_branch_history,
    record_default_branch_run,
)
from evalkit.action.outcome import Outcome
from evalkit.action.proxy import DEFAULT_UPSTREAM
from evalkit.action.publish import annotate_suite_error, check_annotation, failures, log_report
from evalkit.action.redact import passthrough_note, redact_text, secret_names, secret_values
from evalkit.action.sandbox import Unfinished, harden_process
from evalkit.action.saved_base import artifact_name, is_default_branch_push, run_options, save, suite_keys
from evalkit.action.shard_base import merged_comparison, save_shard_base
from evalkit.action.sharded import merge_shards
from evalkit.action.workspace import give_to_workspace_owner, template_path
from evalkit.compare import compare_reports
from evalkit.compare.model_vs_model import compare_models
from evalkit.engine.per_model_runs import model_path
from evalkit.errors import EvalkitError, RefusedRequest, SuiteError, UsageError, safe_str
from evalkit.exit_codes import ExitCode
from evalkit.github import commands
from evalkit.github.api import GitHubAPI
from evalkit.github.changes import ChangedFiles, changed_files, select_suites
from evalkit.github.event import Event
from evalkit.history import ReportPast
from evalkit.render.comment import (
    SUMMARY_CHARS,
    no_key_body,
    nothing_affected_body,
    render_comment,
    render_models_comment,
)
from evalkit.render.html import render_html
from evalkit.render.junit import render_junit
from evalkit.results.gates import exit_code
from evalkit.results.report import Report, Verdict

SUMMARY_CAP = 20_000  # characters of one reason in the job summary (the comment: MAX_QUOTED_CHARS)


def main(environ: Mapping[str, str] | None = None) -> int:
    env = dict(os.environ if environ is None else environ)
    # First of all: every secret must be masked before anything can print it.
    secrets = secret_values(env)
    for secret in secrets:
        commands.mask(secret)
    if environ is None:  # the real entrypoint: nothing of this process may keep them in reach
        harden_process(secrets, secret_names(env))
    outcome = Outcome.from_env(env, secrets)
    if environ is None:
        _stop_on_sigterm()
    try:
        return _main(env, outcome)
    except SuiteError as exc:
        annotate_suite_error(exc, outcome.workspace)
        outcome.setup_error(exc)
        return ExitCode.USAGE
    except Unfinished as exc:
        commands.annotation("error", f"evalkit: the run did not finish: {exc}", title="evalkit")
        outcome.unfinished(str(exc))
        return ExitCode.INTERNAL if exc.internal else ExitCode.USAGE
    except RefusedRequest as exc:  # evalkit's own request shape (a run in this process): its fault
        commands.annotation("error", f"evalkit: the run did not finish: {exc}", title="evalkit")
        outcome.unfinished(str(exc))
        return ExitCode.INTERNAL
    except EvalkitError as exc:
        commands.annotation("error", f"evalkit: {exc}", title="evalkit")
        outcome.setup_error(exc)
        return ExitCode.USAGE
    except KeyboardInterrupt as exc:  # the job was cancelled (SIGTERM) or interrupted
        cancelled = isinstance(exc, Terminated)
        print(f"evalkit: stopped by {'SIGTERM' if cancelled else 'SIGINT'}", flush=True)
        outcome.unfinished(
            f"the job was stopped ({'SIGTERM: cancelled' if cancelled else 'SIGINT'}) before the run finished",
            cancelled=True,
        )
        return ExitCode.SIGTERM if cancelled else ExitCode.SIGINT
    except SystemExit:
        raise
    except BaseException as exc:  # evalkit's own bug: the log has the traceback, the comment the fact
        try:
            traceback.print_exc()
        except Exception:  # noqa: BLE001 - an exception whose str() raises
            pass
        reason = f"an internal error of evalkit: {type(exc).__name__}: {redact_text(safe_str(exc), secrets)}"
        commands.annotation("error", f"evalkit: the run did not finish: {reason}", title="evalkit")
        outcome.unfinished(reason)
        return ExitCode.INTERNAL


def _stop_on_sigterm() -> None:
    """SIGTERM (a cancelled job) stops the entrypoint as Ctrl-C does, so it can say so."""
    import signal

    def stop(signum: int, frame: object) -> None:
        raise Terminated()

    signal.signal(signal.SIGTERM, stop)


def _main(env: dict[str, str], outcome: Outcome) -> int:
    inputs = parse_inputs(env)
    if inputs.env:
        print(passthrough_note(inputs.env, env))
    settings = Settings.from_env(env)
    if inputs.shard:  # one shard's results are partial: the final `merge` job posts the comment and check
        outcome.comment = outcome.check_run = False
    workspace = outcome.workspace
    out_dir = outcome.out_dir
    event = outcome.event
    if event is None:  # unreadable: load it again to raise the reason
        from evalkit.github.event import load_event

        event = load_event(env)

    refusal = fork_head_refusal(event, workspace, inputs.allow_fork_head)
    if refusal:
        raise UsageError(refusal)

    if inputs.merge:  # merge mode: joins the shards' results, calls no model, needs no key
        report, files = merge_shards(inputs.merge, workspace, out_dir)
        print(f"evalkit: merged {len(files)} shard results: " + ", ".join(outcome.outputs.show(f) for f in files))
        read = _read_history(inputs, settings, event, outcome, report)
        base = merged_comparison(
            settings, event, workspace, files, report, inputs=inputs, out_dir=out_dir, flaky=read.flaky
        )
        past = _keep_history(inputs, event, outcome, report)  # the merged run is the default branch's run
        return _publish(
            report,
            inputs,
            event,
            outcome,
            template_path(inputs.template, workspace),
            rels=[s.path for s in report.suites],
            base=base,
            past=past or read.past,
        )

    no_oidc = inputs.federation is not None and not env.get("ACTIONS_ID_TOKEN_REQUEST_URL")
    if (not inputs.anthropic_api_key and inputs.federation is None) or no_oidc:
        action = missing_key_action(inputs.on_missing_key, event, env)
        level = "error" if action == "fail" else "notice"
        what = NO_OIDC if no_oidc else "anthropic_api_key is empty (fork and Dependabot pull requests get no secrets)"
        commands.annotation(
            level, f"evalkit: {what}: evaluations {'could not run' if action == 'fail' else 'skipped'}", title="evalkit"
        )
        body = no_key_body(
            event.name,
            is_fork=event.is_fork,
            run_url=event.run_url,
            mark=outcome.mark,
            failed=action == "fail",
            federation=no_oidc,
        )
        # A skip only brings an existing comment up to date: fork PRs cannot comment anyway.
        outcome.publish(body, verdict="error" if action == "fail" else "skipped", create=action == "fail")
        return ExitCode.USAGE if action == "fail" else ExitCode.PASSED
    inputs = replace(inputs, credential=_credential(inputs, env))

    project = _project(workspace, inputs.working_directory)
    template = template_path(inputs.template, project)
    entries = _entries(inputs, event)
    api = outcome.api
    early: ChangedFiles | None = None
    if inputs.install and not entries and (event.is_pull_request or event.name == "push"):
        # Installing runs the team's code and takes minutes: not when no suite is affected, which the
        # suite files' YAML says without loading them (any doubt installs and goes on as before).
        watch = read_watch_map(workspace, project)
        if watch is not None:
            early = changed_files(event, api, str(workspace))
            if not select_suites(watch, early)[0]:
                print(f"evalkit: {len(watch)} suite file(s); {early.reason}; `install` skipped")
                return _nothing_affected(event, list(watch), early, outcome)
    python = prepare_python(inputs.install, project, env, outcome.secrets)
    repo = _load_suites(workspace, entries, env, outcome.secrets, python, project=project)
    rels, note, changed = _select(entries, event, repo, workspace, api, changed=early)
    print(f"evalkit: {len(repo.refs)} suite(s) from {repo.source}; {note}")

    if not rels:
        return _nothing_affected(event, [r.rel for r in repo.refs], changed, outcome)

    print(
        "evalkit: running "
        + ", ".join(rels)
        + (f" (shard {inputs.shard})" if inputs.shard else "")
        + (f" (cases tagged {', '.join(inputs.tags)})" if inputs.tags else "")
    )
    report, runs = evaluate(
        inputs, repo, rels, out_dir=out_dir, env=env, secrets=outcome.secrets, run_url=event.run_url, python=python
    )
    if runs:  # the model is the changed variable here, not the commit: no base run
        print(
            "evalkit: model against model (" + " vs ".join(m for m, _ in runs) + "): no comparison with the "
            "base branch in this run"
        )
        return _publish(report, inputs, event, outcome, template, rels=rels, models=runs)
    if inputs.shard:  # a shard's results are partial: it runs its share on the base, the merge job compares
        save_shard_base(
            settings, event, workspace, rels, inputs, out_dir=out_dir, secrets=outcome.secrets, env=env, python=python
        )
        return _publish(report, inputs, event, outcome, template, rels=rels)
    read = _read_history(inputs, settings, event, outcome, report)
    base = compare_with_base(
        settings,
        event,
        workspace,
        rels,
        report,
        inputs=inputs,
        out_dir=out_dir,
        secrets=outcome.secrets,
        env=env,
        python=python,
        api=api,
        watch=repo.watch_map(),
        flaky=read.flaky,
    )
    if inputs.reuse_base and is_default_branch_push(event):
        _save_for_pull_requests(repo, rels, inputs, outcome)
    past = _keep_history(inputs, event, outcome, report) or read.past
    return _publish(report, inputs, event, outcome, template, rels=rels, base=base, past=past)


def _read_history(inputs: Inputs, settings: Settings, event: Event, outcome: Outcome, report: Report) -> ReadHistory:
    """On a run compared with its base (not a default-branch push): the cases flaky on the default
    branch and its last runs for the charts, read from its history; a pull request never writes it."""
    asked = inputs.history and base_ref(settings, event)[0] is not None and not is_default_branch_push(event)
    return read_default_branch_history(outcome.api, event, report) if asked else ReadHistory()


def _keep_history(inputs: Inputs, event: Event, outcome: Outcome, report: Report) -> ReportPast | None:
    """On a push to the default branch: this run recorded in the history, named as an output to upload;
    the branch's last runs with it, for the charts (None when not recorded)."""
    if not (inputs.history and is_default_branch_push(event)):
        return None
    kept = record_default_branch_run(
        outcome.api, event, outcome.out_dir / "results.json", outcome.out_dir, None, keep=inputs.history_keep
    )
    if kept is None:
        return None
    outcome.outputs.set(history_artifact=ARTIFACT, history_artifact_path=outcome.outputs.show(kept))
    return past_of_recorded(kept / FILE, report, event)


def _credential(inputs: Inputs, env: Mapping[str, str]) -> Credential:
    """The key, or a federated access token (exchanged now, so a setup mistake stops the run here)."""
    if inputs.federation is None:
        return ApiKey(inputs.anthropic_api_key)
    credential = federated(inputs.federation, env, env.get("ANTHROPIC_BASE_URL") or DEFAULT_UPSTREAM)
    print(
        f"evalkit: the API is reached with a short-lived token from workload identity federation "
        f"(rule {inputs.federation.rule_id}); no stored key"
    )
    return credential


def _save_for_pull_requests(repo: RepoIndex, rels: list[str], inputs: Inputs, outcome: Outcome) -> None:
    """A default-branch run leaves its results for pull requests based on this commit: the folder
    and the artifact name as outputs, for the workflow's upload-artifact step."""
    from evalkit.engine.base_ref import Git

    try:
        git = Git.of(outcome.workspace, safe=True)
    except UsageError:
        print("evalkit: not a git checkout: no results saved for pull requests")
        return
    commit = git.commit("HEAD")
    if commit is None:
        return
    keys = suite_keys(git, commit, {r: repo.watch_map().get(r, []) for r in rels}, run_options(inputs))
    folder = save(outcome.out_dir, outcome.out_dir / "results.json", outcome.workspace, keys, commit)
    outcome.outputs.set(base_artifact=artifact_name(commit), base_artifact_path=outcome.outputs.show(folder))
    print(
        f"evalkit: results saved for pull requests based on {commit[:12]}: upload {outcome.outputs.show(folder)} "
        f"as artifact {artifact_name(commit)}"
    )


def _publish(
    report: Report,
    inputs: Inputs,
    event: Event,
    outcome: Outcome,
    template: Path | None,
    *,
    rels: list[str],
    base: BaseResult = BaseResult(),
    models: ModelRuns | None = None,
    past: ReportPast | None = None,
) -> int:
    """JUnit, comment, summary, log and outputs of a finished (or merged) run, or of a
    model-against-model run (`models`: each model's Report; any model's failed gate fails); the exit code.
    `past`: the default branch's last runs, for the HTML report's charts."""
    workspace, out_dir = outcome.workspace, outcome.out_dir
    if inputs.shard:
        print(f"evalkit: shard {inputs.shard}: no comment from this job; a final job with `merge` posts it")
    results_path = out_dir / "results.json"
    (out_dir / "junit.xml").write_text(render_junit(report), encoding="utf-8")
    html_path = out_dir / "report.html"
    hint = f"`{outcome.outputs.show(out_dir)}`; upload it with actions/upload-artifact"
    if models:
        mc, (first, first_report), (last, report) = compare_models(list(models)), models[0], models[-1]
        html = render_html(
            report,
            base=first_report,
            comparison=compare_reports(first_report, report, base_label=first, head_label=last),
        )
        bodies = [
            render_models_comment(
                models,
                mc,
                template=template,
                run_url=event.run_url,
                artifact_hint=hint,
                mark=outcome.mark,
                html_report=html_path.name,
                **room,
            )
            for room in ({}, {"limit": SUMMARY_CHARS, "cap": SUMMARY_CAP})
        ]
        report = max((r for _, r in models), key=lambda r: exit_code(r.verdict))  # the worst decides
    else:
        html = render_html(report, comparison=base.comparison, base=base.report, past=past)
        lead = base.lead(exit_code(report.verdict), head=report)
        bodies = [
            render_comment(
                report,
                template=template,
                run_url=event.run_url,
                artifact_hint=hint,
                mark=outcome.mark,
                html_report=html_path.name,
                lead=lead,
                detailed=base.detailed(),
                **room,
            )
            for room in ({}, {"limit": SUMMARY_CHARS, "cap": SUMMARY_CAP})
        ]
    html_path.write_text(redact_text(html, outcome.secrets), encoding="utf-8")
    body, summary = bodies

    annotations = []
    for model, each in models or [("", report)]:
        if model:
            print(f"evalkit: model {model}:")
            (out_dir / model_path(Path("junit.xml"), model)).write_text(render_junit(each), encoding="utf-8")
        log_report(each, workspace)
        annotations += [check_annotation(f) for f in failures(each, workspace, model)]
    changed = bool(base.comparison and (base.comparison.regressed or base.comparison.fixed))
    code = base.exit_code(exit_code(report.verdict))
    outcome.publish(
        body,
        summary=summary,
        verdict=report.verdict,
        results_path=results_path,
        selected=rels,
        changed=changed,
        counts=case_counts(report),
        gate_code=code,
        annotations=annotations,
    )
    outcome.outputs.set(
        html_path=outcome.outputs.show(html_path),
        jsonl_path=outcome.outputs.show(out_dir / "results.jsonl"),
        **base.outputs(),
    )
    give_to_workspace_owner(out_dir, workspace)
    print(f"evalkit: verdict {report.verdict}; results in {outcome.outputs.show(out_dir)}")
    if code and not inputs.fail_on_gate:
        print("evalkit: a gate failed, but fail_on_gate is false: the step passes")
        return ExitCode.PASSED
    return code


def case_counts(report: Report) -> dict[str, int]:
    """The `passed`, `failed` and `errors` outputs: cases by verdict (inconclusive and skipped in none)."""
    kinds: tuple[tuple[str, Verdict], ...] = (("passed", "pass"), ("failed", "fail"), ("errors", "error"))
    return {name: sum(suite.count(verdict) for suite in report.suites) for name, verdict in kinds}


def _project(workspace: Path, working_directory: str) -> Path:
    """The `working_directory` input as a folder of the checkout (the workspace itself when empty)."""
    project = (workspace / working_directory).resolve()
    if not project.is_dir() or not project.is_relative_to(workspace.resolve()):
        raise UsageError(f"working_directory: {working_directory!r} is not a folder of the checkout")
    return project


def _load_suites(
    workspace: Path,
    entries: list[str],
    env: Mapping[str, str],
    secrets: Sequence[str],
    python: str | None,
    *,
    project: Path | None = None,
) -> RepoIndex:
    # Loading imports suite plugins (user code): the worker does it, without secrets.
    repo = index_suites(workspace, entries, env=env, secrets=secrets, python=python, project=project)
    if not repo.refs:
        raise UsageError(
            f"no suites found in {project or workspace}: add an evalkit.yml listing them, or name files "
            "suite.yml / *.suite.yml (see evalkit/action/discovery.py)"
        )
    return repo


def _entries(inputs: Inputs, event: Event) -> list[str]:
    entries = parse_list(inputs.suites)
    if not entries and event.name == "workflow_dispatch":
        # A workflow's own dispatch input named `suites` works without wiring it to the action.
        entries = parse_list(str(event.inputs.get("suites") or ""))
    return entries


def _select(
    entries: list[str],
    event: Event,
    repo: RepoIndex,
    workspace: Path,
    api: GitHubAPI | None,
    *,
    changed: ChangedFiles | None = None,
) -> tuple[list[str], str, ChangedFiles | None]:
    """(relative suite files to run, why, changed files or None); `changed`: already listed."""
    if entries:
        return list(repo.selected or []), f"the suites input names {', '.join(entries)}", None
    if not event.is_pull_request and event.name != "push":
        return [r.rel for r in repo.refs], f"{event.name or 'manual'} run: every suite", None
    changed = changed if changed is not None else changed_files(event, api, str(workspace))
    selected, reasons = select_suites(repo.watch_map(), changed)
    for rel, reason in reasons.items():
        print(f"  {rel}: {reason}")
    return selected, changed.reason, changed


def _nothing_affected(event: Event, suites: list[str], changed: ChangedFiles | None, outcome: Outcome) -> int:
    paths = changed.paths if changed is not None and changed.paths is not None else []
    body = nothing_affected_body(
        paths, changed.reason if changed else "", suites, run_url=event.run_url, mark=outcome.mark
    )
    print(f"evalkit: no suite watches the {len(paths)} changed file(s): nothing to run")
    outcome.publish(body, verdict="skipped")
    return ExitCode.PASSED


if __name__ == "__main__":
    sys.exit(main())
