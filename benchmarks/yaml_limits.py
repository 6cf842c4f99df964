"""Print how long refusing a billion-laughs YAML file takes, and the peak memory of the process.

.venv/bin/python benchmarks/yaml_limits.py
"""

from __future__ import annotations

import resource
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "suite"))
from test_yaml_limits import alias_bomb  # noqa: E402  (the same file the test refuses)

from evalkit.suite.yaml_reader import read_yaml  # noqa: E402

with tempfile.TemporaryDirectory() as tmp:
    path = Path(tmp) / "bomb.yml"
    path.write_text(alias_bomb())
    t0 = time.perf_counter()
    try:
        read_yaml(path)
    except ValueError as exc:
        print(f"refused: {exc}")
    print(
        f"alias bomb refused in {time.perf_counter() - t0:.3f} s; "
        f"peak memory {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB"
    )
