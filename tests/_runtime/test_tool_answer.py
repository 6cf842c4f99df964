"""A tool function's return value as the model is sent it: JSON, anything else as text, or why not."""

from __future__ import annotations

from datetime import date

from evalkit._runtime.user_calls import tool_answer


def test_a_tool_value_becomes_json_with_what_json_lacks_as_text():
    assert tool_answer({"temp_c": 18, "on": date(2026, 11, 26), "rain": None}) == (
        {"temp_c": 18, "on": "2026-11-26", "rain": None},
        None,
    )
    assert tool_answer(("a", 1)) == (["a", 1], None)


def test_a_circular_value_is_an_error_told_to_the_model():
    loop: list = []
    loop.append(loop)
    result, problem = tool_answer(loop)
    assert result is None
    assert problem == "the tool returned what cannot be sent as JSON: ValueError: Circular reference detected"
