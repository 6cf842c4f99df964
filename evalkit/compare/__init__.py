"""Base against head (or model against model), case by case: `compare_reports` and its data."""

from __future__ import annotations

from typing import TYPE_CHECKING

from evalkit._runtime.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from evalkit.compare.comparison import CHANGES, CaseDiff, Comparison, ItemFlip, SideStats, SuiteDiff
    from evalkit.compare.diff import DEFAULT_ALPHA, compare_case, compare_reports, item_flips, latency, live_run_seconds
    from evalkit.compare.fisher import fisher_exact
    from evalkit.compare.flaky import FlakyCase, FlakyIndex, index
    from evalkit.compare.load import load_results
    from evalkit.compare.model_vs_model import ModelComparison, compare_models
    from evalkit.compare.trajectory_diff import TrajectoryDiff

# What the other rooms (and a team's code) use of this one; each name loads its module on first use.
__all__ = [
    "CHANGES",
    "CaseDiff",
    "Comparison",
    "DEFAULT_ALPHA",
    "FlakyCase",
    "FlakyIndex",
    "ItemFlip",
    "ModelComparison",
    "SideStats",
    "SuiteDiff",
    "TrajectoryDiff",
    "compare_case",
    "compare_models",
    "compare_reports",
    "fisher_exact",
    "index",
    "item_flips",
    "latency",
    "live_run_seconds",
    "load_results",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "CHANGES": "evalkit.compare.comparison",
        "CaseDiff": "evalkit.compare.comparison",
        "Comparison": "evalkit.compare.comparison",
        "ItemFlip": "evalkit.compare.comparison",
        "SideStats": "evalkit.compare.comparison",
        "SuiteDiff": "evalkit.compare.comparison",
        "DEFAULT_ALPHA": "evalkit.compare.diff",
        "compare_case": "evalkit.compare.diff",
        "compare_reports": "evalkit.compare.diff",
        "item_flips": "evalkit.compare.diff",
        "latency": "evalkit.compare.diff",
        "live_run_seconds": "evalkit.compare.diff",
        "fisher_exact": "evalkit.compare.fisher",
        "FlakyCase": "evalkit.compare.flaky",
        "FlakyIndex": "evalkit.compare.flaky",
        "index": "evalkit.compare.flaky",
        "load_results": "evalkit.compare.load",
        "ModelComparison": "evalkit.compare.model_vs_model",
        "compare_models": "evalkit.compare.model_vs_model",
        "TrajectoryDiff": "evalkit.compare.trajectory_diff",
    },
)

# Only the public names stay bound on the package (a test compares vars() with __all__).
del annotations, TYPE_CHECKING, lazy_exports
