"""Prompt templates: the plain-placeholder path renders exactly what Jinja renders."""

from __future__ import annotations

import datetime
import math

import pytest

from evalkit.errors import TargetError
from evalkit.suite.prompts import _compiled, _text_and_names, render_prompt

VALUES = ["plain", "", "ünïcode ✓", "{{ not a tag }}", "line\r\nbreak", 0, -7, 3.5, 1e20, math.inf, True, False,
          None, [1, "a", None], {"k": [1, 2]}, datetime.date(2026, 11, 23)]

TEMPLATES = ["Say ok to case {{ x }}", "{{x}}{{y}}", "{{ x }}}", "{ {{ x }} }", "a\r\nb {{ x }}\n", "\n\n{{ y }}\n",
             "{# note #}{{ x }}", "{{- x }}  tail", "{% raw %}{{ x }}{% endraw %}{{ y }}", "", "no placeholders",
             "{{ input }}", "{{ x|upper }}", "{{ true }}", "{% if x %}{{ y }}{% endif %}", "{{ x.real }}",
             "{{ x ~ y }}", "{{ x }}{{ x }}"]


def jinja(template: str, case_input: dict) -> str:
    return _compiled(template).render(**case_input, input=case_input)


@pytest.mark.parametrize("template", TEMPLATES)
def test_every_template_renders_as_jinja_renders_it(template):
    for i, x in enumerate(VALUES):
        case_input = {"x": x, "y": VALUES[-1 - i]}
        try:
            expected = jinja(template, case_input)
        except Exception:  # noqa: BLE001 - a template Jinja cannot render for this value (x|upper of a list)
            continue
        assert render_prompt(template, case_input) == expected, (template, x)


def test_plain_placeholders_take_the_short_path_and_everything_else_jinja():
    assert _text_and_names("Say ok to case {{ i }}") == ["Say ok to case ", "i", ""]
    assert _text_and_names("a\r\nb {{x}}") == ["a\nb ", "x", ""]  # the text as Jinja parsed it
    for template in ("{{ x|upper }}", "{{ true }}", "{% if x %}y{% endif %}", "{{ x.y }}", "{{ x ~ y }}", "{{ f() }}",
                     "{{ x"):
        assert _text_and_names(template) is None, template


def test_a_missing_variable_is_still_a_one_line_error():
    with pytest.raises(TargetError, match="prompt template: 'name' is undefined"):
        render_prompt("Hi {{ name }}", {"other": 1})
    assert render_prompt("{{ input }}", "a string input") == "a string input"
