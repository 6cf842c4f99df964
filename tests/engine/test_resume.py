"""Runs that stop and resume: Ctrl-C and SIGTERM on a real `evalkit run` process against the
loopback fake, then `--resume` calls the model for the unfinished cases only."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from evalkit.testing.script import Script, request_text

N = 12
FAST = 3  # cases the fake answers at once; it holds the others until the test lets them go
SUITE = "name: many\ntarget: {prompt: 'Say ok to case {{ i }}'}\ncases:\n" + "".join(
    f"  - {{id: c{i}, input: {{i: {i}}}, checks: [{{type: equals, value: ok}}]}}\n" for i in range(N)
)
CLI = "import sys; from evalkit.cli.commands import main; sys.exit(main())"
SAFETY = 120  # seconds: only so that a broken build fails instead of hanging (nothing is timed)


def held_script(release: threading.Event) -> Script:
    def answer(body):
        if int(request_text(body).rsplit(" ", 1)[-1]) >= FAST:
            release.wait(SAFETY)
        return "ok"

    return Script().respond(answer)


def evalkit(args, env, **kw) -> subprocess.Popen:
    # Ctrl-C as a terminal delivers it: a test session started in the background by a
    # non-interactive shell ignores SIGINT, and its children would inherit that (a run that
    # ignores Ctrl-C because its parent asked it to is right; the test is about the handling).
    return subprocess.Popen(
        [sys.executable, "-c", CLI, *map(str, args)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=_default_sigint,
        **kw,
    )


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def case_lines(jsonl: Path) -> list[dict]:
    if not jsonl.exists():
        return []
    return [json.loads(line) for line in jsonl.read_text().splitlines() if '"case": ' in line]


def wait_for(condition, proc: subprocess.Popen | None = None) -> None:
    deadline = time.monotonic() + SAFETY
    while not condition():
        if proc is not None and proc.poll() is not None:  # a run that died says why, at once
            out, err = proc.communicate()
            pytest.fail(f"the run ended early with exit {proc.returncode}: {out}{err}")
        assert time.monotonic() < deadline, "the run never got there"
        time.sleep(0.02)


@pytest.mark.parametrize(
    "sig, code, said", [(signal.SIGINT, 130, "interrupted"), (signal.SIGTERM, 143, "stopped by SIGTERM")]
)
def test_a_stopped_run_resumes_calling_only_the_unfinished_cases(
    tmp_path, sig, code, said, fake_anthropic, anthropic_env
):
    suite = tmp_path / "suite.yml"
    suite.write_text(SUITE)
    out, jsonl = tmp_path / "out.json", tmp_path / "out.jsonl"
    release = threading.Event()
    fake = fake_anthropic(held_script(release), latency=0.02)
    env = anthropic_env(fake, inherit=True, CI="1")
    proc = evalkit(["run", suite, "-o", out, "--concurrency", "2", "--no-cache"], env)
    try:
        # Three cases finished, two held in flight by the fake: stop the run there.
        wait_for(lambda: len(case_lines(jsonl)) == FAST and fake.request_count == FAST + 2, proc)
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=SAFETY)
    finally:
        release.set()
        proc.kill() if proc.poll() is None else None
    assert proc.returncode == code, err
    assert said in err and f"--resume {jsonl}" in err and "Traceback" not in err
    assert not out.exists()  # no results JSON claims a whole run
    finished = {line["id"] for line in case_lines(jsonl)}
    assert finished == {f"c{i}" for i in range(FAST)}

    partial = subprocess.run(
        [sys.executable, "-c", CLI, "report", jsonl, "--format", "json"], env=env, capture_output=True, text=True
    )
    assert partial.returncode == 0, partial.stderr
    data = json.loads(partial.stdout)
    assert data["partial"] is True and len(data["suites"][0]["cases"]) == FAST

    fake.reset_counts()
    proc = evalkit(["run", "--resume", jsonl, "--no-cache"], env)
    stdout, err = proc.communicate(timeout=SAFETY)
    assert proc.returncode == 0, stdout + err
    assert f"[{N - FAST}/{N - FAST} cases" in err  # the progress counts the cases left
    asked = sorted(request_text(body).strip() for body in fake.requests)
    assert asked == sorted(f"Say ok to case {i}" for i in range(FAST, N))  # exactly the unfinished ones

    report = json.loads(out.read_text())
    assert report["verdict"] == "pass" and report["partial"] is False
    assert [c["id"] for c in report["suites"][0]["cases"]] == [f"c{i}" for i in range(N)]
    assert report["usage"]["calls"] == N  # both sessions' calls of finished cases (held calls never answered)
    lines = [json.loads(line) for line in jsonl.read_text().splitlines()]
    assert {line["run_id"] for line in lines} == {report["run_id"]}
    kinds = [
        next(k for k in ("evalkit_results", "stopped", "resumed", "end") if k in line)
        for line in lines
        if '"case"' not in json.dumps(list(line)) and "suite_start" not in line
    ]
    assert kinds == ["evalkit_results", "stopped", "resumed", "end"]


JUDGED = "name: judged\ntarget: {prompt: 'Say ok to case {{ i }}'}\ncases:\n" + "".join(
    f"  - {{id: c{i}, input: {{i: {i}}}, checks: [{{type: llm_judge, criteria: 'Says ok'}}]}}\n" for i in range(4)
)


@pytest.mark.slow
def test_a_run_killed_mid_case_counts_every_paid_call_once_after_resume(tmp_path, fake_anthropic, anthropic_env):
    from evalkit.scoring.judge import JUDGE_TOOL
    from tests.conftest import verdicts

    release = threading.Event()

    def said(body):  # the target's reply names its case, so the judge's request does too
        return "said ok " + request_text(body).strip().rsplit(" ", 1)[-1] + "."

    def judge(body):
        if "said ok 2." in request_text(body) or "said ok 3." in request_text(body):
            release.wait(SAFETY)  # the judge of c2 and c3 never answers before the kill
        return verdicts({"check1:llm_judge": "pass"})

    (tmp_path / "suite.yml").write_text(JUDGED)
    out, jsonl = tmp_path / "out.json", tmp_path / "out.jsonl"
    fake = fake_anthropic(Script().respond(said).respond(judge, tool=JUDGE_TOOL))
    env = anthropic_env(fake, inherit=True, CI="1")
    proc = evalkit(["run", tmp_path / "suite.yml", "-o", out, "--concurrency", "4"], env)
    try:
        # c0 and c1 finished (target and judge), c2's and c3's targets answered (paid), their judges held.
        wait_for(
            lambda: len(case_lines(jsonl)) == 2 and sum("said ok" not in request_text(b) for b in fake.requests) == 4,
            proc,
        )
        proc.kill()  # SIGKILL: the session writes no totals
        proc.communicate(timeout=SAFETY)
    finally:
        release.set()
    paid_before = 6  # four targets and the judges of c0 and c1; the two held judge calls were never answered
    fake.reset_counts()
    proc = evalkit(["run", "--resume", jsonl], env)
    stdout, err = proc.communicate(timeout=SAFETY)
    assert proc.returncode == 0, stdout + err
    assert len(fake.requests) == 2, [
        request_text(b)[:80] for b in fake.requests
    ]  # only the two judges: the targets' replies come back from the cache
    report = json.loads(out.read_text())
    assert report["usage"]["calls"] == paid_before + 2, report["usage"]  # every paid call, once
    assert report["usage"]["cache_hits"] == 0, report["usage"]  # a reply paid in this run is no cache hit
