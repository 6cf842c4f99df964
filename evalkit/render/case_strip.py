"""A case's history as a strip: one cell a run of its suite, oldest first, the report's own run last.
Each cell carries a symbol as well as a colour (readable without colour) and a tooltip naming the
run, its date and commit; a case flaky on the default branch carries that label."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

# verdict -> (css state, symbol, word); anything else (skipped, not run) is "not run".
STATES = {
    "pass": ("pass", "✓", "pass"),
    "fail": ("fail", "✗", "fail"),
    "error": ("error", "!", "error"),
    "inconclusive": ("inconclusive", "?", "inconclusive"),
}
NOT_RUN = ("none", "·", "not run")


@dataclass(frozen=True)
class Cell:
    state: str  # pass, fail, error, inconclusive, none: the css class
    symbol: str
    tip: str  # "#12 · 2026-11-20 · abc123def456: fail"
    current: bool


@dataclass(frozen=True)
class Strip:
    cells: list[Cell]
    summary: str  # its text alternative: "last 12 runs: 9 pass, 3 fail"
    flaky: str | None = None  # "flaky on main (2 of 10)"


def case_strip(verdicts: Sequence[str], runs: Sequence[str], flaky: str | None = None) -> Strip | None:
    """The strip of a case whose verdicts in the runs named by `runs` (one tooltip label a run) are
    `verdicts`; None for fewer than two runs: one cell is the verdict the row already shows."""
    if len(verdicts) < 2 or len(verdicts) != len(runs):
        return None
    cells = []
    for i, (verdict, run) in enumerate(zip(verdicts, runs, strict=True)):
        state, symbol, word = STATES.get(verdict, NOT_RUN)
        cells.append(Cell(state, symbol, f"{run}: {word}", i == len(verdicts) - 1))
    counts: dict[str, int] = {}
    for verdict in verdicts:
        word = STATES.get(verdict, NOT_RUN)[2]
        counts[word] = counts.get(word, 0) + 1
    summary = f"last {len(cells)} runs: " + ", ".join(f"{n} {word}" for word, n in counts.items())
    return Strip(cells=cells, summary=summary, flaky=flaky)
