"""Workflow commands: annotations, groups, masks, stop-commands, outputs and the step summary."""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import sys
import uuid
from collections.abc import Iterator
from typing import TextIO

from evalkit.errors import UsageError
from evalkit.render.sanitize import truncate_markdown

SUMMARY_LIMIT = 1024 * 1024  # bytes; GitHub rejects a larger step summary
SUMMARY_NOTE = "*… summary truncated: GitHub allows at most 1 MiB per step.*"
_LEVELS = ("debug", "notice", "warning", "error")
_OUTPUT_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*\Z")


def escape_data(value: str) -> str:
    """Escape a command's message: `%`, CR, LF."""
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(value: str) -> str:
    """Escape a command property value: as `escape_data`, plus `:` and `,`."""
    return escape_data(value).replace(":", "%3A").replace(",", "%2C")


def annotation(
    level: str,
    message: str,
    *,
    file: str | None = None,
    line: int | None = None,
    title: str | None = None,
    stream: TextIO | None = None,
) -> str:
    """Print and return `::error file=F,line=L,title=T::message` (or debug/notice/warning)."""
    if level not in _LEVELS:
        raise ValueError(f"annotation level {level!r}: use one of {', '.join(_LEVELS)}")
    props = [(k, v) for k, v in (("file", file), ("line", line), ("title", title)) if v is not None]
    prop_text = ",".join(f"{k}={escape_property(str(v))}" for k, v in props)
    command = f"::{level}{' ' + prop_text if prop_text else ''}::{escape_data(message)}"
    _write(stream, command)
    return command


@contextlib.contextmanager
def group(title: str, stream: TextIO | None = None) -> Iterator[None]:
    """Fold the log lines printed inside into one collapsible group."""
    _write(stream, f"::group::{escape_data(title)}")
    try:
        yield
    finally:
        _write(stream, "::endgroup::")


def mask(value: str, stream: TextIO | None = None) -> None:
    """Ask the runner to hide `value` in logs, one line at a time (masks match single lines)."""
    for line in value.splitlines():
        if line.strip():
            _write(stream, f"::add-mask::{escape_data(line)}")


@contextlib.contextmanager
def untrusted(stream: TextIO | None = None) -> Iterator[str]:
    """Pause command processing while untrusted text (model output) is printed inside."""
    token = secrets.token_hex(16)  # unguessable, so the text cannot resume commands itself
    _write(stream, f"::stop-commands::{token}")
    try:
        yield token
    finally:
        _write(stream, f"::{token}::")


def print_untrusted(text: str, stream: TextIO | None = None) -> None:
    """Print `text` with workflow commands disabled around it."""
    with untrusted(stream):
        _write(stream, text)


def set_output(name: str, value: str, path: str | None = None) -> None:
    """Append a step output to `$GITHUB_OUTPUT` in the `name<<delimiter` form."""
    if not _OUTPUT_NAME.match(name):
        raise ValueError(f"output name {name!r}: use letters, digits, `_` or `-`")
    delimiter = f"ghadelimiter_{uuid.uuid4()}"
    if delimiter in value:
        raise ValueError("output value contains its own delimiter; refusing to write it")
    with open(_env_path(path, "GITHUB_OUTPUT"), "a", encoding="utf-8") as fh:
        fh.write(f"{name}<<{delimiter}\n{value}\n{delimiter}\n")


def append_summary(markdown: str, path: str | None = None, *, limit: int = SUMMARY_LIMIT) -> bool:
    """Append to `$GITHUB_STEP_SUMMARY`, keeping the file within `limit` bytes; True if cut."""
    target = _env_path(path, "GITHUB_STEP_SUMMARY")
    used = os.path.getsize(target) if os.path.exists(target) else 0
    room = limit - used
    text = markdown if markdown.endswith("\n") else markdown + "\n"
    cut = len(text.encode("utf-8")) > room
    if cut:
        text = _fit_bytes(text, room - 1)
        if not text:
            return True
        text += "\n"
    with open(target, "a", encoding="utf-8") as fh:
        fh.write(text)
    return cut


def _fit_bytes(text: str, room: int) -> str:
    """Truncate markdown with a note until its UTF-8 form fits in `room` bytes ("" if it cannot)."""
    chars = room
    while chars > len(SUMMARY_NOTE):
        cut = truncate_markdown(text, chars, SUMMARY_NOTE)
        excess = len(cut.encode("utf-8")) - room
        if excess <= 0:
            return cut
        chars -= max(excess, 1)
    return ""


def _env_path(path: str | None, variable: str) -> str:
    target = path or os.environ.get(variable)
    if not target:
        raise UsageError(f"${variable} is not set: run inside GitHub Actions or pass a path")
    return target


def _write(stream: TextIO | None, line: str) -> None:
    out = stream if stream is not None else sys.stdout
    out.write(line + "\n")
    out.flush()
