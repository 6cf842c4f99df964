"""The history database's schema, as the steps that build it: step N takes a database from schema
N-1 to N. A step is never edited once released; a change to the schema is a new step."""

from __future__ import annotations

# Schema 1: runs, the suites of each run, the cases of each suite.
SCHEMA_1 = """
CREATE TABLE schema_version (version INTEGER NOT NULL);
INSERT INTO schema_version (version) VALUES (0);
CREATE TABLE runs (
    id INTEGER PRIMARY KEY,
    run_key TEXT NOT NULL UNIQUE,
    recorded_at TEXT NOT NULL,
    started_at TEXT NOT NULL,
    git_commit TEXT,
    branch TEXT NOT NULL,
    verdict TEXT NOT NULL,
    cost_usd REAL NOT NULL,
    wall_seconds REAL NOT NULL,
    calls INTEGER NOT NULL
);
CREATE TABLE suite_runs (
    run INTEGER NOT NULL REFERENCES runs (id),
    suite TEXT NOT NULL,
    suite_hash TEXT,
    target TEXT NOT NULL,
    models TEXT NOT NULL,
    verdict TEXT NOT NULL,
    cases INTEGER NOT NULL,
    passed INTEGER NOT NULL,
    cost_usd REAL NOT NULL,
    wall_seconds REAL NOT NULL,
    PRIMARY KEY (run, suite)
);
CREATE TABLE case_runs (
    run INTEGER NOT NULL,
    suite TEXT NOT NULL,
    case_id TEXT NOT NULL,
    verdict TEXT NOT NULL,
    input_hash TEXT NOT NULL,
    runs INTEGER NOT NULL,
    passed_runs INTEGER NOT NULL,
    cost_usd REAL NOT NULL,
    wall_seconds REAL NOT NULL,
    PRIMARY KEY (run, suite, case_id),
    FOREIGN KEY (run, suite) REFERENCES suite_runs (run, suite)
)
"""

# Schema 2: each rubric item's outcome per case (what flaky items are told by), the suites' run
# latencies, and an index to read one case over time.
SCHEMA_2 = """
CREATE TABLE item_runs (
    run INTEGER NOT NULL,
    suite TEXT NOT NULL,
    case_id TEXT NOT NULL,
    item_id TEXT NOT NULL,
    decided_by TEXT NOT NULL,
    critical INTEGER NOT NULL,
    passed INTEGER NOT NULL,
    scored INTEGER NOT NULL,
    PRIMARY KEY (run, suite, case_id, item_id),
    FOREIGN KEY (run, suite, case_id) REFERENCES case_runs (run, suite, case_id)
);
CREATE INDEX case_runs_by_case ON case_runs (suite, case_id, run);
ALTER TABLE suite_runs ADD COLUMN latency_median REAL;
ALTER TABLE suite_runs ADD COLUMN latency_p95 REAL
"""

MIGRATIONS: tuple[str, ...] = (SCHEMA_1, SCHEMA_2)
SCHEMA_VERSION = len(MIGRATIONS)


def statements(script: str) -> list[str]:
    """The statements of a step (none of ours holds a `;` inside a literal)."""
    return [s.strip() for s in script.split(";") if s.strip()]
