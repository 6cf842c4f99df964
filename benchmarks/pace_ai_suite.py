"""Benchmark: the whole pace-ai suite (19 scenario/counterfactual cases + 15 consistency cases x 3) through
the real anthropic client against the loopback Messages-API fake answering after a fixed
latency (default 2 s per call), compared with the design document's estimate of 60-90 s for
~20 sequential tests.

    python benchmarks/pace_ai_suite.py [--latency 2] [--concurrency N] [--rpm 1000] [--itpm T]

The fake server runs in its own thread (its handler threads sleep the latency, so calls in
flight overlap as they would against the API); evalkit's client bounds calls in flight with
--concurrency (default: evalkit's own default). The fake meters requests as the API does
(`--rpm` a minute, Anthropic's tier 2 by default; `--itpm` input tokens a minute, none by default)
and sends the `anthropic-ratelimit-*` headers the adaptive concurrency reads; `--rpm 0` sends none.
Prints wall time, calls by role, 429s met, and the comparison.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import time
from collections import Counter
from pathlib import Path

from evalkit.limits import DEFAULT_CONCURRENCY

ROOT = Path(__file__).resolve().parents[1]
SUITE_DIR = ROOT / "suites" / "pace_ai"
DOC_ESTIMATE_S = (60, 90)
DOC_TESTS = 20


def _demo():
    spec = importlib.util.spec_from_file_location("pace_ai_demo", SUITE_DIR / "demo.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _role(body: dict) -> str:
    tool = (body.get("tool_choice") or {}).get("name")
    return {
        "record_verdicts": "judge",
        "record_fields": "extraction",
        "record_verdicts_and_fields": "judge+extraction",
    }.get(tool, "target")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, default=2.0, help="seconds the fake takes per call")
    parser.add_argument(
        "--concurrency",
        type=int,
        default=DEFAULT_CONCURRENCY,
        help=f"model calls in flight (evalkit's default {DEFAULT_CONCURRENCY})",
    )
    parser.add_argument("--rpm", type=float, default=1000, help="requests a minute the fake allows (0: no limit)")
    parser.add_argument("--itpm", type=float, default=None, help="input tokens a minute the fake allows")
    parser.add_argument("--variant", choices=("pass", "fail"), default="pass")
    args = parser.parse_args()

    from evalkit.engine import load_suites, make_client, run
    from evalkit.llm.providers.anthropic import AnthropicProvider
    from evalkit.run.runner import RunOptions
    from evalkit.testing.fake_anthropic import FakeAnthropicServer
    from evalkit.testing.rate_limit import RateLimit

    suites = load_suites([SUITE_DIR])
    cases = suites[0].cases
    runs = sum(c.repeats for c in cases)
    limit = RateLimit(args.rpm, input_tokens_per_minute=args.itpm) if args.rpm else None
    with FakeAnthropicServer(_demo().script(args.variant), latency=args.latency, rate_limit=limit) as fake:
        client = make_client(
            AnthropicProvider(api_key="bench", base_url=fake.url),
            concurrency=args.concurrency,
            no_cache=True,
            deprecated=None,
        )
        t0 = time.perf_counter()
        report = run(suites, client, RunOptions())
        wall = time.perf_counter() - t0
        roles = Counter(_role(b) for b in fake.requests)
    calls = sum(roles.values())
    suite = report.suites[0]
    scenario = sum(1 for c in cases if c.repeats == 1)
    print(
        f"pace_ai suite: {len(cases)} cases ({scenario} scenario + {len(cases) - scenario} consistency x3), "
        f"{runs} runs, verdict {report.verdict}"
    )
    print(
        f"fake latency {args.latency:g} s/call, concurrency {args.concurrency}, "
        f"{f'{args.rpm:g} requests a minute' if args.rpm else 'no rate limit'}"
        f"{f', {args.itpm:g} input tokens a minute' if args.itpm else ''}; 429s: {report.rate_limit.rejected}"
    )
    print(f"wall time: {wall:.1f} s")
    print(
        f"model calls: {calls} (target {roles['target']}, judge and extraction in one call "
        f"{roles['judge+extraction']}, judge {roles['judge']}, extraction {roles['extraction']}); "
        f"shared in-run: {report.usage.cache_hits}"
    )
    print(
        f"cases passed: {suite.count('pass')}/{len(suite.cases)}; comparisons passed: "
        f"{sum(c.status == 'pass' for c in suite.comparisons)}/{len(suite.comparisons)}"
    )
    sequential = calls * args.latency
    print(f"the same calls one after another: {sequential:.0f} s")
    lo, hi = DOC_ESTIMATE_S
    print(f"design document: ~{DOC_TESTS} sequential tests, {lo}-{hi} s (2-5 s per test)")
    print(
        f"this run: {wall:.1f} s = {wall / hi:.2f}-{wall / lo:.2f} x the estimate, "
        f"with {calls} calls ({calls / DOC_TESTS:.1f} per document test)"
    )
    return 0 if report.verdict in ("pass", "fail") else 1


if __name__ == "__main__":
    sys.exit(main())
