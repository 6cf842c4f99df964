"""Peak memory of a large run: `evalkit run` (the console script, as a user runs it: cases stream
to the JSONL, the results JSON is assembled from it) on N one-call cases against the loopback fake,
next to the floor (a bare `AsyncAnthropic` client making the same calls, from
runner_throughput.py) and to what loading the suite file alone costs.

Each measurement is a fresh process; peak memory is its ru_maxrss. Prints medians over --rounds.

    python benchmarks/results_memory.py [--cases 20000,100000] [--concurrency 32] [--rounds 3]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from runner_throughput import FLOOR, SERVER, write_suite  # noqa: E402 - the same fake, suite and floor

EVALKIT = str(Path(sys.executable).parent / "evalkit")  # the console script beside this interpreter
LOAD_ONLY = textwrap.dedent("""
    import sys
    from evalkit.engine import load_suites
    suites = load_suites([sys.argv[1]])
    print(f"LOOP 0 {sum(len(s.cases) for s in suites)}", flush=True)
""")


def measure(command: list[str], env: dict[str, str] | None = None) -> tuple[float, float]:
    """Wall seconds and peak RSS in MB of one process."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"benchmark child failed ({os.waitstatus_to_exitcode(status)}): {command[:3]}")
    return wall, usage.ru_maxrss / 1024


def check_results(out: Path, n: int) -> None:
    """The run passed with n calls, read in a child process: a parent holding a large report would
    pass its peak memory on to every process it starts next (Linux keeps the high-water mark of
    the memory a child is spawned from), and the figures after it would be its own."""
    code = (
        "import json, sys; r = json.load(open(sys.argv[1])); "
        "sys.exit(0 if r['verdict'] == 'pass' and r['usage']['calls'] == int(sys.argv[2]) else 1)"
    )
    if subprocess.run([sys.executable, "-c", code, str(out), str(n)]).returncode != 0:
        raise SystemExit(f"the run of {n} cases did not pass with {n} calls: see {out}")


def finished_cases(jsonl: Path) -> int:
    with jsonl.open("rb") as f:
        return sum(1 for line in f if b', "case": ' in line)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cases", default="20000,100000")
    ap.add_argument("--concurrency", type=int, default=32)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    c = args.concurrency
    server = subprocess.Popen(
        [sys.executable, "-c", SERVER, "0"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    url = server.stdout.readline().strip()  # type: ignore[union-attr]
    env = {**os.environ, "ANTHROPIC_API_KEY": "bench", "ANTHROPIC_BASE_URL": url, "CI": "1"}
    print(f"one-call cases against the loopback fake (0 ms), concurrency {c}, median of {args.rounds} rounds")
    try:
        for n in [int(x) for x in args.cases.split(",")]:
            with tempfile.TemporaryDirectory() as tmp:
                suite, out = write_suite(Path(tmp), n), Path(tmp) / "out.json"
                rows: dict[str, list[tuple[float, float]]] = {"evalkit run": [], "bare client": [], "suite load": []}
                for _ in range(args.rounds):
                    rows["evalkit run"].append(
                        measure(
                            [EVALKIT, "run", str(suite), "-o", str(out), "--no-cache", "--concurrency", str(c)], env
                        )
                    )
                    check_results(out, n)
                    assert finished_cases(out.with_suffix(".jsonl")) == n
                    rows["bare client"].append(measure([sys.executable, "-c", FLOOR, url, str(n), str(c)]))
                    rows["suite load"].append(measure([sys.executable, "-c", LOAD_ONLY, str(suite)]))
            floor = statistics.median(s[1] for s in rows["bare client"])
            floor_wall = statistics.median(s[0] for s in rows["bare client"])
            print(f"\n{n:,} cases")
            for name, samples in rows.items():
                wall = statistics.median(s[0] for s in samples)
                mem = statistics.median(s[1] for s in samples)
                print(
                    f"  {name:12} wall {wall:7.1f} s ({wall / floor_wall:.3f}× the floor's)  peak {mem:6.0f} MB "
                    f"({mem / floor:.2f}× the floor's)  samples: {', '.join(f'{s[0]:.1f}' for s in samples)} s; "
                    f"{', '.join(f'{s[1]:.0f}' for s in samples)} MB"
                )
    finally:
        server.stdin.close()  # type: ignore[union-attr]
        server.wait(timeout=30)


if __name__ == "__main__":
    main()
