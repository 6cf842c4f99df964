"""The Docker action's entrypoint (`python -m evalkit.action`): read the runner's environment,
pick the suites, run them through the engine, and report to GitHub. Orchestration only: each
step lives in a module of its own.

Exit codes: 0 gates passed (or nothing to run, or no key), 1 a gate failed and
`fail_on_gate` is true, 2 a bad input or suite file.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from pathlib import Path

from evalkit.action.discovery import RepoSuites, load_repo_suites, parse_list, select_named
from evalkit.action.inputs import Inputs, parse_inputs
from evalkit.action.publish import annotate_suite_error, log_report, post_comment
from evalkit.action.redact import redact, redact_file, scrub_environment
from evalkit.action.workspace import Outputs, give_to_workspace_owner, results_dir, template_path
from evalkit.engine import make_client, run_and_save
from evalkit.errors import EvalkitError, SuiteError, UsageError
from evalkit.gates import exit_code
from evalkit.github import commands
from evalkit.github.api import GitHubAPI
from evalkit.github.changes import ChangedFiles, changed_files, select_suites
from evalkit.github.event import Event, load_event
from evalkit.render.comment import no_key_body, nothing_affected_body, render_comment
from evalkit.render.junit import render_junit
from evalkit.report import Report
from evalkit.runner import RunOptions
from evalkit.suite.model import Suite

EXIT_USAGE = 2


def main(environ: Mapping[str, str] | None = None) -> int:
    env = dict(os.environ if environ is None else environ)
    # First of all: the key must be masked before anything can print it.
    for secret in (env.get("INPUT_ANTHROPIC_API_KEY", ""), env.get("INPUT_GITHUB_TOKEN", "")):
        if secret.strip():
            commands.mask(secret.strip())
    try:
        return _main(env)
    except SuiteError as exc:
        annotate_suite_error(exc, Path(env.get("GITHUB_WORKSPACE") or os.getcwd()))
        return EXIT_USAGE
    except EvalkitError as exc:
        commands.annotation("error", f"evalkit: {exc}", title="evalkit")
        return EXIT_USAGE


def _main(env: dict[str, str]) -> int:
    inputs = parse_inputs(env)
    workspace = Path(env.get("GITHUB_WORKSPACE") or os.getcwd()).resolve()
    out_dir = results_dir(env)
    event = load_event(env)
    outputs = Outputs(env, workspace)

    if not inputs.anthropic_api_key:
        commands.annotation("notice", "evalkit: anthropic_api_key is empty (fork or Dependabot pull requests "
                            "get no secrets): evaluations skipped", title="evalkit")
        body = no_key_body(event.name, is_fork=event.is_fork, run_url=event.run_url)
        comment_path = out_dir / "comment.md"
        comment_path.write_text(body, encoding="utf-8")
        outputs.summary(body)
        outputs.set(verdict="skipped", results_path="", comment_path=outputs.show(comment_path),
                    selected_suites="")
        return 0

    template = template_path(inputs.template, workspace)
    repo = _load_suites(workspace)
    api = _github(inputs, env)
    rels, note, changed = _select(inputs, event, repo, workspace, api)
    print(f"evalkit: {len(repo.refs)} suite(s) from {repo.source}; {note}")

    if not rels:
        return _nothing_affected(inputs, event, repo, changed, out_dir, outputs, api)

    print("evalkit: running " + ", ".join(rels))
    report = _run(inputs, repo.by_rel(rels), event, workspace, out_dir)
    results_path = out_dir / "results.json"
    (out_dir / "junit.xml").write_text(render_junit(report), encoding="utf-8")
    hint = f"`{outputs.show(out_dir)}`; upload it with actions/upload-artifact"
    body = render_comment(report, template=template, run_url=event.run_url, artifact_hint=hint)
    comment_path = out_dir / "comment.md"
    comment_path.write_text(body, encoding="utf-8")

    give_to_workspace_owner(out_dir, workspace)
    log_report(report, workspace)
    outputs.summary(body)
    if inputs.comment and event.is_pull_request:
        post_comment(api, event, body)
    outputs.set(verdict=report.verdict, results_path=outputs.show(results_path),
                comment_path=outputs.show(comment_path), selected_suites="\n".join(rels))
    code = exit_code(report.verdict)
    print(f"evalkit: verdict {report.verdict}; results in {outputs.show(out_dir)}")
    if code and not inputs.fail_on_gate:
        print("evalkit: a gate failed, but fail_on_gate is false: the step passes")
        return 0
    return code


def _load_suites(workspace: Path) -> RepoSuites:
    repo = load_repo_suites(workspace)
    if not repo.refs:
        raise UsageError(f"no suites found in {workspace}: add an evalkit.yml listing them, or name files "
                         "suite.yml / *.suite.yml (see evalkit/action/discovery.py)")
    return repo


def _select(inputs: Inputs, event: Event, repo: RepoSuites, workspace: Path,
            api: GitHubAPI | None) -> tuple[list[str], str, ChangedFiles | None]:
    """(relative suite files to run, why, changed files or None)."""
    entries = parse_list(inputs.suites)
    if not entries and event.name == "workflow_dispatch":
        # A workflow's own dispatch input named `suites` works without wiring it to the action.
        entries = parse_list(str(event.inputs.get("suites") or ""))
    if entries:
        return select_named(repo, entries), f"the suites input names {', '.join(entries)}", None
    if not event.is_pull_request and event.name != "push":
        return [r.rel for r in repo.refs], f"{event.name or 'manual'} run: every suite", None
    changed = changed_files(event, api, str(workspace))
    selected, reasons = select_suites(repo.watch_map(), changed)
    for rel, reason in reasons.items():
        print(f"  {rel}: {reason}")
    return selected, changed.reason, changed


def _github(inputs: Inputs, env: Mapping[str, str]) -> GitHubAPI | None:
    if not inputs.github_token:
        return None
    return GitHubAPI(inputs.github_token, env.get("GITHUB_API_URL") or None)


def _nothing_affected(inputs: Inputs, event: Event, repo: RepoSuites, changed: ChangedFiles | None,
                      out_dir: Path, outputs: Outputs, api: GitHubAPI | None) -> int:
    paths = changed.paths if changed is not None and changed.paths is not None else []
    body = nothing_affected_body(paths, changed.reason if changed else "", [r.rel for r in repo.refs],
                                 run_url=event.run_url)
    comment_path = out_dir / "comment.md"
    comment_path.write_text(body, encoding="utf-8")
    print(f"evalkit: no suite watches the {len(paths)} changed file(s): nothing to run")
    outputs.summary(body)
    if inputs.comment and event.is_pull_request:
        post_comment(api, event, body)
    outputs.set(verdict="skipped", results_path="", comment_path=outputs.show(comment_path), selected_suites="")
    return 0


def _run(inputs: Inputs, suites: list[Suite], event: Event, workspace: Path, out_dir: Path) -> Report:
    """Run and save; the results (and the JSONL of finished cases) never hold a secret."""
    # anthropic is imported only once a run is certain (a skipped run never pays for it).
    from evalkit.providers.anthropic import AnthropicProvider

    cache_dir = (workspace / inputs.cache_dir) if inputs.cache_dir else None
    jsonl = out_dir / "results.jsonl"
    if jsonl.exists():
        jsonl.unlink()
    options = RunOptions(model=inputs.model, judge_model=inputs.judge_model,
                         rubric_threshold=inputs.rubric_threshold,
                         agreement_threshold=inputs.agreement_threshold, jsonl_path=jsonl)
    # Targets run in this process: from here on they see only the allow-listed environment.
    scrub_environment()
    provider = AnthropicProvider(api_key=inputs.anthropic_api_key,
                                 max_connections=max(inputs.concurrency, 8))
    client = make_client(provider, concurrency=inputs.concurrency, cache_dir=cache_dir)
    secrets = [inputs.anthropic_api_key, inputs.github_token]

    def finish(report: Report) -> Report:
        # Belt and braces beside the mask: a target or model that echoes a secret does not get
        # it into the results, the comment, the summary or the log.
        return redact(report, secrets).model_copy(update={"run_url": event.run_url})

    report = run_and_save(suites, client, options, out_dir / "results.json", finish=finish)
    redact_file(jsonl, secrets)
    return report


if __name__ == "__main__":
    sys.exit(main())
