"""Put ``suites/pace_ai`` on sys.path so ``import pace_ai`` works in these tests."""

import sys
from pathlib import Path

_SUITE_DIR = Path(__file__).resolve().parents[3] / "suites" / "pace_ai"
if str(_SUITE_DIR) not in sys.path:
    sys.path.insert(0, str(_SUITE_DIR))
