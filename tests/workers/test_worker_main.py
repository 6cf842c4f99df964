"""What a worker sends back for a target's result: the trace a TargetResult carries comes back with
the output, also when the output cannot be pickled (then everything goes back as JSON)."""

from __future__ import annotations

import pickle
import threading

from evalkit.run.targets import TargetResult
from evalkit.trace.steps import Step, read_trace
from evalkit.workers.worker_main import target_output, unpicklable

STEPS = [Step.message("assistant", ""), Step.tool_call("lookup", {"id": 1}, result={"found": True})]


def test_a_target_results_trace_comes_back_with_its_output():
    result = target_output(TargetResult("done", facts={"n": 1}, trace=STEPS))
    assert result == ("output", "done", {"n": 1}, None, STEPS)
    assert pickle.loads(pickle.dumps(result))[4] == STEPS
    assert target_output("plain")[4] is None


def test_with_an_output_pickle_cannot_take_the_trace_comes_back_as_json():
    lock = threading.Lock()
    result = target_output(TargetResult({"lock": lock}, trace=STEPS))
    sent = unpicklable(result)
    assert sent[0] == "output" and isinstance(sent[1]["lock"], str)
    assert read_trace(pickle.loads(pickle.dumps(sent))[4]) == STEPS
