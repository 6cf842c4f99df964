"""The few statistics verdicts need: Wilson intervals, Cohen's kappa and its interval, majority votes
and flips."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence

Z95 = 1.959963984540054  # two-sided 95 % normal quantile


def wilson(successes: int, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of a proportion (95 % by default); (0, 1) when there is no trial."""
    if n <= 0:
        return 0.0, 1.0
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def cohen_kappa(pairs: Sequence[tuple[str, str]]) -> float | None:
    """Cohen's kappa of (label, verdict) pairs: agreement beyond what chance gives. None without
    pairs; 1.0 when both raters agree perfectly and never vary (kappa is undefined there)."""
    if not pairs:
        return None
    n = len(pairs)
    observed = sum(a == b for a, b in pairs) / n
    first, second = Counter(a for a, _ in pairs), Counter(b for _, b in pairs)
    expected = sum(first[k] * second[k] for k in set(first) | set(second)) / (n * n)
    if expected >= 1.0:
        return 1.0 if observed == 1.0 else 0.0
    return (observed - expected) / (1 - expected)


def kappa_interval(
    pairs: Sequence[tuple[str, str]], units: int | None = None, z: float = Z95
) -> tuple[float, float] | None:
    """95 % interval of Cohen's kappa of `pairs`: the Wilson interval of the observed agreement,
    carried through kappa = (po - pe) / (1 - pe) with the chance agreement pe held at its observed
    value. Unlike Cohen's large-sample standard error it does not shrink to a point when every pair
    agrees (3 labels, all matched, cannot show a judge better than chance). `units` is the n to
    use when the pairs are not independent (three verdicts on one gold output are one unit, not
    three). None without pairs, or when pe is 1 (kappa has no spread there)."""
    if not pairs:
        return None
    n = len(pairs)
    first, second = Counter(a for a, _ in pairs), Counter(b for _, b in pairs)
    expected = sum(first[k] * second[k] for k in set(first) | set(second)) / (n * n)
    if expected >= 1.0:
        return None
    observed = sum(a == b for a, b in pairs) / n
    low, high = _wilson_rate(observed, units or n, z)
    return max(-1.0, (low - expected) / (1 - expected)), min(1.0, (high - expected) / (1 - expected))


def _wilson_rate(p: float, n: int, z: float) -> tuple[float, float]:
    """Wilson interval of a rate `p` measured as if over `n` trials (n need not divide it)."""
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def majority(votes: Sequence[str]) -> str:
    """The most common vote; a tie between pass and fail is a fail (a verdict must be earned)."""
    counts = Counter(votes)
    if counts["pass"] > counts["fail"]:
        return "pass"
    return "fail"


def flipped(votes: Sequence[str]) -> bool:
    """The same output got different verdicts."""
    return len(set(votes)) > 1
