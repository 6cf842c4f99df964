"""Put ``suites/help_agents`` on sys.path so ``import help_agents`` and ``import demo`` work here."""

import sys
from pathlib import Path

pytest_plugins = ["pytester"]

SUITE_DIR = Path(__file__).resolve().parents[3] / "suites" / "help_agents"
if str(SUITE_DIR) not in sys.path:
    sys.path.insert(0, str(SUITE_DIR))
