"""What running user code in worker processes costs: N cases of a callable target that makes one
model call through its client (the RPC back to the run's client; `echo` makes none) against the loopback fake, as
`evalkit run` (console script, fresh process, wall from start to exit), next to the same run of
another evalkit source tree (`--before DIR`, e.g. `git archive <commit> | tar -x -C DIR`), whose
targets ran in threads of evalkit's own process. Prints medians over --rounds, interleaved.

    python benchmarks/user_code_overhead.py [--cases 1000] [--concurrency 8] [--rounds 5] [--before DIR]
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

SERVER = textwrap.dedent("""
    import sys
    from evalkit.testing.fake_anthropic import FakeAnthropicServer
    from evalkit.testing.script import Script
    fake = FakeAnthropicServer(Script().reply("ok"), latency=float(sys.argv[1])).start()
    print(fake.url, flush=True)
    sys.stdin.read()
""")

TARGET = textwrap.dedent("""
    def echo(i):
        return "ok"

    def agent(i, client):
        return client.complete(f"Say ok to case {i['i']}", max_tokens=64)

    async def async_agent(i, client):
        return await client.complete(f"Say ok to case {i['i']}", max_tokens=64)
""")

# `evalkit run`, from the tree named by EVALKIT_BENCH_SOURCE if set (ahead of an editable install's finder).
CLI = textwrap.dedent("""
    import os, sys
    source = os.environ.pop("EVALKIT_BENCH_SOURCE", "")
    if source:
        sys.meta_path[:] = [f for f in sys.meta_path if not type(f).__module__.startswith("__editable__")]
        sys.path.insert(0, source)
    from evalkit.cli.console import entry
    assert not source or __import__("evalkit").__file__.startswith(source)
    sys.argv[0] = "evalkit"
    entry()
""")


def write_suite(folder: Path, n: int, target: str) -> Path:
    (folder / "bench_target.py").write_text(TARGET)
    lines = ["name: user-code-overhead", f"target: bench_target:{target}", "model: claude-haiku-4-5-20251001", "cases:"]
    lines += [f"  - {{id: c{i}, input: {{i: {i}}}, checks: [{{type: equals, value: ok}}]}}" for i in range(n)]
    path = folder / f"suite_{target}.yml"
    path.write_text("\n".join(lines) + "\n")
    return path


def measure(command: list[str], env: dict[str, str]) -> float:
    t0 = time.perf_counter()
    proc = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        raise SystemExit(f"run failed ({proc.returncode}): {proc.stderr[-2000:]}")
    return wall


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cases", type=int, default=1000)
    ap.add_argument("--concurrency", type=int, default=8)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--latency", type=float, default=0.0)
    ap.add_argument("--before", help="another evalkit source tree to compare with (its folder holding evalkit/)")
    ap.add_argument("--targets", default="echo,agent,async_agent")
    args = ap.parse_args()
    sources = {"this tree": None}
    if args.before:
        sources = {"before": args.before, **sources}
    with tempfile.TemporaryDirectory() as tmp:
        server = subprocess.Popen(
            [sys.executable, "-c", SERVER, str(args.latency)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )
        url = server.stdout.readline().strip()  # type: ignore[union-attr]
        try:
            for target in args.targets.split(","):
                suite = write_suite(Path(tmp), args.cases, target)
                walls: dict[str, list[float]] = {name: [] for name in sources}
                for _ in range(args.rounds):
                    for name, source in sources.items():
                        env = {**os.environ, "ANTHROPIC_API_KEY": "bench", "ANTHROPIC_BASE_URL": url, "CI": "1"}
                        if source:
                            env["EVALKIT_BENCH_SOURCE"] = source
                        command = [
                            sys.executable,
                            "-c",
                            CLI,
                            "run",
                            str(suite),
                            "--no-cache",
                            "--concurrency",
                            str(args.concurrency),
                            "-o",
                            str(Path(tmp) / f"out-{name.replace(' ', '')}.json"),
                        ]
                        walls[name].append(measure(command, env))
                calls = "no model call" if target == "echo" else "one model call each through its client"
                print(
                    f"{args.cases} cases of `{target}` ({calls}), concurrency "
                    f"{args.concurrency}, fake latency {args.latency * 1000:.0f} ms, median of {args.rounds}:"
                )
                medians = {name: statistics.median(w) for name, w in walls.items()}
                for name, wall in medians.items():
                    spread = f"{min(walls[name]):.2f}–{max(walls[name]):.2f}"
                    print(f"  {name:10} wall {wall:6.2f} s  ({spread})  {wall / args.cases * 1e3:6.3f} ms a case")
                if "before" in medians:
                    delta = medians["this tree"] - medians["before"]
                    print(
                        f"  difference {delta:+.2f} s, {delta / args.cases * 1e6:+.0f} µs a case "
                        f"({medians['this tree'] / medians['before']:.2f}×)"
                    )
        finally:
            server.stdin.close()  # type: ignore[union-attr]
            server.wait(timeout=10)


if __name__ == "__main__":
    main()
