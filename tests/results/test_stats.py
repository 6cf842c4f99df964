"""Wilson intervals, Cohen's kappa, majority votes (figures checked by hand)."""

import pytest

from evalkit.results.intervals import cohen_kappa, flipped, majority, wilson


def test_wilson_interval_of_3_of_5_straddles_0_8():
    lo, hi = wilson(3, 5)
    assert lo == pytest.approx(0.2307, abs=1e-4) and hi == pytest.approx(0.8824, abs=1e-4)
    assert wilson(0, 0) == (0.0, 1.0)
    assert wilson(5, 5)[1] == 1.0


def test_cohen_kappa_two_errors_in_ten():
    # labels: 5 pass, 5 fail; the judge passes two of the fails -> po 0.8, pe 0.5*0.7+0.5*0.3 = 0.5
    pairs = [("pass", "pass")] * 5 + [("fail", "pass")] * 2 + [("fail", "fail")] * 3
    assert cohen_kappa(pairs) == pytest.approx(0.6)
    assert cohen_kappa([("pass", "pass")] * 3) == 1.0
    assert cohen_kappa([]) is None


def test_majority_ties_fail_and_flips():
    assert majority(["pass", "pass", "fail"]) == "pass"
    assert majority(["pass", "fail"]) == "fail"
    assert flipped(["pass", "fail", "pass"]) and not flipped(["fail", "fail"])
