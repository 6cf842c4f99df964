"""User code runs in worker processes (evalkit/run/user_code.py): whatever a target or a plugin's
check does to its process — os._exit, a signal, a segfault, a closed stdout, a chdir — is an
error row naming what happened, the run goes on in a new worker, and every result is written."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from evalkit.testing.script import Script

TARGETS = """
import asyncio, ctypes, os, signal, sys, time

def hostile(i):
    how = i["how"]
    if how == "exit0":
        os._exit(0)
    if how == "exit3":
        os._exit(3)
    if how == "sigkill":
        os.kill(os.getpid(), signal.SIGKILL)
    if how == "segfault":
        ctypes.string_at(0)
    if how == "slow":
        if "mark" in i:  # the test waits for this file: the call has begun
            open(i["mark"], "w").close()
        time.sleep(float(i.get("seconds", 0.3)))
    return f"hello {how}"

def agent(i, client):
    from evalkit import get_client
    first = client.complete("GREET " + i["who"])
    second = get_client().complete("AGAIN " + i["who"], model="low")
    return first + " / " + second

async def async_agent(i, client):
    await asyncio.sleep(0)
    return await client.complete("GREET " + i["who"])

class Unprintable(Exception):
    def __str__(self):
        raise RuntimeError("no message for you")

def unprintable(i):
    raise Unprintable()

def unsettling(i):
    os.chdir("/")
    sys.stdout.close()
    os.close(2)
    return "hello"
"""

CHECKS = """
import ctypes, os
from evalkit import Check, register_check

@register_check
class Hostile(Check):
    type = "hostile"
    how: str = "pass"

    def evaluate(self, ctx):
        if self.how == "exit0":
            os._exit(0)
        if self.how == "segfault":
            ctypes.string_at(0)
        return True, "fine"
"""


def _suite(write, cases: str, *, target: str = "hostile", extra: str = "") -> Path:
    write("iso_targets.py", TARGETS)
    return write(
        "s.yml",
        f"""
        target: iso_targets:{target}
        timeout: {{target: 20, check: 20}}
        {extra}
        cases:
        {cases}
        """,
    )


def _cli(tmp_path: Path, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(Path(sys.executable).parent / "evalkit"), "run", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=tmp_path,
        env={**os.environ, "ANTHROPIC_API_KEY": "test-key", "CI": "true", "EVALKIT_CACHE_DIR": str(tmp_path / "cache")},
    )


def test_os_exit_0_in_a_target_is_an_error_row_and_the_failing_run_exits_1_with_every_result(write, tmp_path):
    # The case: `a` fails its check, `b` calls os._exit(0). It used to exit 0 and write nothing.
    path = _suite(
        write,
        """
          - {id: a, input: {how: plain}, checks: [{type: contains, value: nope}]}
          - {id: b, input: {how: exit0}, checks: [{type: contains, value: hello}]}
        """,
    )
    proc = _cli(tmp_path, str(path), "-o", "out/results.json")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    cases = {c["id"]: c for c in results["suites"][0]["cases"]}
    assert {k: c["verdict"] for k, c in cases.items()} == {"a": "fail", "b": "error"}
    assert cases["b"]["runs"][0]["error"] == "target called os._exit(0), which ended its worker process"
    lines = (tmp_path / "out" / "results.jsonl").read_text().splitlines()
    assert sum('"case": ' in line for line in lines) == 2 and '"end"' in lines[-1]


@pytest.mark.parametrize(
    "how, error",
    [
        ("exit3", "target called os._exit(3), which ended its worker process"),
        ("sigkill", "target's worker process was killed by SIGKILL"),
        ("segfault", "target's worker process was killed by SIGSEGV (a crash in native code)"),
    ],
)
def test_a_target_that_ends_its_process_is_one_error_row_and_the_run_goes_on(write, run_scripted, how, error):
    report = run_scripted(
        _suite(
            write,
            f"""
          - {{id: a, input: {{how: plain}}, checks: [{{type: contains, value: hello}}]}}
          - {{id: b, input: {{how: {how}}}, checks: [{{type: contains, value: hello}}]}}
          - {{id: c, input: {{how: plain}}, checks: [{{type: contains, value: hello}}]}}
        """,
        ),
        Script(),
    )
    cases = {c.id: c for c in report.suites[0].cases}
    assert {k: c.verdict for k, c in cases.items()} == {"a": "pass", "b": "error", "c": "pass"}
    assert cases["b"].runs[0].error.startswith(error), cases["b"].runs[0].error
    if how == "segfault":  # faulthandler's stack of the crashing thread, the user's frame in it
        assert 'iso_targets.py", line' in cases["b"].runs[0].traceback


def test_a_worker_killed_with_several_cases_in_it_blames_only_the_case_that_kills_it_again(
    write, run_scripted, monkeypatch
):
    # One worker, every case in it at once: a SIGKILL cannot say whose it was, so each case of the
    # dead worker runs again alone; the one that kills its worker again gets the row.
    monkeypatch.setenv("EVALKIT_WORKERS", "1")
    slow = "\n" + "\n".join(
        f"          - {{id: s{k}, input: {{how: slow, seconds: 1.0}}, checks: [{{type: contains, value: hello}}]}}"
        for k in range(3)
    )
    report = run_scripted(
        _suite(
            write,
            slow
            + """
          - {id: killer, input: {how: sigkill}, checks: [{type: contains, value: hello}]}
        """,
        ),
        Script(),
    )
    cases = {c.id: c for c in report.suites[0].cases}
    assert {k: c.verdict for k, c in cases.items()} == {"s0": "pass", "s1": "pass", "s2": "pass", "killer": "error"}
    assert cases["killer"].runs[0].error == (
        "target's worker process was killed by SIGKILL (killed from outside, or by the out-of-memory killer)"
    )
    assert not report.warnings


def test_os_exit_names_its_call_so_the_others_in_the_worker_simply_run_again(write, run_scripted, monkeypatch):
    monkeypatch.setenv("EVALKIT_WORKERS", "1")
    report = run_scripted(
        _suite(
            write,
            """
          - {id: slow, input: {how: slow, seconds: 1.0}, checks: [{type: contains, value: hello}]}
          - {id: quitter, input: {how: exit0}, checks: [{type: contains, value: hello}]}
        """,
        ),
        Script(),
    )
    cases = {c.id: c for c in report.suites[0].cases}
    assert cases["slow"].verdict == "pass"
    assert cases["quitter"].runs[0].error == "target called os._exit(0), which ended its worker process"


def test_agent_code_calls_the_model_through_the_runs_own_client(write, run_scripted):
    # The worker's client (and get_client() in it) asks the parent: the calls are counted, cached
    # and priced with the case, as the judge's are.
    script = (
        Script().reply("Hello Ada", prompt="GREET Ada").reply("Hi again", prompt="AGAIN Ada", model="claude-haiku-5-5")
    )
    path = _suite(
        write,
        """
          - {id: ada, input: {who: Ada}, checks: [{type: contains, value: "Hello Ada / Hi again"}]}
          - {id: twin, input: {who: Ada}, checks: [{type: contains, value: "Hello Ada / Hi again"}]}
        """,
        target="agent",
    )
    report = run_scripted(path, script)
    cases = {c.id: c for c in report.suites[0].cases}
    assert {k: c.verdict for k, c in cases.items()} == {"ada": "pass", "twin": "pass"}, cases["ada"].runs[0].error
    assert report.usage.calls == 2 and report.usage.cache_hits == 2  # the twin's identical requests: shared
    assert len(cases["ada"].runs[0].target_requests) == 2
    assert sum(c.usage.calls + c.usage.cache_hits for c in cases.values()) == 4


def test_an_async_agent_awaits_its_calls_from_the_worker(write, run_scripted):
    report = run_scripted(
        _suite(
            write,
            """
          - {id: ada, input: {who: Ada}, checks: [{type: contains, value: "Hello Ada"}]}
        """,
            target="async_agent",
        ),
        Script().reply("Hello Ada", prompt="GREET Ada"),
    )
    assert report.verdict == "pass" and report.usage.calls == 1


def test_a_failed_model_call_of_agent_code_is_the_targets_error_row(write, run_scripted):
    report = run_scripted(
        _suite(
            write,
            """
          - {id: ada, input: {who: Ada}, checks: [{type: contains, value: "Hello"}]}
        """,
            target="async_agent",
        ),
        Script().fault("400", prompt="GREET Ada", times=None),
    )
    run = report.suites[0].cases[0].runs[0]
    assert run.error.startswith("target's model call failed:"), run.error


@pytest.mark.parametrize(
    "how, error",
    [
        ("exit0", "check called os._exit(0), which ended its worker process"),
        ("segfault", "check's worker process was killed by SIGSEGV (a crash in native code)"),
    ],
)
def test_a_plugin_check_that_ends_its_process_is_an_error_row(write, run_scripted, how, error):
    write("iso_checks.py", CHECKS)
    report = run_scripted(
        _suite(
            write,
            f"""
          - {{id: a, input: {{how: plain}}, checks: [{{type: hostile}}]}}
          - {{id: b, input: {{how: plain}}, checks: [{{type: hostile, how: {how}}}]}}
        """,
            extra="plugins: [iso_checks]",
        ),
        Script(),
    )
    cases = {c.id: c for c in report.suites[0].cases}
    assert cases["a"].verdict == "pass" and cases["a"].runs[0].items[0].reason == "fine"
    assert cases["b"].verdict == "error" and cases["b"].runs[0].items[0].reason == error


def test_a_check_class_the_worker_cannot_import_is_decided_in_evalkits_process(write, run_scripted):
    from evalkit import Check, register_check
    from evalkit.checks import registry

    class Local(Check):  # defined in a function: pickle cannot name it
        type = "local_only"

        def evaluate(self, ctx):
            return True, f"pid {os.getpid()}"

    register_check(Local)
    try:
        report = run_scripted(
            _suite(
                write,
                """
              - {id: a, input: {how: plain}, checks: [{type: local_only}]}
            """,
            ),
            Script(),
        )
    finally:
        registry._declared.pop("local_only", None)
    item = report.suites[0].cases[0].runs[0].items[0]
    assert item.status == "pass" and item.reason == f"pid {os.getpid()}"


def test_a_target_that_closes_its_streams_and_changes_folder_changes_nothing_for_the_run(write, tmp_path):
    path = _suite(
        write,
        """
          - {id: a, input: {}, checks: [{type: contains, value: hello}]}
        """,
        target="unsettling",
    )
    proc = _cli(tmp_path, str(path), "-o", "rel/results.json")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "verdict: pass" in proc.stdout + proc.stderr  # the summary still printed
    assert json.loads((tmp_path / "rel" / "results.json").read_text())["verdict"] == "pass"


def _workers_of(pid: int, wait: float = 30) -> list[str]:
    """The worker processes (not the forked suite reader) `pid` has started, waiting for one."""
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        found = []
        for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split():
            try:
                if b"evalkit.workers.worker_main" in Path(f"/proc/{child}/cmdline").read_bytes():
                    found.append(child)
            except OSError:
                pass
        if found:
            return found
        time.sleep(0.05)
    return []


def test_workers_end_with_the_run(write, tmp_path):
    # No worker outlives its run (nor a run stopped by SIGTERM).
    path = _suite(
        write,
        """
          - {id: a, input: {how: slow, seconds: 30}, checks: [{type: contains, value: hello}]}
        """,
    )
    proc = subprocess.Popen(
        [str(Path(sys.executable).parent / "evalkit"), "run", str(path), "-o", "r.json"],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "ANTHROPIC_API_KEY": "k", "CI": "true", "EVALKIT_CACHE_DIR": str(tmp_path / "cache")},
    )
    children = _workers_of(proc.pid)
    assert children, "no worker process started"
    proc.terminate()
    assert proc.wait(timeout=120) == 143
    # Each worker ends as its run does; on a loaded machine it may take a moment to be scheduled, so
    # wait for it (a hang guard, not a timing): a worker that outlived its run is still there at 60 s.
    deadline = time.monotonic() + 60
    while not all(_gone(pid) for pid in children) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert all(_gone(pid) for pid in children)


def _gone(pid: str) -> bool:
    """The process has ended: no longer listed, or a zombie waiting for its parent to reap it."""
    try:
        return "zombie" in Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return True


def test_os_exit_0_in_a_module_evalkit_imports_is_never_a_silent_success(write, tmp_path):
    # Loading imports plugins and preflight imports targets in evalkit's own process.
    write("quits.py", "import os\nos._exit(0)\n")
    path = write(
        "s.yml",
        """
        target: quits:run
        cases:
          - {id: a, input: {}, checks: [{type: contains, value: x}]}
    """,
    )
    for command in (["run", str(path), "-o", "r.json"], ["validate", str(path)]):
        proc = subprocess.run(
            [str(Path(sys.executable).parent / "evalkit"), *command],
            capture_output=True,
            text=True,
            timeout=120,
            cwd=tmp_path,
            env={**os.environ, "ANTHROPIC_API_KEY": "k", "CI": "true", "EVALKIT_CACHE_DIR": str(tmp_path / "cache")},
        )
        assert proc.returncode == 2, (command, proc.stdout + proc.stderr)
        assert "user code called os._exit(0) in evalkit's own process" in proc.stderr
    assert not (tmp_path / "r.json").exists()


def test_a_run_that_did_not_write_its_results_never_exits_0(write, tmp_path, monkeypatch):
    from click.testing import CliRunner

    import evalkit.engine
    from evalkit.cli.commands import main
    from evalkit.results.report import Report

    path = write(
        "s.yml",
        """
        target: {prompt: "hi"}
        cases:
          - {id: a, input: {}, checks: [{type: contains, value: x}]}
    """,
    )
    monkeypatch.setenv("ANTHROPIC_API_KEY", "k")
    monkeypatch.setattr(evalkit.engine, "run_and_save", lambda *a, **k: Report(verdict="pass"))  # writes nothing
    result = CliRunner().invoke(main, ["run", str(path), "-o", str(tmp_path / "r.json"), "--no-cache"])
    assert result.exit_code == 3, result.output
    assert "the run ended without writing" in result.output


def test_a_worker_that_cannot_start_is_said_as_such_not_blamed_on_the_target(write, run_scripted, monkeypatch):
    import evalkit.workers.process

    # The worker's Python runs this instead (the -c given first wins): it ends before it is ready.
    monkeypatch.setattr(evalkit.workers.process, "_interpreter_flags", lambda: ["-c", "raise SystemExit(7)"])
    report = run_scripted(
        _suite(
            write,
            """
          - {id: a, input: {how: plain}, checks: [{type: contains, value: hello}]}
          - {id: b, input: {how: plain}, checks: [{type: contains, value: hello}]}
        """,
        ),
        Script(),
    )
    for case in report.suites[0].cases:
        assert case.runs[0].error == (
            "target could not run: a worker process could not be started (it ended as it started, exit status 7)"
        )


def test_sigterm_to_the_whole_process_group_stops_the_run_without_error_rows(write, tmp_path):
    # What CI may do on cancel: SIGTERM to every process of the job. The workers leave it to the
    # run, which stops (143) with no case marked as killed: `--resume` runs them again.
    in_call = tmp_path / "in-call"
    path = _suite(
        write,
        f"""
          - {{id: a, input: {{how: slow, seconds: 30, mark: "{in_call}"}}, checks: [{{type: contains, value: hello}}]}}
          - {{id: b, input: {{how: slow, seconds: 30}}, checks: [{{type: contains, value: hello}}]}}
        """,
    )
    proc = subprocess.Popen(
        [str(Path(sys.executable).parent / "evalkit"), "run", str(path), "-o", "r.json"],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        env={**os.environ, "ANTHROPIC_API_KEY": "k", "CI": "true", "EVALKIT_CACHE_DIR": str(tmp_path / "cache")},
    )
    assert _workers_of(proc.pid), "no worker process started"
    deadline = time.monotonic() + 60  # a hang guard: the worker is in the calls once the mark is there
    while not in_call.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert in_call.exists(), "the target was never called"
    os.killpg(proc.pid, signal.SIGTERM)
    assert proc.wait(timeout=120) == 143
    jsonl = (tmp_path / "r.jsonl").read_text()
    assert '"case": ' not in jsonl and '"stopped"' in jsonl


def test_an_exception_whose_message_cannot_be_read_is_an_error_row(write, run_scripted):
    report = run_scripted(
        _suite(
            write,
            """
          - {id: a, input: {}, checks: [{type: contains, value: hello}]}
        """,
            target="unprintable",
        ),
        Script(),
    )
    run = report.suites[0].cases[0].runs[0]
    assert run.error == "target raised Unprintable: <Unprintable whose str() raised RuntimeError>"
    assert "Unprintable" in run.traceback
