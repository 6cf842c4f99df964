"""An unexpected exception inside evalkit is exit 3 with one line and a log, never a verdict."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from evalkit.testing.script import Script

SUITE = """
name: three
target: {function: "agent:answer"}
cases:
  - {id: a, input: "x", checks: [{type: contains, value: "x"}]}
  - {id: b, input: "y", checks: [{type: contains, value: "y"}]}
  - {id: c, input: "z", checks: [{type: contains, value: "z"}]}
"""

# The real CLI, with evalkit's runner made to raise once the first case has been written.
INJECT = textwrap.dedent("""
    import sys
    from evalkit.run import runner
    emit = runner.Runner._emit
    def broken(self, suite_result, case):
        if case.id != "a":
            raise RuntimeError("injected fault in the runner")
        emit(self, suite_result, case)
    runner.Runner._emit = broken
    from evalkit.cli.commands import main
    sys.argv[0] = "evalkit"
    main()
""")


def test_an_internal_error_exits_3_with_one_line_a_log_and_the_finished_cases(
    tmp_path: Path, fake_anthropic, anthropic_env
):
    (tmp_path / "suite.yml").write_text(SUITE, encoding="utf-8")
    (tmp_path / "agent.py").write_text("def answer(text, client):\n    return text\n", encoding="utf-8")
    fake = fake_anthropic(Script())
    done = subprocess.run(
        [sys.executable, "-c", INJECT, "run", "suite.yml", "-o", "out/results.json", "--concurrency", "1"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        env=anthropic_env(fake, inherit=True, pythonpath=[tmp_path]),
    )
    assert done.returncode == 3, done.stderr
    assert "Traceback" not in done.stderr + done.stdout
    line = [ln for ln in done.stderr.splitlines() if ln.startswith("evalkit: internal error")]
    assert len(line) == 1 and "injected fault in the runner" in line[0] and "not a verdict" in line[0]
    log = Path(re.search(r"the traceback is in (\S+\.log)", line[0]).group(1))
    assert "RuntimeError: injected fault in the runner" in log.read_text(encoding="utf-8")
    log.unlink()
    cases = [json.loads(ln) for ln in (tmp_path / "out" / "results.jsonl").read_text(encoding="utf-8").splitlines()]
    assert [c.get("case", {}).get("id") for c in cases if "case" in c] == ["a"]


# evalkit's runner made to raise, once its cases are written, what the exit-3 contract must still hold for.
INJECT_ODD = textwrap.dedent("""
    import sys
    from evalkit.run import runner

    class Unprintable(Exception):
        def __str__(self):
            raise RuntimeError("no text for you")

    class NotAnException(BaseException):
        pass

    def broken(self, *args, **kwargs):
        raise {fault}
    runner.Runner._report = broken
    from evalkit.cli.console import entry
    sys.argv[0] = "evalkit"
    entry()
""")


@pytest.mark.parametrize(
    "fault, named",
    [
        ("Unprintable()", "Unprintable: <Unprintable whose str() raised RuntimeError>"),
        ("NotAnException('odd')", "NotAnException: odd"),
    ],
)
def test_every_exception_escaping_evalkit_is_exit_3_with_one_line(
    tmp_path: Path, fault: str, named: str, fake_anthropic, anthropic_env
):
    (tmp_path / "suite.yml").write_text(SUITE, encoding="utf-8")
    (tmp_path / "agent.py").write_text("def answer(text, client):\n    return text\n", encoding="utf-8")
    fake = fake_anthropic(Script())
    done = subprocess.run(
        [sys.executable, "-c", INJECT_ODD.format(fault=fault), "run", "suite.yml", "-o", "out/results.json"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        env=anthropic_env(fake, inherit=True, pythonpath=[tmp_path]),
    )
    assert done.returncode == 3, done.stderr
    assert "Traceback" not in done.stderr + done.stdout
    line = [ln for ln in done.stderr.splitlines() if ln.startswith("evalkit: internal error")]
    assert len(line) == 1 and named in line[0], done.stderr
    Path(re.search(r"the traceback is in (\S+\.log)", line[0]).group(1)).unlink()


def test_a_target_exception_whose_str_raises_is_an_error_row(tmp_path: Path, fake_anthropic, anthropic_env):
    (tmp_path / "suite.yml").write_text(SUITE, encoding="utf-8")
    (tmp_path / "agent.py").write_text(
        "class Nasty(Exception):\n"
        "    def __str__(self):\n"
        "        raise RuntimeError('no text for you')\n"
        "def answer(text, client):\n"
        "    if text == 'y':\n"
        "        raise Nasty()\n"
        "    return text\n",
        encoding="utf-8",
    )
    fake = fake_anthropic(Script())
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "from evalkit.cli.commands import main; main()",
            "run",
            "suite.yml",
            "-o",
            "out/results.json",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        env=anthropic_env(fake, inherit=True, pythonpath=[tmp_path]),
    )
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr + done.stdout
    report = json.loads((tmp_path / "out" / "results.json").read_text(encoding="utf-8"))
    rows = {c["id"]: c for c in report["suites"][0]["cases"]}
    assert rows["a"]["verdict"] == "pass" and rows["c"]["verdict"] == "pass"
    assert rows["b"]["verdict"] == "error"
    assert "target raised Nasty: <Nasty whose str() raised RuntimeError>" in json.dumps(rows["b"])
