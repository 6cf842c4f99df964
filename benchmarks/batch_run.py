"""A `--batch` run at scale: N one-call prompt-target cases sent through the loopback fake's
Message Batches endpoints (create, retrieve, results as JSONL) by the real anthropic client,
with the fake in its own process. Prints the wall time (fresh process, start-up included), the
batches and requests the fake received, the requests sent one by one (none expected) and peak
memory.

The fake ends a batch `--delay` seconds after it is created; the run polls it every
`--poll` seconds (a real batch takes minutes to hours, and evalkit polls it from 5 s up to 60 s).

    python benchmarks/batch_run.py [--cases 10000] [--delay 1] [--poll 0.5]
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
    from evalkit.testing.script import Script
    fake = FakeAnthropicServer(Script().reply("ok"), batch_delay=float(sys.argv[1])).start()
    print(fake.url, flush=True)
    sys.stdin.read()  # until the parent closes our stdin
    print(f"STATS {fake.batches.creates} {fake.batches.batched_requests} {fake.request_count}", flush=True)
""")

HARNESS = textwrap.dedent("""
    import resource, sys
    from pathlib import Path
    from evalkit.llm.batching import PollPolicy, use_batches
    from evalkit.engine import load_suites, make_client, run
    from evalkit.llm.providers.anthropic import AnthropicProvider
    from evalkit.run.runner import RunOptions
    url, suite, poll, out = sys.argv[1], sys.argv[2], float(sys.argv[3]), Path(sys.argv[4])
    client = make_client(AnthropicProvider(api_key="bench", base_url=url), no_cache=True, deprecated=None)
    batcher = use_batches(client, out, poll=PollPolicy(first=poll, factor=1.0, most=poll))
    report = run(load_suites([suite]), client, RunOptions(jsonl_path=out.with_suffix(".jsonl")))
    verdicts = [c.verdict for s in report.suites for c in s.cases]
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"RESULT cases={len(verdicts)} passed={verdicts.count('pass')} calls={report.usage.calls} "
          f"cost=${report.usage.cost_usd:.4f} (batch prices) peak={peak:.0f}MB", flush=True)
""")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cases", type=int, default=10_000)
    ap.add_argument("--delay", type=float, default=1.0, help="seconds the fake takes to end a batch")
    ap.add_argument("--poll", type=float, default=0.5, help="seconds between looks at a batch")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        suite = write_suite(Path(tmp), args.cases)
        server = subprocess.Popen(
            [sys.executable, "-c", SERVER, str(args.delay)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )
        url = server.stdout.readline().strip()  # type: ignore[union-attr]
        try:
            t0 = time.perf_counter()
            out = subprocess.run(
                [sys.executable, "-c", HARNESS, url, str(suite), str(args.poll), str(Path(tmp) / "results.json")],
                capture_output=True,
                text=True,
            )
            wall = time.perf_counter() - t0
        finally:
            server.stdin.close()  # type: ignore[union-attr]
            stats = server.stdout.read()  # type: ignore[union-attr]
            server.wait(timeout=30)
    creates, batched, interactive = (int(x) for x in stats.split()[1:4])
    result = next((ln[7:] for ln in out.stdout.splitlines() if ln.startswith("RESULT ")), out.stderr[-500:])
    print(
        f"{args.cases} one-call cases through Message Batches (fake ends a batch after {args.delay:g} s, "
        f"polled every {args.poll:g} s)"
    )
    print(
        f"  wall {wall:.1f} s (fresh process, start-up included); {creates} batch(es) holding {batched} "
        f"requests, {interactive} requests one by one; {result}"
    )
    os._exit(0)


if __name__ == "__main__":
    main()
