"""The trajectory shape: what `read_trace` accepts, and the one-line errors for what it refuses."""

import pytest

from evalkit.trace.steps import MAX_TRACE_STEPS, Step, model_turns, read_trace, tool_calls


def test_dicts_and_steps_read_into_one_shape():
    trace = read_trace(
        [
            {"type": "message", "role": "user", "text": "plan my week"},
            Step.message("assistant", ""),
            {
                "type": "tool_call",
                "name": "analyze_training_load",
                "arguments": {"weeks": [30, 32]},
                "result": {"acwr": 1.1},
                "seconds": 0.02,
            },
            {"type": "message", "role": "assistant", "text": "Here is your week."},
        ]
    )
    assert [s.type for s in trace] == ["message", "message", "tool_call", "message"]
    assert [c.name for c in tool_calls(trace)] == ["analyze_training_load"]
    assert tool_calls(trace)[0].arguments == {"weeks": [30, 32]}
    assert model_turns(trace) == 2


@pytest.mark.parametrize(
    "value, message",
    [
        ("a string", "a trace is a list of steps, not a str"),
        ({"type": "message"}, "a trace is a list of steps, not a dict"),
        ([3], "step 1 of the trace is a int, not a mapping"),
        ([{"type": "tool_call"}], "step 1 of the trace: a tool_call step needs the tool's `name`"),
        ([{"type": "message", "role": "user"}, {"type": "message", "role": "bot"}], "step 2 of the trace: role:"),
        ([{"type": "message", "role": "user", "name": "x"}], "step 1 of the trace: a message step has `role`"),
        ([{"type": "tool_call", "name": "x", "text": "hi"}], "step 1 of the trace: a tool_call step has `name`"),
        ([{"type": "span"}], "step 1 of the trace: type:"),
        ([{"type": "tool_call", "name": "x", "colour": 1}], "step 1 of the trace: colour: Extra inputs"),
        ([{"type": "tool_call", "name": "x", "seconds": -1}], "step 1 of the trace: seconds:"),
    ],
)
def test_a_bad_trace_is_refused_in_one_line(value, message):
    with pytest.raises(ValueError) as raised:
        read_trace(value)
    assert str(raised.value).startswith(message)
    assert "\n" not in str(raised.value)


def test_a_runaway_trace_is_refused():
    with pytest.raises(ValueError, match="at most"):
        read_trace([{"type": "tool_call", "name": "x"}] * (MAX_TRACE_STEPS + 1))
