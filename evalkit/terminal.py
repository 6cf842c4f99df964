"""What the run commands print on the terminal: a line per finished case while running (marks
and colours on a terminal, plain words in CI), then a line per suite and the run's usage."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any, Callable

import click


def summarise(result: Any, out: Path) -> int:
    """A line per suite, the warnings, the usage; the exit code of the verdict."""
    from evalkit.gates import exit_code  # imported per command: --help and light commands stay fast
    from evalkit.render.log import suite_line, usage_line

    for suite in result.suites:
        click.echo(suite_line(suite))
    for warning in result.warnings:
        click.echo(f"warning: {warning}", err=True)
    click.echo(f"verdict: {result.verdict} · {usage_line(result)} · results: {out}")
    return exit_code(result.verdict)


def progress_printer() -> Callable[[Any, Any], None]:
    """Print each finished case as `✓ suite/case 1.2s` (or PASS/FAIL words when not a terminal)."""
    tty = sys.stderr.isatty() and not os.environ.get("CI")
    marks = {"pass": "✓", "fail": "✗", "error": "!", "skipped": "-"} if tty else {}

    def show(suite: Any, case: Any) -> None:
        mark = marks.get(case.verdict, case.verdict.upper())
        why = f"  ({'; '.join(case.reasons)})" if case.reasons and case.verdict != "pass" else ""
        text = f"{mark} {suite.name}/{case.id} {case.wall_seconds:.1f}s{why}"
        if tty:
            color = {"pass": "green", "fail": "red", "error": "yellow"}.get(case.verdict)
            text = click.style(text, fg=color)
        click.echo(text, err=True)

    return show
