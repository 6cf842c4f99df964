"""What the run commands print on the terminal: progress while running (done/total, rate and ETA;
a status line redrawn in place on a terminal, plain lines in CI or a pipe; colour unless NO_COLOR),
then a line per suite and the run's usage."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Any, Callable, TextIO

import click

from evalkit._runtime.end_of_turn import before_next_wait

MAX_PROBLEM_CHARS = 300  # of an error shown under its case while running (the reports keep it whole)


def summarise(result: Any, out: Path) -> int:
    """A line per suite, the warnings, the usage; the exit code of the verdict."""
    from evalkit.render.log import budget_line, suite_line, usage_line
    from evalkit.results.gates import exit_code  # imported per command: --help and light commands stay fast

    for suite in result.suites:
        click.echo(suite_line(suite))
    for warning in result.warnings:
        click.echo(f"warning: {warning}", err=True)
    budget = budget_line(result)
    if budget:
        click.echo(budget)
    click.echo(f"verdict: {result.verdict} · {usage_line(result)} · results: {out}")
    return exit_code(result.verdict)


def planned_cases(suites: list[Any], options: Any) -> int:
    """How many cases a run of `suites` with these RunOptions finishes (the progress total)."""
    if options.shard is not None:
        from evalkit.run.sharding import shard_members  # only a sharded run needs it

        return len(shard_members(suites, options.shard, options.cases, options.repeat))
    return sum(len(s.select(options.cases)) for s in suites)


def interactive(stream: TextIO) -> bool:
    """A person watching a terminal (not CI, not a pipe or a file)."""
    return stream.isatty() and not os.environ.get("CI") and os.environ.get("TERM") != "dumb"


def colour_wanted(stream: TextIO) -> bool:
    """Colour only on an interactive terminal, and never when NO_COLOR is set (no-color.org)."""
    return interactive(stream) and not os.environ.get("NO_COLOR")


class Progress:
    """Called once per finished case. On a terminal: every case that did not pass is printed as a
    line, and one status line (`12/40 cases · 3.1/s · ETA 9 s`) is redrawn in place beneath them.
    Elsewhere: one plain line per case, prefixed with the count, rate and ETA; the lines of one turn
    of the event loop go out in one write (at 32 calls in flight, several cases finish per turn)."""

    def __init__(
        self, total: int | None = None, stream: TextIO | None = None, clock: Callable[[], float] = time.monotonic
    ):
        self.total = total
        self.stream = stream or sys.stderr
        self.live = interactive(self.stream)
        self.colour = colour_wanted(self.stream)
        self.clock = clock
        self.started = clock()
        self.done = 0
        self._status_shown = False
        self._lines: list[str] = []  # plain lines waiting for the end of this turn of the loop

    def __call__(self, suite: Any, case: Any) -> None:
        self.done += 1
        line = self._case_line(suite, case)
        if self.live:
            self._clear_status()
            if case.verdict not in ("pass", "skipped", "not_run"):  # not run: the summary counts them
                self._write(line + "\n")
            self._write(self.status())
            self._status_shown = True
            if self.total is not None and self.done >= self.total:
                self.finish()
        else:
            self._plain(f"[{self.status()}] {line}\n")

    def status(self) -> str:
        """`12/40 cases · 3.1/s · ETA 9 s` (no total: `12 cases · 3.1/s`)."""
        elapsed = max(self.clock() - self.started, 1e-9)
        rate = self.done / elapsed
        total = self.total if self.total and self.total >= self.done else None  # a wrong guess: no total
        if total is None:
            return f"{self.done} cases · {rate:.1f}/s"
        text = f"{self.done}/{total} cases · {rate:.1f}/s"
        if self.done < total and rate > 0:
            text += f" · ETA {_duration((total - self.done) / rate)}"
        return text

    def finish(self) -> None:
        """End the status line (on a terminal), so what follows starts on a line of its own."""
        if self.live and self._status_shown:
            self._write("\n")
            self._status_shown = False

    def _case_line(self, suite: Any, case: Any) -> str:
        word = case.verdict.upper()
        if self.live:
            word = {"pass": "✓", "fail": "✗", "error": "!", "skipped": "-", "inconclusive": "?", "not_run": "⛔"}.get(
                case.verdict, word
            )
        why = f"  ({'; '.join(case.reasons)})" if case.reasons and case.verdict != "pass" else ""
        text = f"{word} {suite.name}/{case.id} {case.wall_seconds:.1f}s{why}"
        # What went wrong, under the case: a run error or an item's error (the reports hold the rest).
        text += "".join(f"\n    {_cut(e)}" for e in case.errors[:3])
        if case.verdict in ("fail", "error"):
            text += _tools(case)
        if self.colour:
            colour = {"pass": "green", "fail": "red", "error": "yellow", "inconclusive": "cyan"}.get(case.verdict)
            text = click.style(text, fg=colour)
        return text

    def _clear_status(self) -> None:
        if self._status_shown:
            self._write("\r\x1b[2K")

    def _write(self, text: str) -> None:
        self.stream.write(text)
        self.stream.flush()

    def _plain(self, line: str) -> None:
        """Write `line` before the event loop next waits (at once outside a running loop)."""
        if self._lines or before_next_wait(self.flush):
            self._lines.append(line)
        else:
            self._write(line)

    def flush(self) -> None:
        """Write the plain lines still waiting."""
        if self._lines:
            text, self._lines = "".join(self._lines), []
            self._write(text)


def progress_printer(total: int | None = None) -> Progress:
    """The progress display of `evalkit run` (see Progress)."""
    return Progress(total)


def _tools(case: Any) -> str:
    """The tool calls of the case's first traced run that failed (else its first traced run), in
    one line under the case; "" without a trace."""
    from evalkit.render.trajectory import tool_line  # imported per use: --help and light commands stay fast

    traced = [r for r in case.runs if r.trace is not None]
    run = next((r for r in traced if r.passed is False or r.error), traced[0] if traced else None)
    if run is None:
        return ""
    where = f"run {run.repeat + 1} " if len(case.runs) > 1 else ""
    return f"\n    {where}tools: {tool_line(run.trace, MAX_PROBLEM_CHARS)}"


def _cut(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= MAX_PROBLEM_CHARS else text[:MAX_PROBLEM_CHARS] + "…"


def _duration(seconds: float) -> str:
    if seconds < 0.5:
        return "<1 s"
    if seconds < 60:
        return f"{seconds:.0f} s"
    minutes, secs = divmod(int(seconds), 60)
    return f"{minutes}:{secs:02d} min" if minutes < 60 else f"{minutes // 60}:{minutes % 60:02d} h"
