"""Reports that tell the truth: a case's own time apart from its wait in the queue, the faults
retries absorbed (per run and per suite), and a target's traceback under its failing case."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from evalkit.engine import load_suites, make_client, run
from evalkit.llm.client import RetryPolicy
from evalkit.render.junit import render_junit
from evalkit.render.log import case_lines, suite_line, usage_line
from evalkit.render.markdown import render_markdown
from evalkit.run.runner import RunOptions
from evalkit.testing.script import Script
from evalkit.testing.scripted import ScriptedProvider

CASES = "\n".join(f"  - {{id: c{i}, input: {{n: {i}}}, checks: [{{type: contains, value: ok}}]}}" for i in range(12))
TARGETS = """
def sync_target(i, client):
    return client.complete(f"Say ok {i['n']}")

async def async_target(i, client):
    return await client.complete(f"Say ok {i['n']}")

def raises(i):
    def deeper():
        raise ValueError("bad input")
    deeper()
"""


def run_suite(write, target: str, script: Script, *, concurrency: int = 8, latency: float = 0.0):
    write("truth_targets.py", TARGETS)
    path = write("s.yml", f"target: {target}\ncases:\n{CASES}\n")
    client = make_client(
        ScriptedProvider(script, latency=latency),
        concurrency=concurrency,
        no_cache=True,
        deprecated=None,
        retry=RetryPolicy(base_delay=0.001, max_delay=0.002),
    )
    return run(load_suites([path]), client, RunOptions())


@pytest.mark.parametrize(
    "target", ["{prompt: 'Say ok {{ n }}'}", "truth_targets:sync_target", "truth_targets:async_target"]
)
def test_case_times_exclude_the_wait_for_a_slot(write, target):
    # One call in flight at a time, 12 cases of one 0.1 s call each: every case but the first waits.
    report = run_suite(write, target, Script().reply("ok"), concurrency=1, latency=0.1)
    cases = report.suites[0].cases
    own, queued = sum(c.wall_seconds for c in cases), sum(c.queue_seconds for c in cases)
    assert all(c.verdict == "pass" for c in cases)
    # With one slot the waits (0 + 0.1 + ... + 1.1 s: 6.6 s) dwarf the cases' own times (12 × 0.1 s),
    # and are reported apart. Compared with each other, not with a stopwatch: a loaded machine
    # slows both alike.
    assert queued >= 2 * own, (queued, own, report.wall_seconds)
    waits = [c.queue_seconds for c in cases]
    assert sum(w > 0.05 for w in waits) >= 9, waits  # every case but the first few waited its turn
    junit = ET.fromstring(render_junit(report))
    props = {tc.get("name"): tc.find("properties/property[@name='queue_seconds']") for tc in junit.iter("testcase")}
    assert sum(float(p.get("value")) for p in props.values() if p is not None) == pytest.approx(queued, abs=0.05)
    assert sum(float(tc.get("time")) for tc in junit.iter("testcase")) == pytest.approx(own, abs=0.05)


def test_faults_absorbed_by_retries_are_counted_per_run_and_per_suite_and_shown(write):
    script = (
        Script()
        .fault("529", times=2)
        .fault("500", times=1)
        .fault("429", retry_after=0, times=1)
        .fault("drop", times=1)
        .reply("ok")
    )
    report = run_suite(write, "{prompt: 'Say ok {{ n }}'}", script, concurrency=1)
    expected = {"overloaded": 2, "server_error": 1, "rate_limited": 1, "connection": 1}
    assert report.verdict == "pass"
    assert report.usage.retried == expected and report.suites[0].usage.retried == expected
    assert sum(c.usage.faults_absorbed for c in report.suites[0].cases) == 5  # and per case
    assert "5 faults absorbed by retries (2 overloaded" in usage_line(report)
    assert "; 5 faults absorbed by retries" in suite_line(report.suites[0])
    assert "5 faults absorbed by retries" in render_markdown(report)
    junit = ET.fromstring(render_junit(report))
    assert junit.find("testsuite/properties/property[@name='faults_absorbed_by_retries']").get("value") == "5"


def test_no_faults_no_noise(write):
    report = run_suite(write, "{prompt: 'Say ok {{ n }}'}", Script().reply("ok"))
    assert report.usage.retried == {} and "absorbed" not in usage_line(report) + render_markdown(report)


def test_a_targets_traceback_is_shown_under_its_case_in_markdown_and_the_log(write):
    report = run_suite(write, "truth_targets:raises", Script())
    md = render_markdown(report)
    case_block = md.split("<code>c0</code>")[1].split("</details>")[0]
    assert "```text\n" in case_block and 'truth_targets.py", line' in case_block and "in deeper" in case_block
    assert "ValueError: bad input\n```" in case_block
    log = "\n".join(case_lines(report.suites[0]))
    assert "--- traceback of run 1 (the target's own frames) ---" in log and "    ValueError: bad input" in log


def test_a_traceback_with_backticks_cannot_close_its_fence():
    from evalkit.render.markdown import codeblock

    block = codeblock("raise X('````')")
    assert block.startswith("`````text\n") and block.endswith("\n`````")
