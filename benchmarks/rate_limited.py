"""A run against a rate limit: N one-call cases at concurrency ceiling C against the loopback
fake metering requests with a token bucket (R requests a minute, bucket capacity B), next to
the floor: a bare `AsyncAnthropic` client with the SDK's own retries (which honour
`retry-after`) at the same concurrency.

The ideal time is what a client sending at exactly the limit needs: (N - B) / (R / 60).
Each measurement gets a fresh fake (a full bucket) and a fresh Python process.

    python benchmarks/rate_limited.py [--cases 1000] [--concurrency 64] [--rpm 600] [--burst 600]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from runner_throughput import write_suite  # noqa: E402 - the same one-call suite

SERVER = textwrap.dedent("""
    import sys
    from evalkit.testing.fake_anthropic import FakeAnthropicServer
    from evalkit.testing.rate_limit import RateLimit
    from evalkit.testing.script import Script
    limit = RateLimit(float(sys.argv[1]), burst=float(sys.argv[2]))
    fake = FakeAnthropicServer(Script().reply("ok"), latency=float(sys.argv[3]), rate_limit=limit).start()
    print(fake.url, flush=True)
    sys.stdin.read()  # until the parent closes our stdin
    print(f"STATS {limit.accepted} {limit.rejected}", flush=True)
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
    s = client.limiter.stats
    errors = sum(c.verdict == "error" for su in report.suites for c in su.cases)
    print(f"RESULT errors={errors} paused={s.paused_seconds:.1f}s min_window={client.limiter.min_window} paced={s.paced}",
          flush=True)
""")

FLOOR = textwrap.dedent("""
    import asyncio, sys
    import anthropic
    url, n, conc = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    async def main():
        client = anthropic.AsyncAnthropic(api_key="bench", base_url=url)  # the SDK's default retries
        sem = asyncio.Semaphore(conc)
        failed = 0
        async def one(i):
            nonlocal failed
            async with sem:
                try:
                    await client.messages.create(model="claude-haiku-4-5-20251001", max_tokens=64,
                        messages=[{"role": "user", "content": f"Say ok to case {i}"}])
                except anthropic.RateLimitError:
                    failed += 1
        await asyncio.gather(*(one(i) for i in range(n)))
        await client.close()
        print(f"RESULT errors={failed} (calls that gave up after the SDK's retries)", flush=True)
    asyncio.run(main())
""")


def measure(code: str, rpm: float, burst: float, latency: float, *args: str) -> tuple[float, int, int, str]:
    server = subprocess.Popen(
        [sys.executable, "-c", SERVER, str(rpm), str(burst), str(latency)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    url = server.stdout.readline().strip()
    try:
        t0 = time.perf_counter()
        out = subprocess.run([sys.executable, "-c", code, url, *args], capture_output=True, text=True, check=True)
        wall = time.perf_counter() - t0
    finally:
        server.stdin.close()
        stats = server.stdout.read()
        server.wait(timeout=10)
    accepted, rejected = (int(x) for x in stats.split()[1:3])
    result = next((ln[7:] for ln in out.stdout.splitlines() if ln.startswith("RESULT ")), out.stderr[-300:])
    return wall, accepted, rejected, result


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cases", type=int, default=1000)
    ap.add_argument("--concurrency", type=int, default=64)
    ap.add_argument("--rpm", type=float, default=600)
    ap.add_argument("--burst", type=float, default=None, help="bucket capacity (default: the rpm, as Anthropic's)")
    ap.add_argument("--latency", type=float, default=0.2)
    ap.add_argument("--no-floor", action="store_true")
    args = ap.parse_args()
    burst = args.burst if args.burst is not None else args.rpm
    n, c = args.cases, args.concurrency
    ideal = max(0.0, n - burst) / (args.rpm / 60)
    print(
        f"{n} one-call cases, ceiling {c}, limit {args.rpm:g} requests/min (bucket {burst:g}), "
        f"fake latency {args.latency * 1000:.0f} ms; ideal {ideal:.1f} s"
    )
    with tempfile.TemporaryDirectory() as tmp:
        suite = write_suite(Path(tmp), n)
        runs = [("evalkit", HARNESS, str(suite))] + ([] if args.no_floor else [("bare client", FLOOR, str(n))])
        for name, code, what in runs:
            wall, accepted, rejected, result = measure(code, args.rpm, burst, args.latency, what, str(c))
            sent = accepted + rejected
            print(
                f"  {name:12} wall {wall:6.1f} s = {wall / ideal if ideal else 0:.2f}× ideal; "
                f"{sent} requests, {rejected} rejected ({rejected / max(sent, 1):.1%}); {result}"
            )
    os._exit(0)


if __name__ == "__main__":
    main()
