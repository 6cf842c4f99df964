"""No false green from agent code: a cancelled task is an error row, never a missing case; a run
that ends short of its planned cases is evalkit's fault (exit 3), never a verdict."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from evalkit.testing.script import Script

AGENTS = """
import asyncio
from pydantic import BaseModel, field_validator

async def agent(i, client):
    if i["name"] == "cancel":
        async def inner():
            raise asyncio.CancelledError()
        await asyncio.wait_for(inner(), 30)
    return "hello " + i["name"]

def plain(i):
    return {"code": i["name"]}

class Node(BaseModel):
    code: str

    @field_validator("code")
    @classmethod
    def refuse(cls, value):
        if value == "cancel":
            raise asyncio.CancelledError()
        return value
"""


def _cli(tmp_path: Path, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(Path(sys.executable).parent / "evalkit"), "run", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=tmp_path,
        env={**os.environ, "ANTHROPIC_API_KEY": "test-key", "CI": "true", "EVALKIT_CACHE_DIR": str(tmp_path / "cache")},
    )


def _cases(tmp_path: Path) -> dict[str, dict]:
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    return {c["id"]: c for c in results["suites"][0]["cases"]}


def test_an_agent_raising_cancelled_error_inside_wait_for_is_an_error_row_and_a_red_run(write, tmp_path):
    write("agents.py", AGENTS)
    path = write(
        "s.yml",
        """
        target: agents:agent
        timeout: {target: 600, check: 5}
        cases:
          - {id: a, input: {name: Ada}, checks: [{type: contains, value: hello}]}
          - {id: b, input: {name: cancel}, checks: [{type: contains, value: hello}]}
        """,
    )
    started = time.monotonic()
    proc = _cli(tmp_path, str(path), "-o", "out/results.json")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr
    # A hang guard with room for a loaded machine: the target's timeout (600 s) is far beyond it.
    assert time.monotonic() - started < 100, "the cancellation is answered at once, not at the target's timeout"
    cases = _cases(tmp_path)
    assert {k: c["verdict"] for k, c in cases.items()} == {"a": "pass", "b": "error"}
    error = cases["b"]["runs"][0]["error"]
    assert "CancelledError" in error and "cancelled" in error, error


def test_a_code_node_validator_raising_cancelled_error_is_an_error_row_never_a_missing_case(write, tmp_path):
    write("agents.py", AGENTS)
    path = write(
        "s.yml",
        """
        target: agents:plain
        timeout: {target: 60, check: 5}
        cases:
          - {id: a, input: {name: fine}, checks: [{type: code_node, model: "agents:Node"}]}
          - {id: b, input: {name: cancel}, checks: [{type: code_node, model: "agents:Node"}]}
        """,
    )
    proc = _cli(tmp_path, str(path), "-o", "out/results.json")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr
    cases = _cases(tmp_path)
    assert {k: c["verdict"] for k, c in cases.items()} == {"a": "pass", "b": "error"}
    item = cases["b"]["runs"][0]["items"][0] if cases["b"]["runs"][0].get("items") else None
    reasons = json.dumps(cases["b"])
    assert "CancelledError" in reasons, reasons
    assert item is None or item["status"] == "error"


def test_a_run_short_of_its_planned_cases_is_evalkits_fault_never_a_verdict(write, run_scripted, monkeypatch):
    import pytest

    from evalkit.errors import IncompleteRun
    from evalkit.run.runner import Runner

    path = write(
        "s.yml",
        """
        target: {prompt: "Say hi to {{ name }}"}
        cases:
          - {id: a, input: {name: Ada}, checks: [{type: contains, value: hi}]}
          - {id: b, input: {name: Bo}, checks: [{type: contains, value: hi}]}
        """,
    )
    emit = Runner._emit

    def lose_b(self, suite_result, case):  # a case whose row never comes (a bug, a lost task)
        if case.id != "b":
            emit(self, suite_result, case)

    monkeypatch.setattr(Runner, "_emit", lose_b)
    with pytest.raises(IncompleteRun, match="1 of its 2 planned cases"):
        run_scripted(path, Script().reply("hi Ada").reply("hi Bo"))


def test_a_base_exception_ending_a_case_task_outside_its_runs_is_its_error_row(write, run_scripted, monkeypatch):
    from evalkit.run import runner

    path = write(
        "s.yml",
        """
        target: {prompt: "Say hi to {{ name }}"}
        cases:
          - {id: a, input: {name: Ada}, checks: [{type: contains, value: hi}]}
          - {id: b, input: {name: Bo}, checks: [{type: contains, value: hi}]}
        """,
    )
    verdict = runner.case_verdict

    class Odd(BaseException):
        pass

    def odd_for_b(result, *args, **kwargs):
        if result.id == "b":
            raise Odd("not an Exception")
        return verdict(result, *args, **kwargs)

    monkeypatch.setattr(runner, "case_verdict", odd_for_b)
    report = run_scripted(path, Script().reply("hi Ada").reply("hi Bo"))
    cases = {c.id: c for c in report.suites[0].cases}
    assert {k: c.verdict for k, c in cases.items()} == {"a": "pass", "b": "error"}
    assert "Odd raised inside it: not an Exception" in cases["b"].reasons[0]


HOSTILE = """
import os, sys

MARK = os.environ["EVALKIT_TEST_MARK"]

class Evil:
    def __reduce__(self):  # what unpickling would call: it must never run in the run's process
        return (exec, (f"open({MARK!r}, 'w').write(str(__import__('os').getpid())); "
                       "import sys; sys.exit(0)",))

def nested(i):
    return {"answer": "hello", "evil": Evil()}

def bare(i):
    return Evil()

def in_facts(i):
    from evalkit import TargetResult
    return TargetResult("hello", facts={"evil": Evil()})

def asks_with_evil(i, client):
    return client.generate(Evil())
"""


def test_a_returned_object_whose_reduce_would_run_code_never_runs_in_the_run(write, tmp_path, monkeypatch):
    mark = tmp_path / "ran-in-parent"
    monkeypatch.setenv("EVALKIT_TEST_MARK", str(mark))
    write("hostile.py", HOSTILE)
    path = write(
        "s.yml",
        """
        target: hostile:nested
        timeout: {target: 60, check: 5}
        cases:
          - {id: a, input: {}, checks: [{type: contains, value: nope}]}
        """,
    )
    proc = _cli(tmp_path, str(path), "-o", "out/results.json")
    assert not mark.exists(), "unpickled in the run's process"
    assert proc.returncode == 1, proc.stdout + proc.stderr  # its check fails: never a silent exit 0
    run = _cases(tmp_path)["a"]["runs"][0]
    assert '"answer": "hello"' in run["output"] and "Evil object" in run["output"]


def test_hostile_objects_anywhere_in_a_result_get_a_verdict_and_never_run(write, run_scripted, tmp_path, monkeypatch):
    mark = tmp_path / "ran-in-parent"
    monkeypatch.setenv("EVALKIT_TEST_MARK", str(mark))
    write("hostile.py", HOSTILE)
    cases = []
    for name in ("bare", "in_facts", "asks_with_evil"):
        cases.append(
            write(
                f"{name}.yml",
                f"""
            target: hostile:{name}
            timeout: {{target: 60, check: 5}}
            cases:
              - {{id: {name}, input: {{}}, checks: [{{type: contains, value: hello}}]}}
            """,
            )
        )
    results = {}
    for path in cases:
        report = run_scripted(path, Script())
        case = report.suites[0].cases[0]
        results[case.id] = (case.verdict, case.runs[0].error)
    assert not mark.exists(), "unpickled in the run's process"
    assert results["bare"][0] == "error" and "target returned Evil" in results["bare"][1]
    assert results["in_facts"] == ("pass", None)
    assert results["asks_with_evil"][0] == "error" and "model request" in results["asks_with_evil"][1]


VALIDATORS = """
import os, time
from pydantic import BaseModel, field_validator

def plain(i):
    return {"code": i["how"]}

class Node(BaseModel):
    code: str

    @field_validator("code")
    @classmethod
    def hostile(cls, value):
        if value == "block":
            time.sleep(120)
        if value == "exit":
            os._exit(0)
        if value == "pid":
            raise ValueError(f"pid {os.getpid()}")
        return value
"""


def test_code_node_validators_run_in_a_worker_under_the_check_timeout(write, run_scripted):
    write("vals.py", VALIDATORS)
    path = write(
        "s.yml",
        """
        target: vals:plain
        timeout: {target: 60, check: 5}
        cases:
          - {id: fine, input: {how: fine}, checks: [{type: code_node, model: "vals:Node"}]}
          - {id: block, input: {how: block}, checks: [{type: code_node, model: "vals:Node"}]}
          - {id: exit, input: {how: exit}, checks: [{type: code_node, model: "vals:Node"}]}
          - {id: pid, input: {how: pid}, checks: [{type: code_node, model: "vals:Node"}]}
        """,
    )
    started = time.monotonic()
    report = run_scripted(path, Script())
    assert time.monotonic() - started < 100, "a blocking validator is given up at the check timeout"
    items = {c.id: c.runs[0].items[0] for c in report.suites[0].cases}
    assert items["fine"].status == "pass"
    assert items["block"].status == "error" and "timed out" in items["block"].reason, items["block"].reason
    assert items["exit"].status == "error" and "os._exit(0)" in items["exit"].reason, items["exit"].reason
    assert items["pid"].status == "fail" and f"pid {os.getpid()}" not in items["pid"].reason


def test_a_second_run_on_the_same_output_is_refused_naming_the_other_and_a_dead_ones_lock_is_taken_over(
    write, tmp_path
):
    write("agents.py", AGENTS)
    path = write(
        "s.yml",
        """
        target: agents:plain
        cases:
          - {id: a, input: {name: Ada}, checks: [{type: contains, value: Ada}]}
        """,
    )
    lock = tmp_path / "out" / "results.jsonl.lock"
    lock.parent.mkdir()
    other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        lock.write_text(f"{other.pid}\n")
        proc = _cli(tmp_path, str(path), "-o", "out/results.json")
        assert proc.returncode == 2, proc.stdout + proc.stderr
        assert f"being written by another evalkit run (pid {other.pid}" in proc.stderr
        assert "Traceback" not in proc.stderr
    finally:
        other.kill()
        other.wait()
    os.utime(lock, (time.time() - 60, time.time() - 60))
    proc = _cli(tmp_path, str(path), "-o", "out/results.json")  # its pid is gone: taken over
    assert proc.returncode in (0, 1), proc.stdout + proc.stderr
    assert (tmp_path / "out" / "results.json").is_file() and not lock.exists()
