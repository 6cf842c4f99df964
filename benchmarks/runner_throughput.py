"""Throughput of the runner: N one-call cases against the loopback fake, at concurrency C,
next to the floor — a bare `AsyncAnthropic` client making the same calls with no harness.

Two ways of running evalkit: `evalkit run` (the console script as a user runs it, writing its
results JSON) and the engine in process (`engine.run`, which also reads every case back from
the JSONL into the Report it returns). Each measurement is a fresh Python process (so wall time
includes start-up and imports, and peak memory is that process's own); the fake runs in a
process of its own so it does not share the measured process's GIL. Prints medians over --rounds.

    python benchmarks/runner_throughput.py [--cases 1000] [--concurrency 32] [--rounds 3]
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

# Every reply carries `anthropic-ratelimit-*` headers, as the API's do: here a bucket of a million
# requests a minute that no run empties (the client reads them; the bare client ignores them).
SERVER = textwrap.dedent("""
    import sys, time
    from evalkit.testing.fake_anthropic import FakeAnthropicServer
    from evalkit.testing.rate_limit import RateLimit
    from evalkit.testing.script import Script
    fake = FakeAnthropicServer(Script().reply("ok"), latency=float(sys.argv[1]),
                               rate_limit=RateLimit(requests_per_minute=1_000_000)).start()
    print(fake.url, flush=True)
    sys.stdin.read()  # until the parent closes our stdin
""")

HARNESS = textwrap.dedent("""
    import sys
    from evalkit.engine import load_suites, make_client, run
    from evalkit.llm.providers.anthropic import AnthropicProvider
    from evalkit.run.runner import RunOptions
    url, suite, conc = sys.argv[1], sys.argv[2], int(sys.argv[3])
    client = make_client(AnthropicProvider(api_key="bench", base_url=url, max_connections=conc),
                         concurrency=conc, no_cache=True, deprecated=None)
    report = run(load_suites([suite]), client, RunOptions())
    assert report.verdict == "pass", report.verdict
    assert report.usage.calls == sum(len(s.cases) for s in report.suites)
    print(f"LOOP {report.wall_seconds}", flush=True)
""")

FLOOR = textwrap.dedent("""
    import asyncio, sys
    import anthropic
    url, n, conc = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    import time
    async def main():
        t0 = time.perf_counter()
        client = anthropic.AsyncAnthropic(api_key="bench", base_url=url, max_retries=0)
        sem = asyncio.Semaphore(conc)
        async def one(i):
            async with sem:
                m = await client.messages.create(model="claude-haiku-4-5-20251001", max_tokens=64,
                    messages=[{"role": "user", "content": f"Say ok to case {i}"}])
                assert m.content[0].text == "ok"
        await asyncio.gather(*(one(i) for i in range(n)))
        await client.close()
        print(f"LOOP {time.perf_counter() - t0}", flush=True)
    asyncio.run(main())
""")


def measure(code: str, *args: str) -> tuple[float, float, float]:
    """Wall seconds (process start to exit), seconds in the event loop, and peak RSS in MB."""
    return measure_command([sys.executable, "-c", code, *args])


def measure_command(command: list[str], env: dict[str, str] | None = None) -> tuple[float, float, float]:
    """As measure(), for any command; the loop's seconds are NaN when it prints no `LOOP` line."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env)
    out = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"benchmark child failed ({os.waitstatus_to_exitcode(status)}): {command[:4]}")
    loop = next((float(line.split()[1]) for line in out.splitlines() if line.startswith("LOOP ")), float("nan"))
    return wall, loop, usage.ru_maxrss / 1024


def cli_command(suite: Path, out: Path, concurrency: int) -> list[str]:
    """`evalkit run` through the console script installed beside this interpreter."""
    evalkit = str(Path(sys.executable).parent / "evalkit")
    return [evalkit, "run", str(suite), "--no-cache", "--concurrency", str(concurrency), "-o", str(out)]


def write_suite(folder: Path, n: int) -> Path:
    lines = [
        "name: throughput",
        "target: {prompt: 'Say ok to case {{ i }}'}",
        "model: claude-haiku-4-5-20251001",
        "max_tokens: 64",
        "cases:",
    ]
    lines += [f"  - {{id: c{i}, input: {{i: {i}}}, checks: [{{type: equals, value: ok}}]}}" for i in range(n)]
    path = folder / "suite.yml"
    path.write_text("\n".join(lines) + "\n")
    return path


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cases", type=int, default=1000)
    ap.add_argument("--concurrency", type=int, default=32)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--latencies", default="0,0.2")
    args = ap.parse_args()
    n, c = args.cases, args.concurrency
    with tempfile.TemporaryDirectory() as tmp:
        suite = write_suite(Path(tmp), n)
        print(f"{n} one-call cases, concurrency {c}, median of {args.rounds} rounds (wall includes start-up)")
        for latency in [float(x) for x in args.latencies.split(",")]:
            server = subprocess.Popen(
                [sys.executable, "-c", SERVER, str(latency)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
            )
            url = server.stdout.readline().strip()
            env = {**os.environ, "ANTHROPIC_API_KEY": "bench", "ANTHROPIC_BASE_URL": url, "CI": "1"}
            try:
                rows: dict[str, list[tuple[float, float, float]]] = {
                    "evalkit run": [],
                    "engine.run": [],
                    "bare client": [],
                }
                for _ in range(args.rounds):  # interleaved, so a busy minute weighs on all three
                    rows["evalkit run"].append(measure_command(cli_command(suite, Path(tmp) / "out.json", c), env))
                    rows["engine.run"].append(measure(HARNESS, url, str(suite), str(c)))
                    rows["bare client"].append(measure(FLOOR, url, str(n), str(c)))
            finally:
                server.stdin.close()
                server.wait(timeout=10)
            ideal = n * latency / c
            floor_wall = statistics.median(s[0] for s in rows["bare client"])
            print(f"\nfake latency {latency * 1000:.0f} ms (ideal N×latency/concurrency = {ideal:.2f} s)")
            for name, samples in rows.items():
                wall = statistics.median(s[0] for s in samples)
                loop = statistics.median(s[1] for s in samples)
                mem = statistics.median(s[2] for s in samples)
                vs_ideal = f"wall {wall / ideal:.2f}× ideal" if ideal else ""
                in_loop = f"(loop {loop:5.2f} s)" if loop == loop else " " * 14
                print(
                    f"  {name:12} wall {wall:6.2f} s {in_loop}  {n / wall:6.1f} cases/s  "
                    f"peak {mem:4.0f} MB  {wall / floor_wall:.2f}× floor wall  {vs_ideal}"
                )


if __name__ == "__main__":
    main()
