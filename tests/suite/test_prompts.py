"""Prompt templates: a case's input keys (and the whole input as `input`) render through the
sandboxed Jinja template; a missing variable is a one-line error."""

from __future__ import annotations

import pytest

from evalkit.errors import TargetError
from evalkit.suite.prompts import check_template, render_prompt


@pytest.mark.parametrize(
    "template, case_input, expected",
    [
        ("Say ok to case {{ i }}", {"i": 7}, "Say ok to case 7"),
        ("{{ x }}|{{ y }}", {"x": None, "y": [1, "a"]}, "None|[1, 'a']"),
        ("a\r\nb {{ x }}\n", {"x": "ünï"}, "a\nb ünï\n"),  # Jinja's newlines; the trailing one kept
        ("{{ x|upper }}{% if y %}!{% endif %}", {"x": "hi", "y": True}, "HI!"),
        ("{% raw %}{{ x }}{% endraw %}", {"x": 1}, "{{ x }}"),
        ("{{ input.k }}", {"k": "v"}, "v"),
    ],
)
def test_a_template_renders_with_the_cases_input(template, case_input, expected):
    assert render_prompt(template, case_input) == expected
    assert render_prompt(template, case_input) == expected  # again, from the compiled template


def test_a_missing_variable_is_still_a_one_line_error():
    with pytest.raises(TargetError, match="prompt template: 'name' is undefined"):
        render_prompt("Hi {{ name }}", {"other": 1})
    assert render_prompt("{{ input }}", "a string input") == "a string input"


def test_a_syntax_error_is_reported_with_its_line():
    assert check_template("one\n{{ x ") is not None and check_template("one\n{{ x ").startswith("line 2:")
    assert check_template("{{ x }}") is None
