"""Base against head (or model against model), case by case: `compare_reports` and its data."""

from evalkit.compare.comparison import CHANGES, CaseDiff, Comparison, ItemFlip, SideStats, SuiteDiff
from evalkit.compare.diff import DEFAULT_ALPHA, compare_case, compare_reports, item_flips
from evalkit.compare.fisher import fisher_exact
from evalkit.compare.load import load_results

__all__ = ["CHANGES", "CaseDiff", "Comparison", "DEFAULT_ALPHA", "ItemFlip", "SideStats", "SuiteDiff",
           "compare_case", "compare_reports", "fisher_exact", "item_flips", "load_results"]
