"""Trajectory checks: each passes and fails on a purpose-built trace, with the reason it gives;
bad arguments are refused when the suite loads; a run without a trace fails them all."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from evalkit.checks.base import CheckContext, Outcome
from evalkit.checks.registry import CheckRegistry
from evalkit.checks.trajectory import CHECKS, NO_TRACE
from evalkit.errors import SuiteError
from evalkit.suite import load_suite
from evalkit.testing.script import Script
from evalkit.trace.steps import Step
from tests.conftest import verdicts

REGISTRY = CheckRegistry()


def check(kind: str, **args):
    return REGISTRY.build(kind, args)


def decide(kind: str, trace: list[Step] | None, output: str = "Done.", **args) -> Outcome:
    outcome = check(kind, **args).evaluate(CheckContext(output=output, trace=trace))
    assert isinstance(outcome, Outcome)
    return outcome


def agent(*calls: tuple, answer: str = "Done.") -> list[Step]:
    """user asks; the model asks for each call in turn (one assistant turn each); then answers."""
    steps = [Step.message("user", "weather in Paris and London?")]
    for name, arguments, *error in calls:
        steps += [
            Step.message("assistant", ""),
            Step.tool_call(name, arguments, result=None if error else {"ok": True}, error=error[0] if error else None),
        ]
    return steps + [Step.message("assistant", answer)]


WEATHER = agent(
    ("get_weather", {"city": "Paris", "units": "C"}),
    ("get_weather", {"city": "London", "units": "C"}),
    ("send_email", {"to": "ana@example.com"}),
)


# -- tool_called ---------------------------------------------------------------------------------


def test_tool_called_passes_and_fails_with_counts():
    assert decide("tool_called", WEATHER, name="get_weather") == Outcome(
        True, "get_weather was called 2 times; wanted at least 1"
    )
    assert decide("tool_called", WEATHER, name="search") == Outcome(
        False, "search was called 0 times; wanted at least 1"
    )
    assert decide("tool_called", WEATHER, name="get_weather", times=1) == Outcome(
        False, "get_weather was called 2 times; wanted exactly 1"
    )
    assert decide("tool_called", WEATHER, name="get_weather", times={"min": 1, "max": 2}).passed
    assert decide("tool_called", WEATHER, name="get_weather", times={"max": 1}).reason == (
        "get_weather was called 2 times; wanted at most 1"
    )
    assert decide("tool_called", WEATHER, name="search", times=0).passed


def test_tool_called_with_arguments_by_each_match():
    paris = decide("tool_called", WEATHER, name="get_weather", arguments={"city": "Paris"})
    assert paris == Outcome(True, 'get_weather was called 2 times, 1 with {"city": "Paris"}; wanted at least 1')
    rome = decide("tool_called", WEATHER, name="get_weather", arguments={"city": "Rome"})
    assert rome == Outcome(
        False,
        'get_weather was called 2 times, 0 with {"city": "Rome"} '
        '(first mismatch: city="Paris", wanted "Rome"); wanted at least 1',
    )
    assert not decide("tool_called", WEATHER, name="get_weather", arguments={"city": "Paris"}, match="equals").passed
    assert decide(
        "tool_called", WEATHER, name="get_weather", arguments={"city": "Paris", "units": "C"}, match="equals"
    ).passed
    assert (
        "unexpected units"
        in decide("tool_called", WEATHER, name="get_weather", arguments={"city": "Paris"}, match="equals").reason
    )
    assert decide("tool_called", WEATHER, name="get_weather", arguments={"city": "L.*"}, match="regex").passed
    partial = decide("tool_called", WEATHER, name="get_weather", arguments={"city": "Lon"}, match="regex")
    assert not partial.passed and 'city="Paris" does not match /Lon/' in partial.reason  # a full match is wanted
    schema = {"type": "object", "required": ["city"], "properties": {"city": {"enum": ["Paris", "London"]}}}
    assert decide("tool_called", WEATHER, name="get_weather", arguments=schema, match="schema", times=2).passed
    wrong = decide("tool_called", WEATHER, name="get_weather", arguments={"required": ["date"]}, match="schema")
    assert not wrong.passed and "schema: at (arguments): 'date' is a required property" in wrong.reason


def test_regex_matches_a_non_string_argument_as_its_json_text():
    trace = agent(("set_alarm", {"hour": 7}))
    assert decide("tool_called", trace, name="set_alarm", arguments={"hour": "[0-9]"}, match="regex").passed
    assert not decide("tool_called", trace, name="set_alarm", arguments={"minute": ".*"}, match="regex").passed


# -- tool_not_called -----------------------------------------------------------------------------


def test_tool_not_called():
    assert decide("tool_not_called", WEATHER, name="delete_account") == Outcome(True, "delete_account was not called")
    failed = decide("tool_not_called", WEATHER, name="send_email")
    assert failed == Outcome(False, 'send_email was called (tool call 3: {"to": "ana@example.com"})')
    assert decide("tool_not_called", WEATHER, name="get_weather", arguments={"city": "Rome"}) == Outcome(
        True, 'get_weather was called 2 times, never with {"city": "Rome"}'
    )
    london = decide("tool_not_called", WEATHER, name="get_weather", arguments={"city": "London"})
    assert not london.passed and "tool call 2" in london.reason


# -- tool_sequence -------------------------------------------------------------------------------


def test_tool_sequence_exact():
    names = ["get_weather", "get_weather", "send_email"]
    assert decide("tool_sequence", WEATHER, names=names, order="exact").passed
    short = decide("tool_sequence", WEATHER, names=names[:2], order="exact")
    assert short == Outcome(
        False,
        "calls: get_weather, get_weather, send_email; wanted exactly: get_weather, get_weather (3 calls, wanted 2)",
    )
    other = decide("tool_sequence", WEATHER, names=["get_weather", "send_email", "get_weather"], order="exact")
    assert "(call 2 is get_weather, wanted send_email)" in other.reason and not other.passed


def test_tool_sequence_in_order_with_and_without_gaps():
    assert decide("tool_sequence", WEATHER, names=["get_weather", "send_email"]).passed
    missing = decide("tool_sequence", WEATHER, names=["get_weather", "send_email", "archive"])
    assert missing == Outcome(
        False,
        "calls: get_weather, get_weather, send_email; wanted in order: get_weather, "
        "send_email, archive (archive missing)",
    )
    backwards = decide("tool_sequence", WEATHER, names=["send_email", "get_weather"])
    assert not backwards.passed and backwards.reason.endswith("(get_weather not after send_email)")
    trace = agent(("search", {}), ("read", {}), ("summarise", {}))
    assert decide("tool_sequence", trace, names=["search", "summarise"]).passed
    gap = decide("tool_sequence", trace, names=["search", "summarise"], gaps=False)
    assert gap == Outcome(False, "calls: search, read, summarise; wanted consecutively: search, summarise (not found)")
    assert decide("tool_sequence", trace, names=["read", "summarise"], gaps=False).passed


def test_tool_sequence_unordered_counts_duplicates():
    assert decide("tool_sequence", WEATHER, names=["send_email", "get_weather"], order="unordered").passed
    assert decide("tool_sequence", WEATHER, names=["get_weather"] * 2, order="unordered").passed
    three = decide("tool_sequence", WEATHER, names=["get_weather"] * 3 + ["search"], order="unordered")
    assert not three.passed and three.reason.endswith("(missing: get_weather, search)")
    four = decide("tool_sequence", agent(), names=["a", "a"], order="unordered")
    assert four == Outcome(False, "calls: (none); wanted each of: a, a (missing: a x2)")


# -- tool_args -----------------------------------------------------------------------------------


def test_tool_args_every_call_must_match():
    assert decide("tool_args", WEATHER, name="get_weather", arguments={"units": "C"}) == Outcome(
        True, 'all 2 call(s) of get_weather with {"units": "C"}'
    )
    assert decide("tool_args", WEATHER, name="get_weather", arguments={"city": "Paris"}) == Outcome(
        False, 'get_weather call 2 of 2: city="London", wanted "Paris"'
    )
    assert decide("tool_args", WEATHER, name="search", arguments={"q": "x"}) == Outcome(
        False, "search was never called (allow_none: true accepts that)"
    )
    assert decide("tool_args", WEATHER, name="search", arguments={"q": "x"}, allow_none=True).passed


# -- max_steps, max_tool_calls -------------------------------------------------------------------


def test_max_steps_counts_model_turns():
    assert decide("max_steps", WEATHER, max=4) == Outcome(True, "4 model turns (at most 4)")
    assert decide("max_steps", WEATHER, max=3) == Outcome(False, "4 model turns; at most 3 allowed")


def test_max_tool_calls_all_or_of_one_tool():
    assert decide("max_tool_calls", WEATHER, max=3).passed
    assert decide("max_tool_calls", WEATHER, max=2) == Outcome(False, "3 tool calls; at most 2 allowed")
    assert decide("max_tool_calls", WEATHER, max=1, name="get_weather") == Outcome(
        False, "2 tool calls of get_weather; at most 1 allowed"
    )
    assert decide("max_tool_calls", WEATHER, max=1, name="send_email").passed


# -- tool_error_handled --------------------------------------------------------------------------


def test_tool_error_handled():
    assert decide("tool_error_handled", WEATHER) == Outcome(None, "no tool call failed")
    recovered = agent(("search", {"q": "x"}, "timeout"), ("search", {"q": "x"}))
    assert decide("tool_error_handled", recovered) == Outcome(
        True, 'the model went on after 1 failed tool call: search ("timeout"), and answered'
    )
    abandoned = [
        Step.message("user", "hi"),
        Step.message("assistant", ""),
        Step.tool_call("search", {}, error="HTTP 500"),
    ]
    assert decide("tool_error_handled", abandoned, output="") == Outcome(
        False, 'search failed ("HTTP 500") and the model took no step after it'
    )
    silent = agent(("search", {}, "HTTP 500"), answer="")
    assert decide("tool_error_handled", silent, output="  ") == Outcome(
        False, 'the final output is empty after 1 failed tool call: search ("HTTP 500")'
    )


# -- no trace ------------------------------------------------------------------------------------


@pytest.mark.parametrize("cls", CHECKS, ids=lambda c: c.type)
def test_a_run_without_a_trace_fails_every_trajectory_check_saying_how_to_record_one(cls):
    args = {"name": "x", "names": ["x"], "max": 1, "arguments": {}}
    fields = cls.model_fields
    outcome = cls(**{k: v for k, v in args.items() if k in fields}).evaluate(CheckContext(output="hi"))
    assert outcome == Outcome(False, NO_TRACE)
    assert "TargetResult(output, trace=" in NO_TRACE


# -- bad arguments -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kind, args, message",
    [
        ("tool_called", {"name": "x", "colour": 1}, "colour"),
        ("tool_called", {"name": "x", "arguments": {"a": 1}, "match": "fuzzy"}, "match"),
        ("tool_called", {"name": "x", "match": "equals"}, "`match` needs `arguments`"),
        ("tool_called", {"name": "x", "arguments": {"a": "(x"}, "match": "regex"}, "arguments.a: invalid regular"),
        ("tool_called", {"name": "x", "arguments": {"a": 3}, "match": "regex"}, "a regular expression (a string)"),
        ("tool_called", {"name": "x", "arguments": {"type": "nope"}, "match": "schema"}, "invalid JSON Schema"),
        ("tool_called", {"name": "x", "times": -1}, "times must be 0 or more"),
        ("tool_called", {"name": "x", "times": {"min": 3, "max": 1}}, "min 3 exceeds max 1"),
        ("tool_called", {"name": "x", "times": {}}, "times needs"),
        ("tool_called", {"name": "x", "times": True}, "times is a number of calls or {min:, max:}, not True"),
        ("tool_called", {"name": "x", "times": {"min": 1, "most": 2}}, "most"),
        ("tool_called", {"name": ""}, "name"),
        ("tool_sequence", {"names": []}, "names"),
        ("tool_sequence", {"names": ["a"], "order": "exact", "gaps": False}, "`gaps` applies only to order: in_order"),
        ("tool_args", {"name": "x"}, "arguments"),
        ("max_steps", {"max": -1}, "max"),
        ("max_tool_calls", {"max": -2}, "max"),
    ],
)
def test_bad_arguments_are_refused(kind, args, message):
    with pytest.raises(ValidationError) as raised:
        check(kind, **args)
    assert message in str(raised.value)


def test_bad_arguments_are_load_errors_with_file_and_line(write):
    path = write(
        "agent.yml",
        """
        target: agent:run
        cases:
          - id: a
            checks:
              - {type: tool_called, name: search, arguments: {q: "(unclosed"}, match: regex}
          - id: b
            checks:
              - {type: max_steps, max: -1}
    """,
    )
    with pytest.raises(SuiteError) as raised:
        load_suite(path)
    text = str(raised.value)
    assert text.startswith(f"{path}: 2 problems")
    assert "line 5: case a: tool_called: arguments.q: invalid regular expression" in text
    assert "line 8: case b: max_steps: max:" in text


# -- in a suite: checks and a rubric item's check beside the judge -----------------------------

AGENT_MODULE = """
from evalkit import TargetResult

def run(input):
    steps = [{"type": "message", "role": "user", "text": input["q"]},
             {"type": "message", "role": "assistant", "text": ""},
             {"type": "tool_call", "name": "get_weather", "arguments": {"city": "Paris"}, "result": "18C"},
             {"type": "message", "role": "assistant", "text": "18C in Paris"}]
    return TargetResult("18C in Paris", trace=steps)

def plain(input):
    return "18C in Paris"

def concierge(input):  # an agent traced with OpenTelemetry: its OTLP/JSON export is its trace
    import json, pathlib
    export = json.loads(pathlib.Path(input["otlp"]).read_text(encoding="utf-8"))
    return TargetResult("It's 18C in Paris; Chez Marie is full at 8pm, try 9pm?", trace=export)
"""


def test_trajectory_checks_in_cases_and_rubric_items_with_the_judge(write, run_scripted):
    write("agent.py", AGENT_MODULE)
    path = write(
        "suite.yml",
        """
        target: agent:run
        rubrics:
          weather:
            - {id: used_tool, text: Looked the weather up, check: {type: tool_called, name: get_weather},
               judge: "Gives the temperature"}
            - {id: one_city, check: {type: tool_called, name: get_weather, arguments: {city: London}},
               judge: "Names a city"}
        cases:
          - id: ok
            input: {q: "weather in Paris?"}
            checks: [{type: max_tool_calls, max: 1}, {type: tool_not_called, name: send_email}]
            rubric: weather
          - id: too_many
            input: {q: "weather?"}
            checks: [{type: max_steps, max: 1}]
    """,
    )
    script = Script().tool_reply("record_verdicts", verdicts({"used_tool": "pass", "one_city": "pass"}))
    report = run_scripted(path, script)
    cases = {c.id: c for c in report.suites[0].cases}
    items = {i.id: i for i in cases["ok"].runs[0].items}
    assert all(items[k].status == "pass" for k in ("check1:max_tool_calls", "check2:tool_not_called"))
    assert items["used_tool"].status == "pass"
    assert items["used_tool"].reason.startswith("code: get_weather was called 1 time; wanted at least 1 · judge:")
    assert items["one_city"].status == "fail"  # the code witness fails the item whatever the judge said
    assert 'code: get_weather was called 1 time, 0 with {"city": "London"}' in items["one_city"].reason
    too_many = cases["too_many"].runs[0].items[0]
    assert (too_many.status, too_many.reason) == ("fail", "2 model turns; at most 1 allowed")


def test_a_target_without_a_trace_fails_a_trajectory_check_in_a_suite(write, run_scripted):
    write("agent.py", AGENT_MODULE)
    path = write(
        "suite.yml",
        """
        target: agent:plain
        cases:
          - {id: a, input: {q: x}, checks: [{type: tool_not_called, name: send_email}]}
    """,
    )
    report = run_scripted(path, Script())
    item = report.suites[0].cases[0].runs[0].items[0]
    assert (item.status, item.reason) == ("fail", NO_TRACE)


def test_an_opentelemetry_trace_a_target_returns_is_checked_like_any_trace(write, run_scripted):
    write("agent.py", AGENT_MODULE)
    otlp = Path(__file__).parents[1] / "trace" / "concierge_otlp.json"
    path = write(
        "suite.yml",
        f"""
        target: agent:concierge
        cases:
          - id: a
            input: {{otlp: "{otlp}"}}
            checks:
              - {{type: tool_sequence, names: [get_weather, book_table], order: exact}}
              - {{type: tool_called, name: book_table, arguments: {{party: 2}}}}
              - {{type: tool_error_handled}}
              - {{type: max_steps, max: 2}}
    """,
    )
    run = run_scripted(path, Script()).suites[0].cases[0].runs[0]
    assert run.error is None
    assert [(i.status, i.reason) for i in run.items] == [
        ("pass", "calls: get_weather, book_table, exactly as wanted"),
        ("pass", 'book_table was called 1 time, 1 with {"party": 2}; wanted at least 1'),
        ("pass", 'the model went on after 1 failed tool call: book_table ("no table for 2 at 20:00"), and answered'),
        ("fail", "3 model turns; at most 2 allowed"),
    ]


def test_a_prompt_targets_tool_loop_is_checked_and_shown_to_the_judge(write):
    """The trajectory evalkit records for a prompt target with tools: checked by code, and the judge's
    request holds it (fenced as data)."""
    from evalkit.engine import load_suites, make_client, run
    from evalkit.run.runner import RunOptions
    from evalkit.testing.scripted import ScriptedProvider

    path = write(
        "suite.yml",
        """
        target:
          prompt: "Weather in {{ city }}?"
          tools:
            - {name: get_weather, description: The weather now., input_schema: {type: object}}
        cases:
          - id: paris
            input: {city: Paris}
            tool_results:
              get_weather: [{arguments: {city: Paris}, result: {sky: rain}}]
            checks:
              - {type: tool_called, name: get_weather, arguments: {city: Paris}, times: 1}
              - {type: max_steps, max: 2}
              - {type: llm_judge, criteria: Uses what the tool said}
    """,
    )
    script = (
        Script()
        .tool_use([("get_weather", {"city": "Paris"})], turn=1)
        .reply("Rain: take a coat.", turn=2)
        .tool_reply("record_verdicts", verdicts({"check3:llm_judge": "pass"}))
    )
    provider = ScriptedProvider(script)
    report = run(load_suites([path]), make_client(provider, no_cache=True, deprecated=None), RunOptions())
    result = report.suites[0].cases[0].runs[0]
    assert result.error is None and result.output == "Rain: take a coat."
    assert [(i.status, i.reason) for i in result.items[:2]] == [
        ("pass", 'get_weather was called 1 time, 1 with {"city": "Paris"}; wanted exactly 1'),
        ("pass", "2 model turns (at most 2)"),
    ]
    [judged] = [b["messages"][0]["content"] for b in provider.requests if b.get("tool_choice", {}).get("name")]
    assert "<trajectory-" in judged and 'tool get_weather({"city": "Paris"}) -> {"sky": "rain"}' in judged


def test_a_schema_mismatch_names_the_argument_that_is_wrong():
    schema = {"type": "object", "properties": {"city": {"enum": ["Paris", "London"]}}}
    wrong = decide(
        "tool_called", agent(("get_weather", {"city": "Lyon"})), name="get_weather", arguments=schema, match="schema"
    )
    assert not wrong.passed and "schema: at city: 'Lyon' is not one of" in wrong.reason


def test_a_recovery_after_many_failed_calls_counts_the_ones_not_shown():
    calls = [("get_weather", {"city": c}, "timeout") for c in ("Paris", "London", "Rome", "Oslo")]
    outcome = decide("tool_error_handled", agent(*calls, answer="The weather service is down; try later."))
    assert outcome.passed and "4 failed tool calls" in outcome.reason and "and 1 more" in outcome.reason
