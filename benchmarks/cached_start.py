"""Start and finish of `evalkit run` on both bundled suites (suites/pace_ai, suites/help_agents)
when every request is served from the response cache, and when none is.

A loopback fake of the Messages API answers with the demo's scripted replies; a first run
fills a fresh cache; then each measured run is a fresh `evalkit run` process, timed
from spawn to exit. Cached runs are also checked for calls made (must be 0) and for whether
`anthropic` was imported (`-X importtime`). Prints medians over --rounds.

    python benchmarks/cached_start.py [--rounds 5]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EVALKIT = str(Path(sys.executable).parent / "evalkit")  # the console script, as a user runs it
SUITES = [str(ROOT / "suites" / "pace_ai"), str(ROOT / "suites" / "help_agents")]


def evalkit_run(env: dict[str, str], out: Path, *extra: str) -> tuple[float, subprocess.CompletedProcess[str]]:
    t0 = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, *extra, EVALKIT, "run", *SUITES, "-o", str(out)],
        env=env,
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    wall = time.perf_counter() - t0
    if proc.returncode not in (0, 1):
        raise SystemExit(f"evalkit run failed ({proc.returncode}):\n{proc.stderr[-2000:]}")
    return wall, proc


def calls(out: Path) -> int:
    return json.loads(out.read_text(encoding="utf-8"))["usage"]["calls"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()

    from evalkit.cli.demo import DEMO_BASE, bundled_suites_dir, demo_plan
    from evalkit.testing.fake_anthropic import FakeAnthropicServer
    from evalkit.testing.script import Script

    script = Script()
    for _, part in demo_plan(bundled_suites_dir(), DEMO_BASE):
        script.extend(part)
    with FakeAnthropicServer(script) as fake, tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        env = {
            **os.environ,
            "ANTHROPIC_API_KEY": "bench",
            "ANTHROPIC_BASE_URL": fake.url,
            "EVALKIT_CACHE_DIR": str(work / "cache"),
            "CI": "1",
        }
        cold_env = {**env, "EVALKIT_CACHE_DIR": str(work / "cold")}
        _, first = evalkit_run(env, work / "fill.json")
        filled = calls(work / "fill.json")
        cached, uncached = [], []
        for i in range(args.rounds):  # interleaved, so a busy moment hits both alike
            wall, _ = evalkit_run(env, work / f"cached{i}.json")
            assert calls(work / f"cached{i}.json") == 0, "a cached re-run called the model"
            cached.append(wall)
            wall, _ = evalkit_run({**cold_env, "EVALKIT_CACHE_DIR": str(work / f"cold{i}")}, work / f"cold{i}.json")
            uncached.append(wall)
        _, traced = evalkit_run(env, work / "traced.json", "-X", "importtime")
        imported = any(line.rstrip().endswith("| anthropic") for line in traced.stderr.splitlines())
    print(f"both bundled suites ({filled} model calls when nothing is cached), medians of {args.rounds}:")
    print(
        f"  fully cached re-run : {statistics.median(cached):.2f} s wall (min {min(cached):.2f}), "
        f"0 calls, anthropic imported: {'yes' if imported else 'no'}"
    )
    print(f"  empty cache (0 ms)  : {statistics.median(uncached):.2f} s wall (min {min(uncached):.2f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
