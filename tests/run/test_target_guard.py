"""Targets and checks that misbehave become error rows; the rest of the run completes."""

from __future__ import annotations

import asyncio
import time

import pytest

from evalkit.testing.script import Script

TARGETS = """
import asyncio, sys, time

def exits(i):
    if i["n"] == 2:
        sys.exit(3)
    return f"hello {i['n']}"

def hangs(i):
    if i["n"] == 2:
        time.sleep(3600)
    return f"hello {i['n']}"

async def hangs_async(i):
    if i["n"] == 2:
        await asyncio.sleep(3600)
    return f"hello {i['n']}"

async def interrupts(i):
    if i["n"] == 2:
        raise KeyboardInterrupt
    return f"hello {i['n']}"

def closes(i):
    if i["n"] == 2:
        raise GeneratorExit
    return f"hello {i['n']}"

def returns_none(i):
    return None if i["n"] == 2 else f"hello {i['n']}"

def returns_int(i):
    return 5 if i["n"] == 2 else f"hello {i['n']}"

def raises(i):
    def deeper():
        raise ValueError("bad input")
    if i["n"] == 2:
        deeper()
    return f"hello {i['n']}"

def echo(i):
    return f"hello {i['n']}"

def backtracks(i):
    return "a" * 40 + "!" if i["n"] == 2 else "hello"

async def own_timeout(i):
    if i["n"] == 2:
        await asyncio.wait_for(asyncio.sleep(3600), 0.01)  # the target's own deadline, not the suite's
    return f"hello {i['n']}"
"""

PLUGIN = """
import time
from evalkit import Check, register_check

@register_check
class Slow(Check):
    type = "slow"
    def evaluate(self, ctx):
        if "2" in ctx.text:
            time.sleep(3600)
        return True
"""


def suite(write, target: str, check: str = "{type: contains, value: hello}", extra: str = "") -> object:
    write("guard_targets.py", TARGETS)
    return write(
        "s.yml",
        f"""
        target: guard_targets:{target}
        timeout: {{target: 5, check: 5}}  # 5 s: a quick case on a loaded CI machine stays well inside
        {extra}
        cases:
          - {{id: a, input: {{n: 1}}, checks: [{check}]}}
          - {{id: b, input: {{n: 2}}, checks: [{check}]}}
          - {{id: c, input: {{n: 3}}, checks: [{check}]}}
        """,
    )


@pytest.mark.parametrize(
    "target, error",
    [
        ("exits", "target called sys.exit(3)"),
        ("interrupts", "target raised KeyboardInterrupt"),
        ("closes", "target raised GeneratorExit"),
        ("hangs", "target timed out after 5 s"),
        ("hangs_async", "target timed out after 5 s"),
        ("returns_none", "target returned None; expected text"),
        ("returns_int", "target returned int; expected text"),
        ("raises", "target raised ValueError: bad input"),
        ("own_timeout", "target raised TimeoutError"),
    ],
)
def test_a_misbehaving_target_is_one_error_row(write, run_scripted, target, error):
    t0 = time.perf_counter()
    report = run_scripted(suite(write, target), Script())
    cases = {c.id: c for c in report.suites[0].cases}
    assert {k: c.verdict for k, c in cases.items()} == {"a": "pass", "b": "error", "c": "pass"}
    assert cases["b"].runs[0].error.startswith(error)
    assert time.perf_counter() - t0 < 60  # a hang guard: the timeout is 5 s


def test_a_traceback_is_kept_with_the_users_frames_only(write, run_scripted):
    report = run_scripted(suite(write, "raises"), Script())
    tb = report.suites[0].cases[1].runs[0].traceback
    assert 'guard_targets.py", line' in tb and "in deeper" in tb and tb.endswith("ValueError: bad input")
    assert "evalkit" not in tb and "asyncio" not in tb


def test_catastrophic_regex_is_an_error_row(write, run_scripted):
    report = run_scripted(suite(write, "backtracks", check='{type: regex, pattern: "^(a|aa)+$"}'), Script())
    cases = {c.id: c for c in report.suites[0].cases}
    assert cases["b"].verdict == "error"
    assert "took over 1 s (catastrophic backtracking?)" in cases["b"].runs[0].items[0].reason
    assert cases["a"].verdict == cases["c"].verdict == "fail"  # decided: no match


def test_a_hanging_plugin_check_times_out(write, run_scripted):
    write("slowcheck.py", PLUGIN)
    t0 = time.perf_counter()
    report = run_scripted(suite(write, "echo", check="{type: slow}", extra="plugins: [slowcheck]"), Script())
    cases = {c.id: c for c in report.suites[0].cases}
    assert {k: c.verdict for k, c in cases.items()} == {"a": "pass", "b": "error", "c": "pass"}
    assert cases["b"].runs[0].items[0].reason == "check timed out: slow took over 5 s"
    assert time.perf_counter() - t0 < 30  # a hang guard


def test_sys_exit_in_a_target_through_the_cli_is_an_error_row_and_the_results_are_complete(write, tmp_path):
    import json
    import os
    import subprocess
    import sys
    from pathlib import Path

    path = suite(write, "exits")
    out = tmp_path / "out" / "results.json"
    proc = subprocess.run(
        [str(Path(sys.executable).parent / "evalkit"), "run", str(path), "-o", str(out)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
        env={**os.environ, "ANTHROPIC_API_KEY": "test-key", "CI": "true", "EVALKIT_CACHE_DIR": str(tmp_path / "cache")},
    )
    assert proc.returncode == 1, proc.stdout + proc.stderr  # the gates' verdict, not the target's 3
    assert "Traceback" not in proc.stderr and "target called sys.exit(3)" in proc.stderr
    cases = {c["id"]: c for c in json.loads(out.read_text())["suites"][0]["cases"]}
    assert {k: c["verdict"] for k, c in cases.items()} == {"a": "pass", "b": "error", "c": "pass"}
    assert cases["b"]["runs"][0]["error"] == "target called sys.exit(3)"
    assert len(out.with_suffix(".jsonl").read_text().splitlines()) >= 3  # every finished case streamed


def test_a_quick_job_never_waits_behind_a_hung_one_in_the_daemon_pool():
    # The race a loaded CI machine hit: one idle worker, a job that hangs and a quick job
    # submitted back to back. Counting the idle worker as free for both queued the quick job
    # behind the hung one, so its case timed out too.
    import threading

    from evalkit._runtime.user_calls import DaemonPool

    for _ in range(20):
        pool, release = DaemonPool(4, "test-pool"), threading.Event()
        pool.submit(lambda: None).result(timeout=60)
        while pool._idle != 1:  # the warm worker is back, waiting for a job
            time.sleep(0.001)
        pool.submit(release.wait)
        quick = pool.submit(lambda: "done")
        try:
            assert quick.result(timeout=60) == "done"
        finally:
            release.set()
            pool.shutdown()


def test_an_abandoned_worker_is_replaced_for_the_jobs_already_queued():
    import threading

    from evalkit._runtime.user_calls import DaemonPool

    pool, release = DaemonPool(1, "test-pool"), threading.Event()
    pool.submit(release.wait)
    quick = pool.submit(lambda: "done")  # the one worker is taken: this one waits
    pool.abandon()  # the hung call timed out: its worker no longer counts
    try:
        assert quick.result(timeout=60) == "done"
    finally:
        release.set()
        pool.shutdown()


def test_a_prompt_targets_model_call_past_the_deadline_is_an_error_row_and_the_run_goes_on(write):
    from evalkit.engine import load_suites, make_client, run
    from evalkit.run.runner import RunOptions
    from evalkit.testing.scripted import ScriptedProvider

    path = write(
        "p.yml",
        """
        target: {prompt: "Say {{ w }}"}
        timeout: {target: 2}
        cases:
          - {id: slow, input: {w: slow}, checks: [{type: contains, value: ok}]}
          - {id: quick, input: {w: quick}, checks: [{type: contains, value: ok}]}
        """,
    )

    class SlowOnce(ScriptedProvider):
        async def generate(self, request):
            if "slow" in str(request.messages):
                await asyncio.sleep(600)
            return await super().generate(request)

    t0 = time.perf_counter()
    client = make_client(SlowOnce(Script().reply("ok")), no_cache=True, deprecated=None)
    report = run(load_suites([path]), client, RunOptions())
    cases = {c.id: c for c in report.suites[0].cases}
    assert cases["slow"].verdict == "error" and cases["quick"].verdict == "pass"
    assert cases["slow"].runs[0].error.startswith("target timed out after 2 s")
    assert time.perf_counter() - t0 < 120  # a hang guard: not the 600 s the slow call would take
