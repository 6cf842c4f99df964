"""Limits that keep any input from hanging or exhausting a run, with their documented defaults.

YAML limits can be changed with environment variables (a suite file cannot raise them: they
protect the machine that reads pull requests' suite files); timeouts with a suite's `timeout:`."""

from __future__ import annotations

import os

DEFAULT_TARGET_TIMEOUT = 300.0  # seconds one target call (one run of a case) may take
DEFAULT_CHECK_TIMEOUT = 10.0  # seconds one code check may take (regex, json, a plugin's check)
# Seconds one judge or extraction call may take in all, its retries and corrective turn included:
# a judge server that trickles or never answers becomes an error row, not a run that waits on
# the HTTP client's 600 s per read, retry after retry.
DEFAULT_JUDGE_TIMEOUT = 180.0
REGEX_TIMEOUT = 1.0  # seconds one regular-expression search may take, within the check's limit
# Model calls in flight by default (`--concurrency`, the Action's `concurrency`): a ceiling the
# adaptive window (evalkit/llm/concurrency.py) reaches at once when the first reply's rate-limit headers
# show room for it, and halves on a 429, so a small account is paced rather than flooded.
DEFAULT_CONCURRENCY = 32


def _env_int(name: str, default: int) -> int:
    try:
        return max(1, int(os.environ.get(name, "")))
    except ValueError:
        return default


def yaml_max_bytes() -> int:
    """Largest suite or fixture file read (EVALKIT_YAML_MAX_BYTES, default 20 MB)."""
    return _env_int("EVALKIT_YAML_MAX_BYTES", 20_000_000)


def yaml_max_depth() -> int:
    """Deepest nesting of mappings and lists (EVALKIT_YAML_MAX_DEPTH, default 64)."""
    return _env_int("EVALKIT_YAML_MAX_DEPTH", 64)


def yaml_max_nodes() -> int:
    """Most values a file may hold once its aliases are expanded (EVALKIT_YAML_MAX_NODES, default 2,000,000)."""
    return _env_int("EVALKIT_YAML_MAX_NODES", 2_000_000)
