"""Keeping secrets out of target code and out of everything the Action writes: the environment
allow-list the worker gets (evalkit/action/sandbox.py), the secret-like values to mask, and
redaction of reports and files (the secret-like values and text redaction: evalkit/_runtime/redaction.py,
shared with the CLI; the Action replaces with `***`, as GitHub's mask does)."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from pathlib import Path

from evalkit._runtime.redaction import MIN_SECRET_CHARS, redact_text, secret_names, secret_values
from evalkit.results.report import Report

__all__ = [
    "MIN_SECRET_CHARS",
    "allowed_environment",
    "passthrough",
    "passthrough_note",
    "redact",
    "redact_file",
    "redact_text",
    "holding_secret",
    "scrub_environment",
    "secret_names",
    "secret_values",
]

# What code under evaluation (in the worker) may see of the runner's environment.
_KEEP = frozenset(
    {
        "PATH",
        "HOME",
        "LANG",
        "LANGUAGE",
        "TERM",
        "TZ",
        "TMPDIR",
        "TEMP",
        "TMP",
        "USER",
        "LOGNAME",
        "SHELL",
        "PWD",
        "HOSTNAME",
        "CI",
        "VIRTUAL_ENV",
        "XDG_CACHE_HOME",
        "XDG_CONFIG_HOME",
        "SSL_CERT_FILE",
        "SSL_CERT_DIR",
        "REQUESTS_CA_BUNDLE",
        "CURL_CA_BUNDLE",
        "HTTP_PROXY",
        "HTTPS_PROXY",
        "NO_PROXY",
        "http_proxy",
        "https_proxy",
        "no_proxy",
        "GITHUB_ACTIONS",
        "GITHUB_WORKSPACE",
        "GITHUB_REPOSITORY",
        "GITHUB_SHA",
        "GITHUB_REF",
        "GITHUB_EVENT_NAME",
        "GITHUB_SERVER_URL",
        "GITHUB_RUN_ID",
        "RUNNER_OS",
        "RUNNER_ARCH",
        "RUNNER_TEMP",
    }
)
_KEEP_PREFIXES = ("LC_", "PYTHON", "ANTHROPIC_", "SYSTEM_AGENT_MODELS_", "EVALKIT_")
# Credentials never kept, whatever their prefix: the provider gets the key as an argument.
_DROP = frozenset({"ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"})


# Never passed, whatever the `env` input names: the credentials, and the runner's own channels.
_NEVER = _DROP | {
    "GITHUB_TOKEN",
    "GITHUB_OUTPUT",
    "GITHUB_ENV",
    "GITHUB_PATH",
    "GITHUB_STATE",
    "GITHUB_STEP_SUMMARY",
    "GITHUB_EVENT_PATH",
}
_NEVER_PREFIXES = ("INPUT_", "ACTIONS_")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\*?")


def _kept(name: str) -> bool:
    return name not in _DROP and (name in _KEEP or name.startswith(_KEEP_PREFIXES))


def _never(name: str) -> bool:
    return name in _NEVER or name.startswith(_NEVER_PREFIXES)


def passthrough(env: Mapping[str, str]) -> tuple[list[str], list[str]]:
    """The `env` input (INPUT_ENV): the names, or `PREFIX*` patterns, of the variables the team's
    code gets beside the allow-list; and the problems of the input (one line each)."""
    names: list[str] = []
    problems: list[str] = []
    secret_like = set(secret_names(env))
    holding = holding_secret(env)
    for entry in dict.fromkeys(re.split(r"[\s,]+", env.get("INPUT_ENV", "").strip())):
        if not entry:
            continue
        if not _NAME.fullmatch(entry):
            problems.append(f"env: {entry!r} is not a variable name (letters, digits and _; a trailing * for a prefix)")
        elif _never(entry.rstrip("*")) and not entry.endswith("*"):
            problems.append(
                f"env: {entry} is never passed to user code (the key reaches the model through "
                "evalkit's proxy; the GitHub token and the runner's own variables stay with evalkit)"
            )
        elif entry in secret_like:
            problems.append(
                f"env: {entry} holds a secret (by its name or its value), and the worker that runs your "
                "code holds none: pass a test value under a name that is not *_TOKEN, *_KEY, *_SECRET "
                "or a password"
            )
        elif embedded := sorted(n for n in holding if _passed(n, [entry]) and n not in secret_like):
            problems.append(
                f"env: {', '.join(embedded)} holds a secret inside its value (the API key, a token "
                "or another *_KEY / *_SECRET value of this step), and the worker that runs your "
                "code holds none: pass a value without it"
            )
        else:
            names.append(entry)
    return names, problems


def holding_secret(env: Mapping[str, str]) -> list[str]:
    """The names of the variables of `env` whose value holds a secret-like value of `env` (as
    itself or inside a longer value: a URL with the key in it)."""
    values = secret_values(env)
    return [k for k, v in env.items() if any(secret in v for secret in values)]


def _passed(name: str, names: list[str]) -> bool:
    return not _never(name) and any(name == n or (n.endswith("*") and name.startswith(n[:-1])) for n in names)


def allowed_environment(env: Mapping[str, str]) -> dict[str, str]:
    """The part of `env` that code under evaluation may see: the allow-list above, and what the
    `env` input names (a secret-like value is left out later, see sandbox.worker_environment)."""
    names = passthrough(env)[0]
    return {k: v for k, v in env.items() if _kept(k) or _passed(k, names)}


def passthrough_note(names: tuple[str, ...] | list[str], env: Mapping[str, str]) -> str:
    """One log line: what the `env` input passes to user code, and the names it lists that are not set."""
    secrets = secret_values(env)
    passed = sorted(k for k, v in env.items() if _passed(k, list(names)) and not any(s in v for s in secrets))
    missing = [n for n in names if not n.endswith("*") and n not in env]
    return f"evalkit: env: user code gets {', '.join(passed) or 'nothing more'} beside the default allow-list" + (
        f"; not set in this step: {', '.join(missing)}" if missing else ""
    )


def scrub_environment(environ: dict[str, str] | None = None) -> list[str]:
    """Remove everything but the allow-list from the environment (in place); return what went."""
    env = os.environ if environ is None else environ
    dropped = [k for k in list(env) if not _kept(k)]
    for key in dropped:
        del env[key]
    return dropped


def redact(report: Report, secrets: Iterable[str]) -> Report:
    """`report` with every secret replaced by `***`."""
    text = report.model_dump_json()
    redacted = redact_text(text, list(secrets))
    return report if redacted == text else Report.model_validate_json(redacted)


def redact_file(path: Path, secrets: Iterable[str]) -> None:
    if not path.is_file():
        return
    text = path.read_text(encoding="utf-8", errors="replace")
    redacted = redact_text(text, secrets)
    if redacted != text:
        path.write_text(redacted, encoding="utf-8")
