"""A conversation case is bounded (evalkit/limits.py): its number of turns when the suite loads, each
user turn's rendered message and the conversation it grows as the turn is rendered. `validate` (preflight),
`plan` and `run` refuse the same turn with the same one line, naming the case, the limit and the
environment variable that raises it; a reply that makes a later turn too long is an error row."""

from __future__ import annotations

import pytest

from evalkit.engine import load_suites, make_client, plan_calls, preflight, run
from evalkit.errors import SuiteError
from evalkit.run.runner import RunOptions
from evalkit.testing.script import Script
from evalkit.testing.scripted import ScriptedProvider

LONG_INPUT = """
target: {prompt: "unused"}
cases:
  - id: short
    input: {text: "a few words"}
    conversation: [{user: "Summarise {{ input.text }}"}]
  - id: long
    input: {text: "%s"}
    conversation: [{user: "hi"}, {assistant: "hello"}, {user: "Summarise {{ input.text }}"}]
""" % ("w" * 300)


def test_too_many_turns_is_one_problem_naming_the_case_the_limit_and_the_variable(write, monkeypatch):
    monkeypatch.setenv("EVALKIT_CONVERSATION_MAX_TURNS", "3")
    suite = write(
        "s.yml",
        """
        target: {prompt: "unused"}
        cases:
          - id: chatty
            conversation: [{user: a}, {assistant: b}, {user: c}, {assistant: d}, {user: e}]
        """,
    )
    with pytest.raises(SuiteError) as info:
        load_suites([suite])
    (problem,) = info.value.problems
    assert problem.case_id == "chatty"
    assert problem.message == (
        "the conversation has 5 turns, over the limit of 3 (EVALKIT_CONVERSATION_MAX_TURNS raises it)"
    )
    monkeypatch.setenv("EVALKIT_CONVERSATION_MAX_TURNS", "5")
    assert load_suites([suite])[0].cases[0].turns


@pytest.mark.parametrize(
    "variable, message",
    [
        (
            "EVALKIT_TURN_MAX_CHARS",
            "turn 3: its message renders to 310 characters, over the limit of 200 (EVALKIT_TURN_MAX_CHARS raises it)",
        ),
        (
            "EVALKIT_CONVERSATION_MAX_CHARS",
            "turn 3: the conversation grows to 317 characters with it, over the "
            "limit of 200 (EVALKIT_CONVERSATION_MAX_CHARS raises it)",
        ),
    ],
)
def test_validate_plan_and_run_refuse_the_same_long_turn(write, monkeypatch, tmp_path, variable, message):
    monkeypatch.setenv(variable, "200")
    suites = load_suites([write("s.yml", LONG_INPUT)])
    with pytest.raises(SuiteError) as validated:
        preflight(suites)  # what `validate` and `run` ask first
    with pytest.raises(SuiteError) as planned:
        plan_calls(suites, cache_dir=tmp_path / "cache", count_tokens=False)
    for error in (validated.value, planned.value):
        (problem,) = error.problems
        assert (problem.case_id, problem.message) == ("long", message)
    monkeypatch.delenv(variable)
    assert preflight(suites) and plan_calls(suites, cache_dir=tmp_path / "cache", count_tokens=False).lines


def test_a_reply_that_grows_the_conversation_past_the_limit_is_an_error_row(write, monkeypatch):
    monkeypatch.setenv("EVALKIT_CONVERSATION_MAX_CHARS", "500")
    suites = load_suites(
        [
            write(
                "s.yml",
                """
        target: {prompt: "unused"}
        cases:
          - id: c
            conversation: [{user: "first"}, {user: "second"}]
        """,
            )
        ]
    )
    preflight(suites)  # the stand-in replies are short: only the real reply is too long
    script = Script().reply("x" * 600, prompt="first")
    report = run(suites, make_client(ScriptedProvider(script), no_cache=True, deprecated=None), RunOptions())
    run_ = report.suites[0].cases[0].runs[0]
    assert run_.error == (
        "turn 2: the conversation grows to 611 characters with it, over the limit of 500 "
        "(EVALKIT_CONVERSATION_MAX_CHARS raises it)"
    )
