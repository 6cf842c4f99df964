"""The HTML report with the history's trend charts and case strips, for the commands that write it:
what the history says of a run is read after the run, so the run's own figures are its last point."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from evalkit.history.access import read_report_past


def past(history: str | None, branch: str, report: Any) -> Any:
    """What the history at `history` says of `report`'s suites and cases; None without a history."""
    return read_report_past(history, report, branch=branch) if history else None


def redraw(results: Path, html_path: str, history: str, branch: str, **kwargs: Any) -> None:
    """Write the HTML report of the run in `results` again, with the charts (`kwargs`: a comparison and
    its base, as the page had them)."""
    from evalkit.compare import load_results
    from evalkit.render.html import write_html

    report = load_results(results)
    write_html(report, html_path, past=past(history, branch, report), **kwargs)
