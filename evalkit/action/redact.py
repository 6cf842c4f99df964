"""Keeping secrets out of target code and out of everything the Action writes."""

from __future__ import annotations

import json
import os
from pathlib import Path

from evalkit.report import Report

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


def scrub_environment(environ: dict[str, str] | None = None) -> list[str]:
    """Remove everything but the allow-list from the environment (in place); return what went."""
    env = os.environ if environ is None else environ
    dropped = [k for k in list(env) if k in _DROP or not (k in _KEEP or k.startswith(_KEEP_PREFIXES))]
    for key in dropped:
        del env[key]
    return dropped


def redact(report: Report, secrets: list[str]) -> Report:
    """`report` with every secret replaced by `***`."""
    secrets = [x for x in secrets if len(x) >= 8]
    text = report.model_dump_json()
    hits = [x for x in secrets if x in text or json.dumps(x)[1:-1] in text]
    if not hits:
        return report
    for secret in hits:
        text = text.replace(json.dumps(secret)[1:-1], "***").replace(secret, "***")
    return Report.model_validate_json(text)


def redact_file(path: Path, secrets: list[str]) -> None:
    if not path.is_file():
        return
    text = path.read_text(encoding="utf-8", errors="replace")
    for secret in (x for x in secrets if len(x) >= 8):
        text = text.replace(json.dumps(secret)[1:-1], "***").replace(secret, "***")
    path.write_text(text, encoding="utf-8")
