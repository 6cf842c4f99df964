"""A memory of runs: the results history in one SQLite file (schema and migrations, recording a run
whole or not at all, trends, one case over time) and the flaky cases it tells."""

__all__ = [
    "access",
    "database",
    "fingerprint",
    "flaky",
    "migrations",
    "queries",
    "recording",
    "text",
]
