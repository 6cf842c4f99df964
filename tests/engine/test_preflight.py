"""`validate` refuses what `run` would fail on, and `run` refuses it with exit 2 before any call."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from evalkit.cli.commands import main
from evalkit.engine import load_suites, preflight
from evalkit.errors import SuiteError, UsageError

TARGETS = "def one(i):\n    return 'x'\n\ndef three(a, b, c):\n    return 'x'\n\nNOT_CALLABLE = 3\n"


@pytest.mark.parametrize(
    "text, message",
    [
        (
            "target: preflight_targets:missing\ncases: [{id: a}]\n",
            "module 'preflight_targets' has no attribute 'missing'",
        ),
        ("target: nomodule:f\ncases: [{id: a}]\n", "cannot import module 'nomodule'"),
        ("target: preflight_targets:three\ncases: [{id: a}]\n", "cannot be called as three(input) or (input, client)"),
        ("target: preflight_targets:NOT_CALLABLE\ncases: [{id: a}]\n", "is a int, not a function"),
        (
            "target: {prompt: 'Hi {{ name }}'}\ncases: [{id: a, input: {nom: x}}]\n",
            "case a: prompt template: 'name' is undefined",
        ),
        ("target: {prompt: 'Hi {{ name }}'}\ncases: [{id: a, input: [1]}]\n", "'name' is undefined"),
        (
            "target: preflight_targets:one\ncases: [{id: a, input: {x: 1}, rubric: [{judge: ok, when: 'input.y > 1'}]}]\n",
            "condition 'input.y > 1'",
        ),
        (
            "target: preflight_targets:one\nfields: {age: {type: integer}}\ncases: [{id: a, checks: [{type: field, field: age, equals: thirty}]}]\n",
            "equals 'thirty' can never match field type integer",
        ),
        (
            "target: preflight_targets:one\nfields: {ok: {type: boolean}}\ncases: [{id: a, checks: [{type: field, field: ok, min: 1}]}]\n",
            "min/max on field type boolean",
        ),
    ],
)
def test_preflight_finds_what_the_run_would_trip_on(write, text, message):
    write("preflight_targets.py", TARGETS)
    suites = load_suites([write("s.yml", text)])
    with pytest.raises(SuiteError) as info:
        preflight(suites)
    assert message in str(info.value)


def test_facts_are_unknown_before_a_run_and_not_an_error(write):
    write("preflight_targets.py", TARGETS)
    suites = load_suites(
        [
            write(
                "s.yml",
                "target: preflight_targets:one\ncases: [{id: a, input: {x: 1}, rubric: "
                "[{judge: ok, when: 'facts.volume > 3 and input.x == 1'}]}]\n",
            )
        ]
    )
    preflight(suites)


def test_case_glob_matching_nothing_is_a_usage_error(write):
    write("preflight_targets.py", TARGETS)
    suites = load_suites([write("s.yml", "target: preflight_targets:one\ncases: [{id: a}]\n")])
    with pytest.raises(UsageError, match="--case zz matches no case"):
        preflight(suites, cases=["zz"])


@pytest.mark.parametrize("command", ["validate", "run"])
def test_cli_exits_2_before_any_call(write, command):
    write("preflight_targets.py", TARGETS)
    path = write("s.yml", "target: {prompt: 'Hi {{ name }}'}\ncases: [{id: a, input: {}}]\n")
    # No fake server: a model call would fail with a connection error, not exit 2 with this message.
    result = CliRunner().invoke(main, [command, str(path)], env={"ANTHROPIC_API_KEY": "k"})
    assert result.exit_code == 2 and "case a: prompt template: 'name' is undefined" in result.output


@pytest.mark.parametrize(
    "text, message",
    [
        ("cases: [{id: ../../../evil}]\n", "is not a plain name"),
        ("cases: [{id: 'a\\\\b'}]\n", "is not a plain name"),
        ("target: {prompt_file: ../outside.txt}\ncases: [{id: a}]\n", "outside the suite's folder"),
    ],
)
def test_loader_refuses_unsafe_names(write, text, message):
    write("outside.txt", "hi")
    with pytest.raises(SuiteError, match=message):
        load_suites([write("sub/s.yml", text)])


def test_grouped_case_ids_stay_valid(write):
    assert load_suites([write("s.yml", "cases: [{id: group/case-1.v2}]\n")])[0].cases[0].id == "group/case-1.v2"


TOOL_SUITE = """
name: tools
target:
  prompt: "{{ q }}"
  tools:
    - name: lookup
      input_schema: {type: object, properties: {order_id: {type: string}, verbose: {type: boolean}}, required: [order_id]}
      function: FUNCTION
cases:
  - {id: a, input: {q: hi}}
"""


@pytest.mark.parametrize(
    "module, function, message",
    [
        ("def lookup(order_id, verbose=False):\n    return {}\n", "orders:lookup", None),
        ("def lookup(**arguments):\n    return {}\n", "orders:lookup", None),
        ("", "orders:lookup", "tool lookup: function orders:lookup:"),
        (
            "def lookup(order_id, verbose=False):\n    return {}\n",
            "missing_orders:lookup",
            "cannot import module 'missing_orders'",
        ),
        ("lookup = 3\n", "orders:lookup", "tool lookup: orders:lookup is a int, not a function"),
        (
            "def lookup(order, verbose=False):\n    return {}\n",
            "orders:lookup",
            "cannot be called with the arguments its input_schema requires (order_id)",
        ),
        (
            "def lookup(order_id):\n    return {}\n",
            "orders:lookup",
            "takes no parameter verbose that its input_schema declares",
        ),
        (
            "raise RuntimeError('no database')\n",
            "orders:lookup",
            "importing orders:lookup raised RuntimeError: no database",
        ),
    ],
)
def test_a_tool_function_is_checked_before_any_call(write, module, function, message):
    write("orders.py", module)
    suite = write("s.yml", TOOL_SUITE.replace("FUNCTION", function))
    suites = load_suites([suite])
    if message is None:
        assert preflight(suites) == suites
        return
    with pytest.raises(SuiteError) as raised:
        preflight(suites)
    assert message in str(raised.value) and "s.yml" in str(raised.value)
