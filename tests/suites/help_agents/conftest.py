"""Put ``suites/help_agents`` on sys.path (``import help_agents``) and load its demo as ``help_agents_demo``."""

import importlib.util
import sys
from pathlib import Path

SUITE_DIR = Path(__file__).resolve().parents[3] / "suites" / "help_agents"
if str(SUITE_DIR) not in sys.path:
    sys.path.insert(0, str(SUITE_DIR))

# Every suite folder has its own `demo.py`: load this one under a name no other suite shares.
if "help_agents_demo" not in sys.modules:
    _spec = importlib.util.spec_from_file_location("help_agents_demo", SUITE_DIR / "demo.py")
    _demo = importlib.util.module_from_spec(_spec)
    sys.modules["help_agents_demo"] = _demo
    _spec.loader.exec_module(_demo)
