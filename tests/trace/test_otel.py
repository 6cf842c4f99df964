"""OpenTelemetry GenAI traces read as trajectories: an OTLP/JSON export or a list of spans, by the
GenAI semantic conventions, in the order the spans started; malformed ones refused in one line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evalkit.trace.otel import is_otlp, otlp_steps
from evalkit.trace.steps import Step, model_turns, read_trace, tool_calls

CONCIERGE = json.loads((Path(__file__).parent / "concierge_otlp.json").read_text(encoding="utf-8"))


def spans_of(export: dict) -> list[dict]:
    return [span for r in export["resourceSpans"] for s in r["scopeSpans"] for span in s["spans"]]


def test_an_otlp_export_reads_into_the_agents_steps_in_start_order():
    trace = read_trace(CONCIERGE)
    assert [(s.type, s.role or s.name) for s in trace] == [
        ("message", "user"),
        ("message", "assistant"),
        ("tool_call", "get_weather"),
        ("message", "assistant"),
        ("tool_call", "book_table"),
        ("message", "assistant"),
    ]
    weather, booking = tool_calls(trace)
    assert weather == Step.tool_call(
        "get_weather",
        {"city": "Paris", "when": "tonight"},
        result={"temp_c": 18, "sky": "clear"},
        id="toolu_01A",
        start=1.25,
        seconds=0.27,
    )
    assert booking.arguments == {"restaurant": "Chez Marie", "party": 2, "time": "20:00"}
    assert (booking.error, booking.result, booking.id) == ("no table for 2 at 20:00", None, "toolu_02B")
    assert trace[0].text.startswith("What's the weather in Paris tonight?")
    assert trace[1].text == "Let me check the forecast first." and trace[1].start == 0.05
    assert trace[-1].text.endswith("shall I try 9pm?") and trace[-1].seconds == pytest.approx(1.07)
    assert model_turns(trace) == 3  # the three chat spans; the agent span and the HTTP span are not steps


def test_a_list_of_spans_reads_as_the_export_does():
    spans = spans_of(CONCIERGE)
    assert is_otlp(spans) and is_otlp(CONCIERGE)
    assert read_trace(spans) == read_trace(CONCIERGE)
    assert not is_otlp([{"type": "message", "role": "user", "text": "hi"}]) and not is_otlp([])


def attr(key: str, value) -> dict:
    kind = {str: "stringValue", bool: "boolValue", int: "intValue", float: "doubleValue"}[type(value)]
    return {"key": key, "value": {kind: str(value) if kind == "intValue" else value}}


def span(name: str, start: int, attrs: dict, **extra) -> dict:
    return {
        "spanId": f"{start:016x}",
        "name": name,
        "startTimeUnixNano": str(start * 10**9),
        "endTimeUnixNano": str(start * 10**9 + 5 * 10**8),
        "attributes": [attr(k, v) for k, v in attrs.items()],
        **extra,
    }


def test_tool_calls_no_execute_tool_span_recorded_come_from_the_models_requests():
    asked = [
        {
            "role": "assistant",
            "parts": [{"type": "tool_call", "id": "c1", "name": "search", "arguments": {"q": "evalkit"}}],
        }
    ]
    told = [
        {"role": "user", "parts": [{"type": "text", "content": "find evalkit"}]},
        *asked,
        {"role": "tool", "parts": [{"type": "tool_call_response", "id": "c1", "response": '["a hit"]'}]},
    ]
    answer = [{"role": "assistant", "parts": [{"type": "text", "content": "Found it."}]}]
    trace = read_trace(
        [
            span(
                "chat m",
                1,
                {
                    "gen_ai.operation.name": "chat",
                    "gen_ai.input.messages": json.dumps(told[:1]),
                    "gen_ai.output.messages": json.dumps(asked),
                },
            ),
            span(
                "chat m",
                3,
                {
                    "gen_ai.operation.name": "chat",
                    "gen_ai.input.messages": json.dumps(told),
                    "gen_ai.output.messages": json.dumps(answer),
                },
            ),
        ]
    )
    assert [(s.type, s.role or s.name) for s in trace] == [
        ("message", "user"),
        ("message", "assistant"),
        ("tool_call", "search"),
        ("message", "assistant"),
    ]
    assert (trace[2].arguments, trace[2].result, trace[2].id) == ({"q": "evalkit"}, ["a hit"], "c1")
    assert trace[1].start == 0.0 and trace[3].start == 2.0 and trace[3].seconds == 0.5


def test_the_operation_falls_back_to_the_span_name_and_attribute_values_are_decoded():
    trace = read_trace(
        [
            span(
                "execute_tool lookup",
                2,
                {"gen_ai.tool.call.arguments": "not json"},
                status={"code": "STATUS_CODE_ERROR"},
            ),
            span("execute_tool count", 1, {"gen_ai.tool.call.result": "3", "error.type": "Timeout"}),
        ]
    )
    assert [(s.name, s.arguments, s.result, s.error) for s in trace] == [
        ("count", {}, 3, "Timeout"),
        ("lookup", {"input": "not json"}, None, "error"),
    ]
    assert otlp_steps(
        [
            {
                "spanId": "x",
                "startTimeUnixNano": 0,
                "attributes": [
                    {"key": "gen_ai.operation.name", "value": {"stringValue": "execute_tool"}},
                    {"key": "gen_ai.tool.name", "value": {"stringValue": "t"}},
                    {
                        "key": "gen_ai.tool.call.arguments",
                        "value": {
                            "kvlistValue": {
                                "values": [
                                    {"key": "n", "value": {"intValue": "7"}},
                                    {"key": "ok", "value": {"boolValue": True}},
                                    {"key": "xs", "value": {"arrayValue": {"values": [{"doubleValue": 0.5}]}}},
                                ]
                            }
                        },
                    },
                ],
            }
        ]
    )[0]["arguments"] == {"n": 7, "ok": True, "xs": [0.5]}


@pytest.mark.parametrize(
    "value, message",
    [
        ({"resourceSpans": {}}, "OpenTelemetry trace: resourceSpans is a dict, not a list"),
        (
            {"resourceSpans": [{"scopeSpans": [{"spans": [3]}]}]},
            "OpenTelemetry trace: resourceSpans[0].scopeSpans[0].spans[0] is a int, not a mapping",
        ),
        (
            [{"spanId": "a", "name": "chat", "startTimeUnixNano": "soon"}],
            "OpenTelemetry trace: span 1 (chat): startTimeUnixNano is 'soon', not nanoseconds",
        ),
        (
            [{"spanId": "a", "startTimeUnixNano": "1", "attributes": [{"key": "k", "value": 3}]}],
            "OpenTelemetry trace: span 1: attribute k: a value is a {stringValue|intValue|...: ...} mapping",
        ),
        (
            [{"spanId": "a", "startTimeUnixNano": "1", "attributes": {"k": "v"}}],
            "OpenTelemetry trace: span 1: attributes is a dict, not a list",
        ),
        (
            [span("chat", 1, {"gen_ai.operation.name": "chat", "gen_ai.output.messages": '{"role": 1}'})],
            "OpenTelemetry trace: span 1: gen_ai.output.messages is not a JSON list of messages",
        ),
        (
            [span("execute_tool", 1, {"gen_ai.operation.name": "execute_tool"})],
            "OpenTelemetry trace: span 1: an execute_tool span without gen_ai.tool.name",
        ),
    ],
)
def test_a_malformed_otlp_trace_is_refused_in_one_line(value, message):
    with pytest.raises(ValueError) as raised:
        read_trace(value)
    assert str(raised.value) == message


def test_a_list_of_exports_reads_as_one_trace():
    """A file exporter writes one export a line: the lines, each parsed, are one trace."""
    first, second = json.loads(json.dumps(CONCIERGE)), json.loads(json.dumps(CONCIERGE))
    first["resourceSpans"][0]["scopeSpans"] = first["resourceSpans"][0]["scopeSpans"][:1]
    second["resourceSpans"][0]["scopeSpans"] = second["resourceSpans"][0]["scopeSpans"][1:]
    assert is_otlp([first, second])
    assert read_trace([first, second]) == read_trace(CONCIERGE)
    with pytest.raises(ValueError, match=r"^OpenTelemetry trace: export 2 is a str, not a mapping$"):
        read_trace([first, "a line"])
    with pytest.raises(ValueError, match=r"^OpenTelemetry trace: export 1: resourceSpans\[0\].scopeSpans is a int"):
        read_trace([{"resourceSpans": [{"scopeSpans": 1}]}])


def test_a_runaway_otlp_trace_is_refused():
    with pytest.raises(
        ValueError, match=r"over 50,000 spans \(the limit is 50,000; EVALKIT_OTEL_MAX_SPANS raises it\)"
    ):
        read_trace([{"spanId": "a", "startTimeUnixNano": "1"}] * 50_001)


def _span_with(value: dict, key: str = "gen_ai.tool.call.result") -> dict:
    return {
        "spanId": "a",
        "name": "execute_tool lookup",
        "startTimeUnixNano": "1",
        "endTimeUnixNano": "2",
        "attributes": [
            {"key": "gen_ai.operation.name", "value": {"stringValue": "execute_tool"}},
            {"key": "gen_ai.tool.name", "value": {"stringValue": "lookup"}},
            {"key": key, "value": value},
        ],
    }


def test_each_otlp_limit_is_one_line_naming_its_variable(monkeypatch):
    monkeypatch.setenv("EVALKIT_OTEL_MAX_SPANS", "3")
    with pytest.raises(ValueError, match=r"over 3 spans \(the limit is 3; EVALKIT_OTEL_MAX_SPANS raises it\)$"):
        read_trace(CONCIERGE)  # an export: its spans are counted across resources and scopes
    monkeypatch.setenv("EVALKIT_OTEL_MAX_BYTES", "1000")
    monkeypatch.setenv("EVALKIT_OTEL_MAX_SPANS", "50000")
    with pytest.raises(ValueError, match=r"over 1,000 characters as JSON \(the limit is 1,000; EVALKIT_OTEL_MAX_BYTES"):
        read_trace([_span_with({"stringValue": "x" * 2000})])
    monkeypatch.delenv("EVALKIT_OTEL_MAX_BYTES")
    assert read_trace([_span_with({"stringValue": "x" * 2000})])[0].result == "x" * 2000


def test_deep_otlp_nesting_is_refused_not_a_recursion_error():
    nested: dict = {"stringValue": "leaf"}
    for _ in range(100_000):  # an arrayValue inside an arrayValue, 100,000 deep
        nested = {"arrayValue": {"values": [nested]}}
    with pytest.raises(ValueError, match=r"nested deeper than 64 levels \(the limit is 64; EVALKIT_OTEL_MAX_DEPTH"):
        read_trace([_span_with(nested)])
    deep_json = "[" * 100_000 + "]" * 100_000  # a JSON attribute Python's parser cannot read
    with pytest.raises(ValueError, match=r"a JSON attribute is nested deeper than 64 levels .*EVALKIT_OTEL_MAX_DEPTH"):
        read_trace([_span_with({"stringValue": deep_json})])
    with pytest.raises(ValueError, match=r"nested deeper than 64 levels"):
        read_trace([_span_with({"stringValue": "[" * 70 + "]" * 70})])


def test_otlp_numbers_are_bounded():
    with pytest.raises(ValueError, match=r"intValue is 18446744073709551616, outside OTLP's 64-bit integers$"):
        read_trace([_span_with({"intValue": str(2**64)})])
    with pytest.raises(ValueError, match=r"intValue '9999.*\(10,002 characters\) is not an integer$"):
        read_trace([_span_with({"intValue": "9" * 10_000})])  # Python's own digit limit: still one line
    with pytest.raises(ValueError, match=r"startTimeUnixNano is an integer of 40 digits, outside"):
        read_trace([{**_span_with({"stringValue": "ok"}), "startTimeUnixNano": 10**39}])
    # NaN and Infinity are words in OTLP/JSON and in a report: never a float the report cannot store.
    steps = read_trace([_span_with({"doubleValue": "NaN"}), _span_with({"doubleValue": "-Infinity"})])
    assert [s.result for s in steps] == ["NaN", "-Infinity"]
    # A JSON attribute holding NaN, 1e999 or a 500-digit number stays the text it was.
    for text in ('{"score": NaN}', "[1e999]", "[" + "7" * 500 + "]"):
        assert read_trace([_span_with({"stringValue": text})])[0].result == text
    assert read_trace([_span_with({"stringValue": '{"score": 0.5, "n": 3}'})])[0].result == {"score": 0.5, "n": 3}
