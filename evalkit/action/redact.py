"""Keeping secrets out of target code and out of everything the Action writes: the environment
allow-list the worker gets (evalkit/action/sandbox.py), the secret-like values to mask, and
redaction of reports, files and text."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Mapping
from pathlib import Path

from evalkit.report import Report

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


# Names whose values are credentials: the inputs, the runner's own tokens and anything named so.
_SECRET_NAME = re.compile(r"(?i)(TOKEN|SECRET|PASSWORD|PASSWD|API_?KEY|PRIVATE_KEY|CREDENTIAL)")
_NOT_SECRET = frozenset({"ACTIONS_ID_TOKEN_REQUEST_URL", "ACTIONS_RUNTIME_URL", "ACTIONS_RESULTS_URL",
                         "ACTIONS_CACHE_URL"})
MIN_SECRET_CHARS = 8  # shorter values would redact ordinary words


def secret_values(env: Mapping[str, str]) -> list[str]:
    """Every secret-like value the runner passed (longest first, each once), to mask and redact."""
    found = {v.strip() for k, v in env.items()
             if _SECRET_NAME.search(k) and k not in _NOT_SECRET and len(v.strip()) >= MIN_SECRET_CHARS}
    return sorted(found, key=lambda v: (-len(v), v))


def secret_names(env: Mapping[str, str]) -> list[str]:
    """The names of the variables `secret_values` reads, and any other holding one of them."""
    values = set(secret_values(env))
    return [k for k, v in env.items() if v.strip() in values]


def redact_text(text: str, secrets: Iterable[str]) -> str:
    """`text` with every secret (raw or JSON-escaped) replaced by `***`."""
    for secret in secrets:
        if len(secret) >= MIN_SECRET_CHARS:
            text = text.replace(json.dumps(secret)[1:-1], "***").replace(secret, "***")
    return text


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
    secrets = [x for x in secrets if len(x) >= 8]
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
