"""Seed 003's conftest: the marker, the skip logic, `load_fixtures`, `llm_judge` and
`run_checks` come with evalkit (`from evalkit import ...`); this file only puts the
agents' package (`suites/help_agents/help_agents`) on the import path."""

import sys
from pathlib import Path

_SUITE_DIR = str(Path(__file__).resolve().parent.parent)
if _SUITE_DIR not in sys.path:
    sys.path.insert(0, _SUITE_DIR)
