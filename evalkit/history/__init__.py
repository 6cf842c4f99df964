"""A memory of runs: the results history in one SQLite file or a PostgreSQL database (schema and
migrations, recording a run whole or not at all, trends, one case over time) and the flaky cases it tells."""

from __future__ import annotations

from typing import TYPE_CHECKING

from evalkit._runtime.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from evalkit.history.access import prune_file, read_flaky, read_report_past, record_file
    from evalkit.history.database import DEFAULT_PATH, open_history
    from evalkit.history.flaky import DEFAULT_BRANCH, flaky_cases
    from evalkit.history.location import shown
    from evalkit.history.merge import add_missing_runs
    from evalkit.history.migrations import SCHEMA_VERSION
    from evalkit.history.queries import SuiteRun
    from evalkit.history.report_past import DEFAULT_CHART_RUNS, NOT_RUN, ReportPast, SuitePast

# What the other rooms (and a team's code) use of this one; each name loads its module on first use.
__all__ = [
    "DEFAULT_BRANCH",
    "DEFAULT_CHART_RUNS",
    "DEFAULT_PATH",
    "NOT_RUN",
    "ReportPast",
    "SCHEMA_VERSION",
    "SuitePast",
    "SuiteRun",
    "add_missing_runs",
    "flaky_cases",
    "open_history",
    "prune_file",
    "read_flaky",
    "read_report_past",
    "record_file",
    "shown",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "SCHEMA_VERSION": "evalkit.history.migrations",
        "add_missing_runs": "evalkit.history.merge",
        "read_flaky": "evalkit.history.access",
        "read_report_past": "evalkit.history.access",
        "record_file": "evalkit.history.access",
        "prune_file": "evalkit.history.access",
        "DEFAULT_PATH": "evalkit.history.database",
        "open_history": "evalkit.history.database",
        "DEFAULT_BRANCH": "evalkit.history.flaky",
        "flaky_cases": "evalkit.history.flaky",
        "shown": "evalkit.history.location",
        "DEFAULT_CHART_RUNS": "evalkit.history.report_past",
        "NOT_RUN": "evalkit.history.report_past",
        "ReportPast": "evalkit.history.report_past",
        "SuitePast": "evalkit.history.report_past",
        "SuiteRun": "evalkit.history.queries",
    },
)

del annotations, TYPE_CHECKING, lazy_exports
