"""The `runs` check runs a generated `main` in a child process under limits and compares what it returns."""

from __future__ import annotations

import socket
import threading

import pytest
from pydantic import ValidationError

from evalkit.checks import CheckContext, check_types, normalize


def decide(code: str, inputs: list[dict], **args):
    check = check_types()["runs"].model_validate({"inputs": inputs, **args})
    return normalize(check.evaluate(CheckContext(output={"code": code})))


UPPER = [{"input": "hello", "expected": "HELLO"}]


def test_a_main_that_does_the_task_passes():
    outcome = decide("def main(input: str, **kwargs) -> str:\n    return input.upper()\n", UPPER)
    assert outcome.passed, outcome.reason


def test_printing_instead_of_returning_fails_and_says_what_was_printed():
    outcome = decide("def main(input: str, **kwargs) -> str:\n    print(input.upper())\n", UPPER)
    assert not outcome.passed
    assert "returned NoneType, not str" in outcome.reason and "printed 'HELLO" in outcome.reason


def test_ignoring_the_task_fails_on_the_expected_output():
    outcome = decide("def main(input: str, **kwargs) -> str:\n    return 'done'\n", UPPER)
    assert not outcome.passed
    assert "returned 'done', expected 'HELLO'" in outcome.reason


def test_the_environment_is_empty(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-secret")
    code = (
        "import os\ndef main(input: str, **kwargs) -> str:\n"
        "    return os.environ.get('ANTHROPIC_API_KEY', 'none') + ':' + ','.join(sorted(os.environ))\n"
    )
    # LC_CTYPE is Python's own: it coerces the C locale of an empty environment to UTF-8 (PEP 538).
    outcome = decide(code, [{"input": "", "matches": "^none:(LC_CTYPE)?$"}])
    assert outcome.passed, outcome.reason


def test_the_network_is_refused_even_on_loopback():
    server = socket.create_server(("127.0.0.1", 0))
    port = server.getsockname()[1]
    accepted: list[socket.socket] = []
    threading.Thread(target=lambda: accepted.append(server.accept()[0]), daemon=True).start()
    code = (
        "import socket\ndef main(input: str, **kwargs) -> str:\n"
        f"    socket.create_connection(('127.0.0.1', {port}), timeout=1).close()\n    return 'connected'\n"
    )
    try:
        outcome = decide(code, [{"input": "", "expected": "connected"}])
    finally:
        server.close()
    assert not outcome.passed
    assert "not allowed in evalkit's `runs` check: socket" in outcome.reason
    assert not accepted


@pytest.mark.parametrize(
    "body, refused",
    [
        ("import subprocess\n    subprocess.run(['true'])", "subprocess.Popen"),
        ("import os\n    os.kill(os.getppid(), 15)", "os.kill"),
        ("open('written.txt', 'w').write('x')", "writing 'written.txt'"),
        ("import ctypes\n    ctypes.CDLL(None)", "ctypes.dlopen"),
    ],
)
def test_processes_signals_file_writes_and_native_code_are_refused(body, refused):
    outcome = decide(
        f"def main(input: str, **kwargs) -> str:\n    {body}\n    return 'x'\n", [{"input": "", "expected": "x"}]
    )
    assert not outcome.passed and refused in outcome.reason, outcome.reason


def test_a_call_past_its_time_limit_fails_and_the_others_still_run():
    code = "def main(input: str, **kwargs) -> str:\n    while input == 'loop':\n        pass\n    return input\n"
    # 2 s a call (the child's whole run gets 2 s a call more, plus its start): the quick call stays well
    # inside on a loaded machine; the loop is stopped all the same.
    outcome = decide(code, [{"input": "loop", "expected": "loop"}, {"input": "ok", "expected": "ok"}], timeout=2)
    assert not outcome.passed
    assert outcome.reason.startswith("1 of 2 failed") and "took over 2 s" in outcome.reason


def test_a_main_that_ignores_the_timer_is_stopped():
    code = (
        "import signal\nsignal.signal(signal.SIGALRM, signal.SIG_IGN)\n"
        "def main(input: str, **kwargs) -> str:\n    while True:\n        pass\n"
    )
    outcome = decide(code, [{"input": "", "expected": ""}], timeout=0.3)
    assert not outcome.passed
    assert "without a result (over the CPU-time limit)" in outcome.reason or "was stopped" in outcome.reason


def test_memory_beyond_the_limit_fails():
    code = "def main(input: str, **kwargs) -> str:\n    return 'a' * (512 * 2**20)\n"
    outcome = decide(code, [{"input": "", "contains": "a"}], memory_mb=128)
    assert not outcome.passed and "out of memory" in outcome.reason


def test_code_that_does_not_load_fails_every_input():
    outcome = decide("import sys\nsys.exit(3)\n", [{"input": "a"}, {"input": "b"}])
    assert not outcome.passed
    assert outcome.reason.startswith("2 of 2 failed") and "loading the code raised SystemExit" in outcome.reason


@pytest.mark.parametrize(
    "condition, passed",
    [
        ({"expected": "  Hi, Ada!\n"}, True),  # surrounding whitespace is not compared
        ({"expected": "hi, ada!"}, False),
        ({"expected": "hi, ada!", "ignore_case": True}, True),
        ({"contains": ["Hi", "Ada"]}, True),
        ({"contains": "Hello"}, False),
        ({"matches": r"^Hi\W+Ada\W*$"}, True),
        ({"matches": r"^Hello"}, False),
        ({"not_contains": ["Hello", "Bob"]}, True),
        ({"not_contains": "ada", "ignore_case": True}, False),
        ({}, True),  # no condition: returning a str without raising is enough
    ],
)
def test_each_kind_of_condition(condition, passed):
    code = "def main(input: str, **kwargs) -> str:\n    return kwargs.get('greeting', 'Hello') + ', ' + input + '!'\n"
    outcome = decide(code, [{"input": "Ada", "kwargs": {"greeting": "Hi"}, **condition}])
    assert outcome.passed is passed, outcome.reason


@pytest.mark.parametrize(
    "args",
    [
        {"inputs": []},
        {"inputs": [{"input": "a", "matches": "("}]},
        {"inputs": [{"input": "a", "expr": "output == 'a'"}]},  # no expression language: a Jinja one would run here
        {"inputs": [{"input": "a", "expectd": "typo"}]},
        {"inputs": [{"input": "a"}], "timeout": 0},
    ],
)
def test_bad_arguments_are_refused_when_the_suite_loads(args):
    with pytest.raises(ValidationError):
        check_types()["runs"].model_validate(args)
