"""Flaky cases, told from the history: over the last N runs of the default branch, a case whose
outcome changed and changed back (two flips or more) while everything it depends on stayed the same
(its suite's files, target and models, and its input: one fingerprint) is flaky.

One flip is not enough: a change that broke a case on main and left it broken flips it once, and
a callable target's own code is not in the fingerprint (its commit changes every run), so only an
outcome that comes back tells noise from a change."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from evalkit.compare.flaky import FlakyCase
from evalkit.history.connection import HistoryConnection

DEFAULT_BRANCH = "main"
DEFAULT_WINDOW = 10  # runs of the branch looked at
MIN_FLIPS = 2


@dataclass(frozen=True)
class _Outcome:
    run: int
    fingerprint: tuple[str | None, str, str, str]
    passed: bool | None  # None: neither pass nor fail (skipped, inconclusive, not run)


def flaky_cases(
    conn: HistoryConnection, *, branch: str = DEFAULT_BRANCH, last: int = DEFAULT_WINDOW
) -> list[FlakyCase]:
    """The cases flaky over the last `last` runs of `branch`, by suite and id."""
    rows = conn.execute(
        "SELECT c.suite, c.case_id, c.run, s.suite_hash, s.target, s.models, c.input_hash, c.verdict "
        "FROM case_runs c JOIN suite_runs s ON s.run = c.run AND s.suite = c.suite "
        "WHERE c.run IN (SELECT id FROM runs WHERE branch = ? ORDER BY id DESC LIMIT ?) "
        "ORDER BY c.suite, c.case_id, c.run DESC",
        (branch, last),
    ).fetchall()
    by_case: dict[tuple[str, str], list[_Outcome]] = defaultdict(list)
    for suite, case_id, run, suite_hash, target, models, input_hash, verdict in rows:
        passed = {"pass": True, "fail": False, "error": False}.get(verdict)
        by_case[(suite, case_id)].append(_Outcome(run, (suite_hash, target, models, input_hash), passed))
    found = []
    for (suite, case_id), outcomes in by_case.items():
        window = _same_fingerprint(outcomes)
        states = [o.passed for o in window if o.passed is not None]
        flips = sum(a != b for a, b in zip(states, states[1:]))
        if flips >= MIN_FLIPS:
            found.append(
                FlakyCase(
                    suite=suite,
                    id=case_id,
                    branch=branch,
                    failed=states.count(False),
                    runs=len(states),
                    flips=flips,
                    items=_flipped_items(conn, suite, case_id, [o.run for o in window]),
                )
            )
    return found


def _same_fingerprint(newest_first: list[_Outcome]) -> list[_Outcome]:
    """The newest outcomes that share the newest one's fingerprint (an unknown suite hash: none),
    oldest first."""
    if not newest_first or newest_first[0].fingerprint[0] is None:
        return []
    latest = newest_first[0].fingerprint
    window = []
    for outcome in newest_first:
        if outcome.fingerprint != latest:
            break
        window.append(outcome)
    return window[::-1]


def _flipped_items(conn: HistoryConnection, suite: str, case_id: str, runs: list[int]) -> list[str]:
    """Items of the case whose outcome (every scored run passed, or not) differed between these runs."""
    marks = ",".join("?" * len(runs))
    states: dict[str, set[bool]] = defaultdict(set)
    for item_id, passed, scored in conn.execute(
        f"SELECT item_id, passed, scored FROM item_runs WHERE suite = ? AND case_id = ? AND run IN ({marks})",
        (suite, case_id, *runs),
    ):
        if scored:
            states[item_id].add(passed == scored)
    return sorted(i for i, seen in states.items() if len(seen) > 1)
