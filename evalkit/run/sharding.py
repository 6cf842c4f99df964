"""`--shard I/N`: a deterministic, balanced share of a run's cases, for one job of a matrix.

The unit is the case: its repeats stay together (their agreement is computed from all of them).
Shares are balanced by runs (repeats), largest first onto the least loaded shard, so the same
suite files and options give every job the same partition without talking to each other.
Checks across cases are left to `evalkit merge`, which sees every case.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from evalkit.errors import UsageError
from evalkit.suite.model import Suite

_SHARD = re.compile(r"^\s*(\d+)\s*/\s*(\d+)\s*$")


@dataclass(frozen=True)
class Shard:
    index: int  # 1-based, as a matrix names it
    count: int

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"


def parse_shard(text: str) -> Shard:
    """`"2/3"` → Shard(2, 3); anything else is a one-line usage error."""
    m = _SHARD.match(text or "")
    if not m or not 1 <= int(m.group(1)) <= int(m.group(2)):
        raise UsageError(f"shard {text!r} is not of the form I/N with 1 <= I <= N (e.g. 2/3)")
    return Shard(int(m.group(1)), int(m.group(2)))


def shard_members(
    suites: list[Suite], shard: Shard, globs: list[str], repeat: int | None = None
) -> set[tuple[str, str]]:
    """(suite path, case id) of the cases in `shard`, among those `globs` select."""
    cases = [(str(s.path), c.id, 0 if c.skip else (repeat or c.repeats)) for s in suites for c in s.select(globs)]
    order = sorted(range(len(cases)), key=lambda k: (-cases[k][2], k))  # heaviest first, then file order
    load = [0] * shard.count
    members: set[tuple[str, str]] = set()
    for k in order:
        target = min(range(shard.count), key=lambda s: (load[s], s))
        load[target] += max(cases[k][2], 1)
        if target == shard.index - 1:
            members.add(cases[k][:2])
    return members
