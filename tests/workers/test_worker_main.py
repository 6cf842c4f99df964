"""What a worker sends back for a target's result: plain data (JSON), never a pickle, so nothing a
target made runs in the run's process; the trace a TargetResult carries comes back with the output."""

from __future__ import annotations

import json
import threading

import pytest

from evalkit.run.targets import TargetResult
from evalkit.trace.steps import Step, read_trace
from evalkit.workers.link import plain, read_message
from evalkit.workers.worker_main import not_plain, target_output

STEPS = [Step.message("assistant", ""), Step.tool_call("lookup", {"id": 1}, result={"found": True})]


def test_a_target_results_trace_comes_back_with_its_output_as_plain_data():
    result = target_output(TargetResult("done", facts={"n": 1}, trace=STEPS))
    assert result == ("output", "done", {"n": 1}, None, STEPS, None)
    sent = json.loads(json.dumps(plain(result)))
    assert sent[:4] == ["output", "done", {"n": 1}, None]
    assert read_trace(sent[4]) == STEPS
    assert target_output("plain")[4] is None


def test_what_json_cannot_hold_comes_back_as_its_text():
    lock = threading.Lock()
    sent = plain(target_output(TargetResult({"lock": lock, 3: float("nan")}, trace=STEPS)))
    assert sent[0] == "output" and isinstance(sent[1]["lock"], str) and sent[1]["3"] == "nan"


def test_a_circular_output_is_an_error_row_saying_it_is_not_plain_data():
    loop: list = []
    loop.append(loop)
    result = target_output(loop)
    with pytest.raises(ValueError):
        plain(result)
    with pytest.raises(ValueError, match="Circular"):
        plain(result)
    sent = not_plain(result, ValueError("Circular reference detected"))
    assert sent[0] == "error" and "cannot be stored as JSON" in sent[1]


def test_a_pydantic_output_crosses_as_its_dump_with_where_its_class_is():
    from pydantic import BaseModel

    class Node(BaseModel):
        code: str

    result = plain(target_output(Node(code="x")))
    assert result[1] == {"code": "x"} and result[5].endswith(
        ":test_a_pydantic_output_crosses_as_its_dump_with_where_its_class_is.<locals>.Node"
    )


def test_an_output_read_while_another_thread_imports_pydantic_is_plain_output(monkeypatch):
    # A worker's threads run a target and unpickle a check at once; the check's unpickling may be
    # importing pydantic, whose module is in sys.modules before BaseModel is in it (seen in CI).
    import sys
    import types

    monkeypatch.setitem(sys.modules, "pydantic", types.ModuleType("pydantic"))
    assert target_output({"pace": "5:10"}) == ("output", {"pace": "5:10"}, {}, None, None, None)


def test_the_run_reads_only_json_from_a_worker():
    import pickle

    with pytest.raises(ValueError):
        read_message(pickle.dumps(("done", 1, b"", 0.0)))
    assert read_message(b'["ready", 12]') == ["ready", 12]


def test_a_worker_imports_the_public_api_before_its_first_call():
    # In a fresh interpreter, as a worker starts: the modules user code reaches are imported up front,
    # so no two of its threads import them for the first time at once.
    import subprocess
    import sys

    code = (
        "import sys\nfrom evalkit.workers.worker_main import import_public_api\n"
        "before = 'evalkit.checks.registry' in sys.modules\nimport_public_api()\n"
        "print(before, all(m in sys.modules for m in ('evalkit.checks.registry', 'evalkit.suite.loader', "
        "'evalkit.run.targets', 'pydantic')))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.stdout.split() == ["False", "True"], done.stderr


def test_a_worker_without_pytest_still_starts():
    # The Action's image has no pytest: the plugin's helpers cannot be imported there, and the worker
    # must start all the same.
    import subprocess
    import sys

    code = (
        "import sys\nsys.modules['pytest'] = None  # import pytest now raises ImportError\n"
        "from evalkit.workers.worker_main import import_public_api\nimport_public_api()\n"
        "print('evalkit.checks.registry' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.stdout.split() == ["True"], done.stderr
