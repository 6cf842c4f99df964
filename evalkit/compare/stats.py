"""Fisher's exact test on two pass rates, written with math.comb (no scipy dependency)."""

from __future__ import annotations

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
