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


# An OpenTelemetry trace a target returns (or a gold set records), read by evalkit/trace/otel.py: a
# trace over any of these is refused in one line naming the limit and the variable that raises it
# (an error row for a target's trace; a suite problem for a gold set's).
def otel_max_bytes() -> int:
    """Largest OpenTelemetry trace, its text as JSON would write it (EVALKIT_OTEL_MAX_BYTES, default 50 MB)."""
    return _env_int("EVALKIT_OTEL_MAX_BYTES", 50_000_000)


def otel_max_spans() -> int:
    """Most spans an OpenTelemetry trace may hold (EVALKIT_OTEL_MAX_SPANS, default 50,000)."""
    return _env_int("EVALKIT_OTEL_MAX_SPANS", 50_000)


def otel_max_depth() -> int:
    """Deepest nesting in an OpenTelemetry trace: its own lists and mappings, an attribute's array or
    key-value list, a JSON attribute (`gen_ai.*.messages`, a tool's arguments) (EVALKIT_OTEL_MAX_DEPTH, default 64)."""
    return _env_int("EVALKIT_OTEL_MAX_DEPTH", 64)


# OTLP's integers are 64-bit: an `intValue` (or a span's nanoseconds) outside them is refused, and a
# JSON attribute's number over this many digits (or NaN / Infinity, which JSON has no words for) is
# not read as a number: the attribute stays the text it was.
OTEL_INT_BITS = 64
OTEL_MAX_NUMBER_DIGITS = 100


# A conversation case (evalkit/run/conversation.py): its turns are counted when the suite loads, each
# user turn's message and the conversation so far are measured as they are rendered (`validate`, `plan`
# and `run` render them the same way; a reply that makes a later turn too long is an error row).
def conversation_max_turns() -> int:
    """Most turns a conversation case may have (EVALKIT_CONVERSATION_MAX_TURNS, default 200)."""
    return _env_int("EVALKIT_CONVERSATION_MAX_TURNS", 200)


def turn_max_chars() -> int:
    """Longest message a user turn may render to (EVALKIT_TURN_MAX_CHARS, default 1,000,000 characters)."""
    return _env_int("EVALKIT_TURN_MAX_CHARS", 1_000_000)


def conversation_max_chars() -> int:
    """Longest a conversation may grow, every message counted (EVALKIT_CONVERSATION_MAX_CHARS, default 4,000,000 characters)."""
    return _env_int("EVALKIT_CONVERSATION_MAX_CHARS", 4_000_000)


# What the Action keeps of a worker's output (what user code printed): all of it goes to the log as it
# comes (redacted line by line), the log shows at most WORKER_LOG_MAX_CHARS of it, and only the last
# WORKER_OUTPUT_TAIL_CHARS are kept in memory, for the error message of a worker that fails.
WORKER_OUTPUT_TAIL_CHARS = 64 * 1024
WORKER_LOG_MAX_CHARS = 5_000_000
