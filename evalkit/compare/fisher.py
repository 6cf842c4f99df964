"""Fisher's exact test on two pass rates, written with math.comb (no scipy dependency), and what
it can tell with so many runs: its smallest p-value, and the runs a side an observed change needs."""

from __future__ import annotations

from functools import lru_cache
from math import comb

# Probabilities this close count as equal (floating-point ties in the two-sided sum).
_RELATIVE_TIE = 1 + 1e-7


def fisher_exact(passed_a: int, total_a: int, passed_b: int, total_b: int) -> float:
    """Two-sided p-value that samples a and b share one pass rate: the sum of the probabilities of
    every 2×2 table with the same margins that is no more likely than the observed one."""
    if not (0 <= passed_a <= total_a and 0 <= passed_b <= total_b):
        raise ValueError("passed counts must lie between 0 and their totals")
    passes, n = passed_a + passed_b, total_a + total_b
    if n == 0:
        return 1.0
    denominator = comb(n, passes)

    def probability(k: int) -> float:  # k passes in sample a
        return comb(total_a, k) * comb(total_b, passes - k) / denominator

    observed = probability(passed_a)
    low, high = max(0, passes - total_b), min(total_a, passes)
    p = sum(pk for pk in map(probability, range(low, high + 1)) if pk <= observed * _RELATIVE_TIE)
    return min(1.0, p)


def smallest_p(total_a: int, total_b: int) -> float:
    """The smallest p-value Fisher's test can give with these run counts: that of the most extreme
    table (every run of one side passes, every run of the other fails). At or above alpha, no
    outcome of so few runs can be told from noise: 3 runs a side give at best p = 0.1."""
    return fisher_exact(total_a, total_a, 0, total_b)


@lru_cache(maxsize=4096)  # a comparison has many flips with the same rates (1/1 → 0/1, 3/3 → 0/3)
def repeats_needed(
    passed_a: int, total_a: int, passed_b: int, total_b: int, alpha: float, *, limit: int = 100
) -> int | None:
    """The smallest number of runs per side, n ≤ `limit`, at which the observed pass rates
    (rounded to whole runs of n) give p < `alpha` in Fisher's exact test; None if none does."""
    if total_a <= 0 or total_b <= 0 or passed_a * total_b == passed_b * total_a:
        return None
    for n in range(1, limit + 1):
        # Nearest whole number of passing runs at n runs (half rounds up), in integers.
        a, b = (2 * passed_a * n + total_a) // (2 * total_a), (2 * passed_b * n + total_b) // (2 * total_b)
        if a != b and fisher_exact(a, n, b, n) < alpha:
            return n
    return None
