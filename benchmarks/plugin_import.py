"""Import cost of evalkit's pytest plugin: what every pytest session of a user pays.

Each measurement is a fresh interpreter (median of N runs): bare `python -c pass`, `import
pytest`, and `import pytest, evalkit.pytest_plugin`; the plugin's own cost is the difference of
the last two, and also read from `-X importtime` (less noisy). Also lists heavy modules the plugin import pulled in (should be none).

    python benchmarks/plugin_import.py [--runs 15]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time

HEAVY = ("anthropic", "jinja2", "httpx", "pydantic", "yaml", "evalkit.engine", "evalkit.engine.agent_client")


def timed(code: str, runs: int) -> float:
    samples = []
    for _ in range(runs):
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], check=True)
        samples.append(time.perf_counter() - t0)
    return statistics.median(samples) * 1000


def importtime_us(runs: int) -> float:
    """Median of `-X importtime`'s cumulative microseconds for evalkit.pytest_plugin (pytest preloaded)."""
    samples = []
    for _ in range(runs):
        err = subprocess.run(
            [sys.executable, "-X", "importtime", "-c", "import pytest, evalkit.pytest_plugin"],
            check=True,
            capture_output=True,
            text=True,
        ).stderr
        cumulative = [
            int(line.split("|")[1]) for line in err.splitlines() if line.rstrip().endswith("evalkit.pytest_plugin")
        ]
        samples.append(cumulative[-1] if cumulative else 0)
    return statistics.median(samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    runs = parser.parse_args().runs
    timed("import pytest, evalkit.pytest_plugin", 2)  # warm the file system cache
    bare = timed("pass", runs)
    with_pytest = timed("import pytest", runs)
    with_plugin = timed("import pytest, evalkit.pytest_plugin", runs)
    heavy = json.loads(
        subprocess.run(
            [
                sys.executable,
                "-c",
                f"import sys, json, evalkit.pytest_plugin; "
                f"print(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))",
            ],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
    )
    anthropic = timed("import anthropic", max(3, runs // 3))
    print(f"median of {runs} fresh interpreters:")
    print(f"  python -c pass                          {bare:7.1f} ms")
    print(f"  import pytest                           {with_pytest:7.1f} ms")
    print(f"  import pytest, evalkit.pytest_plugin    {with_plugin:7.1f} ms")
    print(f"  plugin's own cost (difference)          {with_plugin - with_pytest:7.1f} ms")
    print(f"  plugin's own cost (-X importtime)       {importtime_us(runs) / 1000:7.1f} ms")
    print(f"  (for scale) import anthropic            {anthropic:7.1f} ms")
    print(f"heavy modules imported by the plugin: {', '.join(heavy) or 'none'}")


if __name__ == "__main__":
    main()
