"""A call's timeout is the call's own: the seconds a fresh worker process takes to start do not count."""

from __future__ import annotations

import time

from evalkit.testing.script import Script

QUICK_CHECK = """
from evalkit import Check, register_check

@register_check
class Quick(Check):
    type = "quick"
    def evaluate(self, ctx):
        return True, "at once"
"""

# Imported by every Python that starts with this folder on its path: here, only the run's workers.
SLOW_START = """
import time
time.sleep(2.5)
"""


def test_a_slow_worker_start_does_not_count_against_a_short_check_timeout(write, run_scripted, tmp_path, monkeypatch):
    write("quick_checks.py", QUICK_CHECK)
    write("slow_site/sitecustomize.py", SLOW_START)
    path = write(
        "s.yml",
        """
        target: {prompt: "Say hi"}
        plugins: [quick_checks]
        timeout: {check: 1}
        cases:
          - {id: a, input: {}, checks: [{type: quick}]}
          - {id: b, input: {}, checks: [{type: quick}]}
        """,
    )
    monkeypatch.setenv("PYTHONPATH", str(tmp_path / "slow_site"))
    t0 = time.perf_counter()
    report = run_scripted(path, Script().reply("hi"))
    assert time.perf_counter() - t0 > 2.5  # the workers did start slowly
    cases = {c.id: c for c in report.suites[0].cases}
    assert {k: c.verdict for k, c in cases.items()} == {"a": "pass", "b": "pass"}, [
        c.runs[0].items[0].reason for c in cases.values()
    ]
    assert cases["a"].runs[0].items[0].reason == "at once"


def test_a_worker_that_never_comes_up_fails_its_calls_saying_so(write, run_scripted, tmp_path, monkeypatch):
    from evalkit.workers import pool

    write("quick_checks.py", QUICK_CHECK)
    write("hung_site/sitecustomize.py", "import time\ntime.sleep(600)\n")
    path = write(
        "s.yml",
        """
        target: {prompt: "Say hi"}
        plugins: [quick_checks]
        cases:
          - {id: a, input: {}, checks: [{type: quick}]}
        """,
    )
    monkeypatch.setenv("PYTHONPATH", str(tmp_path / "hung_site"))
    monkeypatch.setattr(pool, "START_LIMIT", 1.0)
    t0 = time.perf_counter()
    report = run_scripted(path, Script().reply("hi"))
    assert time.perf_counter() - t0 < 120  # a hang guard: not the 600 s the worker would take (the reason says why)
    item = report.suites[0].cases[0].runs[0].items[0]
    assert (item.status, item.reason) == (
        "error",
        "check could not run: a worker process could not be started (it was not ready within 1 s)",
    )
