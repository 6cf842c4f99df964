"""The few statistics verdicts need: Wilson intervals, Cohen's kappa, majority votes and flips."""

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


def majority(votes: Sequence[str]) -> str:
    """The most common vote; a tie between pass and fail is a fail (a verdict must be earned)."""
    counts = Counter(votes)
    if counts["pass"] > counts["fail"]:
        return "pass"
    return "fail"


def flipped(votes: Sequence[str]) -> bool:
    """The same output got different verdicts."""
    return len(set(votes)) > 1
