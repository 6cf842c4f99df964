"""The Docker action's entrypoint (`python -m evalkit.action`): read the runner's environment,
pick the suites, run them through the engine, and report to GitHub.

Exit codes: 0 gates passed (or nothing to run, or no key), 1 a gate failed and
`fail_on_gate` is true, 2 a bad input or suite file.
"""

from __future__ import annotations

import json
import os
import re
import sys
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from evalkit.errors import EvalkitError, SuiteError, UsageError

EXIT_USAGE = 2
CONTAINER_WORKSPACE = "/github/workspace"
CONTAINER_RUNNER_TEMP = "/github/runner_temp"
MAX_LOGGED_OUTPUT = 4000  # characters of each failing output shown in the log

# What target code (run in-process) may still see once the suites start.
_KEEP = frozenset({
    "PATH", "HOME", "LANG", "LANGUAGE", "TERM", "TZ", "TMPDIR", "TEMP", "TMP", "USER", "LOGNAME", "SHELL",
    "PWD", "HOSTNAME", "CI", "VIRTUAL_ENV", "XDG_CACHE_HOME", "XDG_CONFIG_HOME",
    "SSL_CERT_FILE", "SSL_CERT_DIR", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE",
    "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "no_proxy",
    "GITHUB_ACTIONS", "GITHUB_WORKSPACE", "GITHUB_REPOSITORY", "GITHUB_SHA", "GITHUB_REF",
    "GITHUB_EVENT_NAME", "GITHUB_SERVER_URL", "GITHUB_RUN_ID", "RUNNER_OS", "RUNNER_ARCH", "RUNNER_TEMP",
})
_KEEP_PREFIXES = ("LC_", "PYTHON", "ANTHROPIC_", "SYSTEM_AGENT_MODELS_", "EVALKIT_")
# Credentials never kept, whatever their prefix: the provider gets the key as an argument.
_DROP = frozenset({"ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"})


@dataclass(frozen=True)
class Inputs:
    """The action's inputs (action.yml), checked."""

    anthropic_api_key: str
    github_token: str
    suites: str
    model: str | None
    judge_model: str | None
    rubric_threshold: float
    agreement_threshold: float
    concurrency: int
    comment: bool
    fail_on_gate: bool
    template: str | None
    cache_dir: str | None

    def __repr__(self) -> str:  # never show the secrets
        return f"Inputs(suites={self.suites!r}, model={self.model!r}, judge_model={self.judge_model!r})"


def read_input(env: Mapping[str, str], name: str, default: str = "") -> str:
    """`INPUT_<NAME>` as the runner sets it (upper-cased, trimmed)."""
    return env.get(f"INPUT_{name.upper()}", default).strip()


def parse_inputs(env: Mapping[str, str]) -> Inputs:
    """Read and check every input; raise UsageError naming the input and what it accepts."""
    problems: list[str] = []

    def fraction(name: str, default: str) -> float:
        raw = read_input(env, name) or default
        try:
            value = float(raw)
        except ValueError:
            value = -1.0
        if not 0.0 <= value <= 1.0:
            problems.append(f"{name}: {raw!r} is not a number between 0 and 1 (e.g. 0.8)")
            return 0.0
        return value

    def boolean(name: str, default: str) -> bool:
        raw = (read_input(env, name) or default).lower()
        if raw in ("true", "yes", "1", "on"):
            return True
        if raw in ("false", "no", "0", "off"):
            return False
        problems.append(f"{name}: {raw!r} is not true or false")
        return False

    raw_conc = read_input(env, "concurrency") or "8"
    try:
        concurrency = int(raw_conc)
    except ValueError:
        concurrency = 0
    if not 1 <= concurrency <= 256:
        problems.append(f"concurrency: {raw_conc!r} is not a whole number from 1 to 256")
    inputs = Inputs(
        anthropic_api_key=read_input(env, "anthropic_api_key"),
        github_token=read_input(env, "github_token"),
        suites=env.get("INPUT_SUITES", ""),
        model=read_input(env, "model") or None,
        judge_model=read_input(env, "judge_model") or None,
        rubric_threshold=fraction("rubric_threshold", "0.8"),
        agreement_threshold=fraction("agreement_threshold", "0.8"),
        concurrency=concurrency,
        comment=boolean("comment", "true"),
        fail_on_gate=boolean("fail_on_gate", "true"),
        template=read_input(env, "template") or None,
        cache_dir=read_input(env, "cache_dir") or None,
    )
    if problems:
        raise UsageError("invalid input: " + "; ".join(problems))
    return inputs


def scrub_environment(environ: dict[str, str] | None = None) -> list[str]:
    """Remove everything but the allow-list from the environment (in place); return what went."""
    env = os.environ if environ is None else environ
    dropped = [k for k in list(env) if k in _DROP or not (k in _KEEP or k.startswith(_KEEP_PREFIXES))]
    for key in dropped:
        del env[key]
    return dropped


def results_dir(env: Mapping[str, str]) -> Path:
    """Where results go: `EVALKIT_RESULTS_DIR`, else `$RUNNER_TEMP/evalkit`, else a temp dir.

    Outside the workspace by default, so the container's root-owned files do not break later
    steps; `$RUNNER_TEMP` is the runner's temp dir (`${{ runner.temp }}` in later steps).
    """
    configured = env.get("EVALKIT_RESULTS_DIR") or (
        os.path.join(env["RUNNER_TEMP"], "evalkit") if env.get("RUNNER_TEMP") else None)
    if configured:
        path = Path(configured)
        try:
            path.mkdir(parents=True, exist_ok=True)
            return path
        except OSError:
            pass
    return Path(tempfile.mkdtemp(prefix="evalkit-"))


def main(environ: Mapping[str, str] | None = None) -> int:
    from evalkit.github import commands

    env = dict(os.environ if environ is None else environ)
    # First of all: the key must be masked before anything can print it.
    for secret in (env.get("INPUT_ANTHROPIC_API_KEY", ""), env.get("INPUT_GITHUB_TOKEN", "")):
        if secret.strip():
            commands.mask(secret.strip())
    try:
        return _main(env)
    except SuiteError as exc:
        _suite_error(exc, env)
        return EXIT_USAGE
    except EvalkitError as exc:
        commands.annotation("error", f"evalkit: {exc}", title="evalkit")
        return EXIT_USAGE


def _main(env: dict[str, str]) -> int:
    from evalkit.github import commands
    from evalkit.github.event import load_event

    inputs = parse_inputs(env)
    workspace = Path(env.get("GITHUB_WORKSPACE") or os.getcwd()).resolve()
    out_dir = results_dir(env)
    event = load_event(env)
    outputs = Outputs(env, workspace)

    if not inputs.anthropic_api_key:
        from evalkit.comment import no_key_body

        commands.annotation("notice", "evalkit: anthropic_api_key is empty (fork or Dependabot pull requests "
                            "get no secrets): evaluations skipped", title="evalkit")
        body = no_key_body(event.name, is_fork=event.is_fork, run_url=event.run_url)
        comment_path = out_dir / "comment.md"
        comment_path.write_text(body, encoding="utf-8")
        outputs.summary(body)
        outputs.set(verdict="skipped", results_path="", comment_path=outputs.show(comment_path),
                    selected_suites="")
        return 0

    template = _template(inputs.template, workspace)
    repo = _load_suites(workspace)
    rels, note, changed = _select(inputs, event, repo, workspace)
    print(f"evalkit: {len(repo.refs)} suite(s) from {repo.source}; {note}")
    api = _github(inputs, env)

    if not rels:
        return _nothing_affected(inputs, event, repo, changed, out_dir, outputs, api)

    suites = repo.by_rel(rels)
    print("evalkit: running " + ", ".join(rels))
    report = _run(inputs, suites, env, workspace, out_dir)
    # Belt and braces beside the mask: a target or model that echoes a secret does not get it
    # into the results, the comment, the summary or the log.
    report = redact(report, [inputs.anthropic_api_key, inputs.github_token])
    report = report.model_copy(update={"run_url": event.run_url})

    from evalkit.comment import render_comment
    from evalkit.gates import exit_code
    from evalkit.render import render_junit

    results_path = out_dir / "results.json"
    report.save(results_path)
    (out_dir / "junit.xml").write_text(render_junit(report), encoding="utf-8")
    _redact_file(out_dir / "results.jsonl", [inputs.anthropic_api_key, inputs.github_token])
    hint = f"`{outputs.show(out_dir)}`; upload it with actions/upload-artifact"
    body = render_comment(report, template=template, run_url=event.run_url, artifact_hint=hint)
    comment_path = out_dir / "comment.md"
    comment_path.write_text(body, encoding="utf-8")

    _give_to_workspace_owner(out_dir, workspace)
    _log_report(report, workspace)
    outputs.summary(body)
    if inputs.comment and event.is_pull_request:
        _post(api, event, body)
    outputs.set(verdict=report.verdict, results_path=outputs.show(results_path),
                comment_path=outputs.show(comment_path), selected_suites="\n".join(rels))
    code = exit_code(report.verdict)
    print(f"evalkit: verdict {report.verdict}; results in {outputs.show(out_dir)}")
    if code and not inputs.fail_on_gate:
        print("evalkit: a gate failed, but fail_on_gate is false: the step passes")
        return 0
    return code


class Outputs:
    """Step outputs and the job summary, with paths shown relative to the workspace when inside it."""

    def __init__(self, env: Mapping[str, str], workspace: Path):
        self.output_file = env.get("GITHUB_OUTPUT")
        self.summary_file = env.get("GITHUB_STEP_SUMMARY")
        self.workspace = workspace
        self.runner_temp = Path(env.get("RUNNER_TEMP") or "/nonexistent").resolve()

    def show(self, path: Path) -> str:
        """`path` as a later step on the runner can use it (they run outside the container)."""
        resolved = path.resolve()
        try:
            return resolved.relative_to(self.workspace).as_posix()
        except ValueError:
            pass
        if self.workspace == Path(CONTAINER_WORKSPACE) and self.runner_temp == Path(CONTAINER_RUNNER_TEMP):
            # Inside the action's container the runner mounts its temp dir (`_work/_temp`) at
            # /github/runner_temp and the workspace (`_work/<repo>/<repo>`) at /github/workspace:
            # relative to the workspace, the same file is ../../_temp/... on the runner too.
            try:
                return "../../_temp/" + resolved.relative_to(self.runner_temp).as_posix()
            except ValueError:
                pass
        return str(path)

    def set(self, **values: str) -> None:
        from evalkit.github.commands import set_output

        for name, value in values.items():
            if self.output_file:
                set_output(name, value, self.output_file)
            else:
                print(f"evalkit: output {name}={value}")

    def summary(self, markdown: str) -> None:
        from evalkit.github.commands import annotation, append_summary

        if not self.summary_file:
            return
        if append_summary(markdown, self.summary_file):
            annotation("warning", "evalkit: the job summary was cut at GitHub's 1 MiB limit", title="evalkit")


def redact(report, secrets: list[str]):
    """`report` with every secret replaced by `***` (the JSONL of finished cases too)."""
    from evalkit.report import Report

    secrets = [x for x in secrets if len(x) >= 8]
    text = report.model_dump_json()
    hits = [x for x in secrets if x in text or json.dumps(x)[1:-1] in text]
    if not hits:
        return report
    for secret in hits:
        text = text.replace(json.dumps(secret)[1:-1], "***").replace(secret, "***")
    return Report.model_validate_json(text)


def _redact_file(path: Path, secrets: list[str]) -> None:
    if not path.is_file():
        return
    text = path.read_text(encoding="utf-8", errors="replace")
    for secret in (x for x in secrets if len(x) >= 8):
        text = text.replace(json.dumps(secret)[1:-1], "***").replace(secret, "***")
    path.write_text(text, encoding="utf-8")


def _give_to_workspace_owner(out_dir: Path, workspace: Path) -> None:
    """Results written into the workspace belong to its owner, not to the container's root."""
    try:
        out_dir.resolve().relative_to(workspace)
    except ValueError:
        return
    owner = workspace.stat()
    for path in [out_dir, *out_dir.rglob("*")]:
        try:
            os.chown(path, owner.st_uid, owner.st_gid)
        except OSError:
            return


def _template(name: str | None, workspace: Path) -> Path | None:
    if not name:
        return None
    path = (workspace / name).resolve()
    if not path.is_file():
        raise UsageError(f"template: {name!r} is not a file in the repository")
    return path


def _load_suites(workspace: Path):
    from evalkit.discovery import load_repo_suites

    repo = load_repo_suites(workspace)
    if not repo.refs:
        raise UsageError(f"no suites found in {workspace}: add an evalkit.yml listing them, or name files "
                         "suite.yml / *.suite.yml (see evalkit/discovery.py)")
    return repo


def _select(inputs: Inputs, event, repo, workspace: Path):
    """(relative suite files to run, why, changed files or None)."""
    from evalkit.discovery import parse_list, select_named
    from evalkit.github.changes import changed_files, select_suites

    entries = parse_list(inputs.suites)
    if not entries and event.name == "workflow_dispatch":
        # A workflow's own dispatch input named `suites` works without wiring it to the action.
        entries = parse_list(str(event.inputs.get("suites") or ""))
    if entries:
        return select_named(repo, entries), f"the suites input names {', '.join(entries)}", None
    if not event.is_pull_request and event.name != "push":
        return [r.rel for r in repo.refs], f"{event.name or 'manual'} run: every suite", None
    api = _github(inputs, os.environ)
    changed = changed_files(event, api, str(workspace))
    selected, reasons = select_suites(repo.watch_map(), changed)
    for rel, reason in reasons.items():
        print(f"  {rel}: {reason}")
    return selected, changed.reason, changed


def _github(inputs: Inputs, env: Mapping[str, str]):
    from evalkit.github.api import GitHubAPI

    if not inputs.github_token:
        return None
    return GitHubAPI(inputs.github_token, env.get("GITHUB_API_URL") or None)


def _nothing_affected(inputs, event, repo, changed, out_dir: Path, outputs: Outputs, api) -> int:
    from evalkit.comment import nothing_affected_body

    paths = changed.paths if changed is not None and changed.paths is not None else []
    body = nothing_affected_body(paths, changed.reason if changed else "", [r.rel for r in repo.refs],
                                 run_url=event.run_url)
    comment_path = out_dir / "comment.md"
    comment_path.write_text(body, encoding="utf-8")
    print(f"evalkit: no suite watches the {len(paths)} changed file(s): nothing to run")
    outputs.summary(body)
    if inputs.comment and event.is_pull_request:
        _post(api, event, body)
    outputs.set(verdict="skipped", results_path="", comment_path=outputs.show(comment_path), selected_suites="")
    return 0


def _run(inputs: Inputs, suites, env: Mapping[str, str], workspace: Path, out_dir: Path):
    from evalkit.engine import make_client
    from evalkit.engine import run as run_engine
    from evalkit.providers.anthropic import AnthropicProvider
    from evalkit.runner import RunOptions

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
    return run_engine(suites, client, options)


def _log_report(report, workspace: Path) -> None:
    """A `::group::` per suite (model text only inside stop-commands), then an annotation per failure."""
    from evalkit.github import commands

    for suite in report.suites:
        title = f"{suite.verdict.upper()} {suite.name}: {suite.count('pass')} passed, {suite.count('fail')} failed, "\
                f"{suite.count('error')} errors"
        with commands.group(title):
            lines = []
            if suite.error:
                lines.append(f"suite error: {suite.error}")
            for case in suite.cases:
                lines.append(f"{case.verdict.upper():7} {case.id}" + (f"  ({'; '.join(case.reasons)})"
                                                                      if case.reasons else ""))
                if case.verdict in ("fail", "error"):
                    for repeat, item in case.failing_items():
                        lines.append(f"    [run {repeat + 1}] {item.id} {item.status}: {item.reason}")
                    for run in case.runs:
                        lines += [f"    [run {run.repeat + 1}] {e}" for e in run.run_errors()]
                        if run.output:
                            lines.append(f"    --- output of run {run.repeat + 1} ---")
                            lines.append(run.output[:MAX_LOGGED_OUTPUT])
            commands.print_untrusted("\n".join(lines))
    for suite in report.suites:
        for case in suite.cases:
            if case.verdict not in ("fail", "error"):
                continue
            file = _relative(case.file or suite.path, workspace)
            commands.annotation("error", f"{case.id}: {'; '.join(case.reasons) or case.verdict}"[:1000],
                                file=file, line=case.line, title=f"evalkit {suite.name}: {case.id} {case.verdict}")
    for warning in report.warnings:
        commands.annotation("warning", f"evalkit: {warning}", title="evalkit")
    u = report.usage
    print(f"evalkit: {u.calls} model calls, {u.cache_hits} cache hits, "
          f"{u.input_tokens + u.output_tokens:,} tokens, ${u.cost_usd:.4f}, {report.wall_seconds:.1f} s")


def _relative(path: str | Path, workspace: Path) -> str:
    from evalkit.discovery import relative

    return relative(Path(path), workspace)


def _post(api, event, body: str) -> None:
    from evalkit.github import commands
    from evalkit.github.comment import upsert_comment

    if api is None:
        commands.annotation("warning", "evalkit: no github_token: the results are in the job summary only",
                            title="evalkit")
        return
    result = upsert_comment(api, event.owner, event.repo, event.pr_number, body)
    if result.action == "fallback":
        commands.annotation("warning", f"evalkit: {result.reason}; the results are in the job summary",
                            title="evalkit")
    else:
        print(f"evalkit: {result.action} the PR comment {result.url or ''}".rstrip())


def _suite_error(exc: SuiteError, env: Mapping[str, str]) -> None:
    from evalkit.github import commands

    workspace = Path(env.get("GITHUB_WORKSPACE") or os.getcwd())
    commands.annotation("error", f"evalkit: {exc}", title="evalkit: suite files")
    for problem in exc.problems:
        first, *details = str(problem).split("\n")
        path = first.split(":", 1)[0]
        if not path or not Path(path).is_file():
            continue
        file = _relative(path, workspace)
        for detail in details or [first]:
            found = re.search(r"\bline (\d+)", detail)
            commands.annotation("error", detail.strip(), file=file, line=int(found.group(1)) if found else None,
                                title="evalkit: suite file")


if __name__ == "__main__":
    sys.exit(main())
