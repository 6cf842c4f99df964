"""Keeping secrets out of target code and out of everything the Action writes: the environment
allow-list the worker gets (evalkit/action/sandbox.py), the secret-like values to mask, and
redaction of reports and files (the secret-like values and text redaction: evalkit/redaction.py,
shared with the CLI; the Action replaces with `***`, as GitHub's mask does)."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from pathlib import Path

from evalkit.redaction import MIN_SECRET_CHARS, redact_text, secret_names, secret_values
from evalkit.report import Report

__all__ = ["MIN_SECRET_CHARS", "allowed_environment", "redact", "redact_file", "redact_text", "scrub_environment",
           "secret_names", "secret_values"]

# What code under evaluation (in the worker) may see of the runner's environment.
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


def _kept(name: str) -> bool:
    return name not in _DROP and (name in _KEEP or name.startswith(_KEEP_PREFIXES))


def allowed_environment(env: Mapping[str, str]) -> dict[str, str]:
    """The part of `env` that code under evaluation may see (the allow-list above)."""
    return {k: v for k, v in env.items() if _kept(k)}


def scrub_environment(environ: dict[str, str] | None = None) -> list[str]:
    """Remove everything but the allow-list from the environment (in place); return what went."""
    env = os.environ if environ is None else environ
    dropped = [k for k in list(env) if not _kept(k)]
    for key in dropped:
        del env[key]
    return dropped


def redact(report: Report, secrets: Iterable[str]) -> Report:
    """`report` with every secret replaced by `***`."""
    secrets = [x for x in secrets if len(x) >= MIN_SECRET_CHARS]
    text = report.model_dump_json()
    hits = [x for x in secrets if x in text or json.dumps(x)[1:-1] in text]
    if not hits:
        return report
    for secret in hits:
        text = text.replace(json.dumps(secret)[1:-1], "***").replace(secret, "***")
    return Report.model_validate_json(text)


def redact_file(path: Path, secrets: Iterable[str]) -> None:
    if not path.is_file():
        return
    text = path.read_text(encoding="utf-8", errors="replace")
    redacted = redact_text(text, secrets)
    if redacted != text:
        path.write_text(redacted, encoding="utf-8")
