"""Finish of `evalkit run`: N one-call cases through the console script against the loopback fake
(0 ms), timed from spawn to exit, with the quick exit (the default) and with the interpreter's
full teardown (EVALKIT_SLOW_EXIT=1), interleaved. Prints medians over --rounds.

    python benchmarks/cli_exit.py [--cases 1000] [--rounds 3]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from runner_throughput import SERVER, write_suite  # noqa: E402 - the same suite and fake

EVALKIT = str(Path(sys.executable).parent / "evalkit")  # the console script, as a user runs it


def timed(env: dict[str, str], suite: Path, out: Path) -> float:
    t0 = time.perf_counter()
    proc = subprocess.run([EVALKIT, "run", str(suite), "--no-cache", "--concurrency", "32", "-o", str(out)],
                          env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if proc.returncode != 0 or not out.exists():
        raise SystemExit(f"evalkit run failed ({proc.returncode}):\n{proc.stderr[-2000:]}")
    return wall


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cases", type=int, default=1000)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    server = subprocess.Popen([sys.executable, "-c", SERVER, "0"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              text=True)
    url = server.stdout.readline().strip()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            suite = write_suite(Path(tmp), args.cases)
            env = {**os.environ, "ANTHROPIC_API_KEY": "bench", "ANTHROPIC_BASE_URL": url, "CI": "1"}
            quick, slow = [], []
            for i in range(args.rounds):
                quick.append(timed(env, suite, Path(tmp) / f"q{i}.json"))
                slow.append(timed({**env, "EVALKIT_SLOW_EXIT": "1"}, suite, Path(tmp) / f"s{i}.json"))
    finally:
        server.stdin.close()
        server.wait(timeout=10)
    q, s = statistics.median(quick), statistics.median(slow)
    print(f"{args.cases} one-call cases through `evalkit run`, medians of {args.rounds}:")
    print(f"  quick exit     {q:.2f} s wall")
    print(f"  full teardown  {s:.2f} s wall   (quick exit saves {s - q:.2f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
