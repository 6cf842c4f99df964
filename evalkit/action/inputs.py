"""The Action's inputs (action.yml) as the runner passes them (`INPUT_<NAME>`), checked."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from evalkit.action.credential import DEFAULT_AUDIENCE, Credential, Federation
from evalkit.action.discovery import parse_list
from evalkit.action.redact import passthrough
from evalkit.errors import UsageError
from evalkit.limits import DEFAULT_CONCURRENCY
from evalkit.llm.budget import max_cost_problem
from evalkit.run.sharding import parse_shard
from evalkit.suite.model import tag_selector
from evalkit.suite.spec import plain_tags


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
    comment_key: str = "default"
    on_missing_key: str | None = None  # "skip" | "fail"; None: skip on forks and Dependabot, else fail
    allow_fork_head: bool = False
    install: str | None = None
    batch: bool = False  # prompt-target, judge and extraction calls as Message Batches
    shard: str | None = None  # "I/N": this job runs that share of the cases and does not comment
    inconclusive: str | None = None  # fail | warn | pass; None: each suite's setting
    max_cost: float | None = None  # the run's budget in US dollars; None: the suites' max_cost:, if any
    merge: str = ""  # merge mode: the shards' results files (globs), merged into one report and comment
    compare_models: tuple[str, ...] = ()  # two or more: a model-against-model run
    tags: tuple[str, ...] = ()  # only cases with one of these tags (`--tag`); empty: every case
    comment_mode: str = "always"  # always | changes | failures | off (see COMMENT_MODES)
    summary: bool = True  # write the job summary
    working_directory: str = ""  # the project's folder, relative to the repository root ("": the root)
    env: tuple[str, ...] = ()  # variables (names, or PREFIX* patterns) user code gets beside the allow-list
    reuse_base: bool = True  # a default-branch push saves its results; a PR reuses its base commit's
    federation: Federation | None = None  # workload identity federation instead of anthropic_api_key
    check_run: bool = False  # also report the verdict as a check run (needs `checks: write`)
    history: bool = True  # the default branch records its runs in the kept history; a PR reads its flaky cases
    history_keep: int = 500  # runs the kept history keeps (the newest); older ones are pruned after a recording
    # What the parent holds for the API once resolved (the key, or a federated token); set by the entrypoint.
    credential: Credential | None = field(default=None, compare=False)

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

    def choice(name: str, allowed: tuple[str, ...]) -> str | None:
        raw = read_input(env, name).lower()
        if raw and raw not in allowed:
            problems.append(f"{name}: {raw!r} is not one of {', '.join(allowed)}")
        return raw or None

    raw_conc = read_input(env, "concurrency") or str(DEFAULT_CONCURRENCY)
    try:
        concurrency = int(raw_conc)
    except ValueError:
        concurrency = 0
    if not 1 <= concurrency <= 256:
        problems.append(f"concurrency: {raw_conc!r} is not a whole number from 1 to 256")
    raw_keep = read_input(env, "history_keep") or "500"
    try:
        history_keep = int(raw_keep)
    except ValueError:
        history_keep = 0
    if not 1 <= history_keep <= 100_000:
        problems.append(f"history_keep: {raw_keep!r} is not a whole number from 1 to 100000")
    names, env_problems = passthrough(env)
    problems += env_problems
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
        comment_key=comment_key(env),
        on_missing_key=choice("on_missing_key", ("skip", "fail")),
        allow_fork_head=boolean("allow_pull_request_target_fork", "false"),
        install=read_input(env, "install") or None,
        shard=_shard(read_input(env, "shard"), problems),
        batch=boolean("batch", "false"),
        merge=env.get("INPUT_MERGE", ""),
        inconclusive=choice("inconclusive", ("fail", "warn", "pass")),
        max_cost=_max_cost(read_input(env, "max_cost"), problems),
        compare_models=_models(read_input(env, "compare_models"), problems),
        tags=_tags(read_input(env, "tags"), problems),
        comment_mode=_comment_mode(env, problems),
        summary=boolean("summary", "true"),
        working_directory=_working_directory(read_input(env, "working_directory"), problems),
        env=tuple(names),
        reuse_base=boolean("reuse_base", "true"),
        federation=_federation(env, problems),
        check_run=boolean("check_run", "false"),
        history=boolean("history", "true"),
        history_keep=history_keep,
    )
    if inputs.federation and inputs.anthropic_api_key:
        problems.append("anthropic_api_key and anthropic_federation_rule_id: set one way to reach the API, not both")
    if inputs.compare_models and inputs.model:
        problems.append("model and compare_models: name the models to compare in compare_models only")
    if inputs.compare_models and (inputs.shard or inputs.merge.strip()):
        problems.append("compare_models cannot be sharded or merged: run the comparison in one job")
    if problems:
        raise UsageError("invalid input: " + "; ".join(problems))
    return inputs


def _federation(env: Mapping[str, str], problems: list[str]) -> Federation | None:
    """The federation inputs: the rule and the organisation together, or neither."""
    rule, org = read_input(env, "anthropic_federation_rule_id"), read_input(env, "anthropic_organization_id")
    extra = [n for n in ("anthropic_service_account_id", "anthropic_workspace_id") if read_input(env, n)]
    if not rule and not org:
        if extra:
            problems.append(
                f"{extra[0]} is a federation setting: set anthropic_federation_rule_id and "
                "anthropic_organization_id too"
            )
        return None
    if not rule or not org:
        missing = "anthropic_organization_id" if rule else "anthropic_federation_rule_id"
        problems.append(
            f"workload identity federation needs anthropic_federation_rule_id and "
            f"anthropic_organization_id: {missing} is empty"
        )
        return None
    audience = read_input(env, "oidc_audience") or DEFAULT_AUDIENCE
    return Federation(
        rule,
        org,
        read_input(env, "anthropic_service_account_id") or None,
        read_input(env, "anthropic_workspace_id") or None,
        audience,
    )


def _max_cost(raw: str, problems: list[str]) -> float | None:
    if not raw.strip():
        return None
    amount = max_cost_problem(raw)
    if isinstance(amount, str):
        problems.append(f"max_cost: {amount}")
        return None
    return amount


_KEY_CHARS = re.compile(r"[^A-Za-z0-9_.-]+")


def comment_key(env: Mapping[str, str]) -> str:
    """The `comment_key` input, else the workflow and job (`evals.yml.evals`), else "default"."""
    raw = read_input(env, "comment_key")
    if not raw:
        parts = [env.get("GITHUB_WORKFLOW", "").strip(), env.get("GITHUB_JOB", "").strip()]
        raw = ".".join(p for p in parts if p) or "default"
    return _KEY_CHARS.sub("-", raw).strip("-.")[:100] or "default"


# When the sticky comment is created. Whatever the mode, a comment that exists is always brought up
# to date (a red verdict never stays once the PR is fixed); "off" writes none.
COMMENT_MODES = {
    "always": "every run",
    "changes": "when a case got worse or better than on the base, or the verdict is not a pass",
    "failures": "when the verdict is fail or error",
    "off": "never (the job summary and the outputs still have the results)",
}


def comment_mode(env: Mapping[str, str]) -> str:
    """The `comment_mode` input read leniently (unknown: always), with `comment: false` as "off";
    for reporting before the inputs are checked."""
    mode = read_input(env, "comment_mode").lower()
    if not wants_comment(env):
        return "off"
    return mode if mode in COMMENT_MODES else "always"


def _comment_mode(env: Mapping[str, str], problems: list[str]) -> str:
    mode = read_input(env, "comment_mode").lower()
    if mode and mode not in COMMENT_MODES:
        problems.append(f"comment_mode: {mode!r} is not one of {', '.join(COMMENT_MODES)}")
    elif mode and mode != "off" and not wants_comment(env):
        problems.append(f"comment: false with comment_mode: {mode}: set one of them (comment_mode: off)")
    return comment_mode(env)


def wants_comment(env: Mapping[str, str]) -> bool:
    """The `comment` input read leniently, for reporting a setup error before inputs are checked."""
    return read_input(env, "comment", "true").lower() not in ("false", "no", "0", "off")


def wants_check_run(env: Mapping[str, str]) -> bool:
    """The `check_run` input read leniently (only a clear "true" creates one), for reporting before
    the inputs are checked."""
    return read_input(env, "check_run", "false").lower() in ("true", "yes", "1", "on")


def check_name(env: Mapping[str, str]) -> str:
    """The check run's name: "evalkit", or "evalkit: <comment_key>" when that input is set (one check
    per job or matrix leg, as one comment each)."""
    key = read_input(env, "comment_key")
    return f"evalkit: {comment_key(env)}" if key else "evalkit"


def _working_directory(raw: str, problems: list[str]) -> str:
    """A folder relative to the repository root, as a plain path ("" for the root itself)."""
    clean = posixpath.normpath(raw.replace("\\", "/")) if raw else ""
    if clean in ("", "."):
        return ""
    if clean.startswith("/") or clean == ".." or clean.startswith("../"):
        problems.append(f"working_directory: {raw!r} is not a folder inside the repository (a relative path, no `..`)")
        return ""
    return clean


def wants_summary(env: Mapping[str, str]) -> bool:
    """The `summary` input read leniently (anything but a clear "false": write it)."""
    return read_input(env, "summary", "true").lower() not in ("false", "no", "0", "off")


def _models(raw: str, problems: list[str]) -> tuple[str, ...]:
    models = tuple(dict.fromkeys(parse_list(raw)))
    if len(models) == 1:
        problems.append(f"compare_models: {models[0]!r} is one model; name two or more (to run one model, use model)")
    return models


def _tags(raw: str, problems: list[str]) -> tuple[str, ...]:
    tags = tuple(dict.fromkeys(parse_list(raw)))
    try:
        return tuple(plain_tags(list(tags)))
    except ValueError as exc:
        problems.append(f"tags: {exc}")
        return ()


def selectors(inputs: Inputs) -> list[str]:
    """The run's case selection for the worker (the `--tag` selectors; the Action has no `--case`)."""
    return [tag_selector(t) for t in inputs.tags]


def _shard(raw: str, problems: list[str]) -> str | None:
    if not raw:
        return None
    try:
        return str(parse_shard(raw))
    except UsageError:
        problems.append(f"shard: {raw!r} is not of the form I/N with 1 <= I <= N (e.g. 2/3)")
        return None
