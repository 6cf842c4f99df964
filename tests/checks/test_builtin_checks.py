"""Built-in checks on good and bad outputs; every check's failure carries a reason."""

from __future__ import annotations

import pytest
from pydantic import BaseModel, ValidationError

from evalkit.checks import CheckContext, check_types, normalize


def decide(type_: str, output, fields=None, **args):
    check = check_types()[type_].model_validate(args)
    return normalize(check.evaluate(CheckContext(output=output, fields=fields)))


GOOD_MAIN = "def main(input: str, **kwargs) -> str:\n    return input\n"


@pytest.mark.parametrize(
    "type_, output, args, passed, reason",
    [
        ("syntax", GOOD_MAIN, {}, True, "parses"),
        ("syntax", "def main(:\n", {}, False, "syntax error at line 1"),
        ("syntax", {"code": GOOD_MAIN}, {}, True, "parses"),
        ("has_main", GOOD_MAIN, {}, True, "defines main"),
        ("has_main", "def main(input, **kwargs) -> str:\n    return input\n", {}, False, "not annotated"),
        ("has_main", "def main(text: str, **kwargs) -> str:\n    return text\n", {}, False, "expected one parameter"),
        ("has_main", "def main(input: str) -> str:\n    return input\n", {}, False, "no `**kwargs`"),
        ("has_main", "def main(input: str, **kw):\n    return input\n", {}, False, "return annotation is missing"),
        ("has_main", "def helper():\n    pass\n", {}, False, "no module-level"),
        ("count", ["a"] * 30, {"expected": 30}, True, "30 messages"),
        ("count", ["a"] * 29, {"expected": 30}, False, "29 messages, expected 30"),
        ("count", '["a", "b"]', {"min": 3}, False, "fewer than 3"),
        ("max_words", ["one two three"], {"per_message": 6}, True, "within 6"),
        ("max_words", ["one two three four five six seven"], {"per_message": 6}, False, "#1 has 7 words"),
        (
            "distinct",
            ["Almost there"] * 30,
            {},
            False,
            "1 distinct of 30 messages; repeated more than 1x: 'almost there' x30",
        ),
        ("distinct", ["Almost there!", "almost  there…", "Done"], {}, False, "2 distinct of 3"),
        ("distinct", ["Almost there!", "almost  there…", "Done"], {"max_repeats": 2}, True, "2 distinct of 3"),
        ("distinct", ["Checking", "Checking twice"], {}, True, "2 distinct of 2"),
        (
            "forbidden_phrases",
            ["Sorry for the wait"],
            {"phrases": ["sorry"]},
            False,
            "#1 'Sorry for the wait' says 'Sorry'",
        ),
        ("forbidden_phrases", ["Finding a compromise", "Sorrow"], {"phrases": ["promise", "sorry"]}, True, "none of 2"),
        ("forbidden_phrases", ["Te garantizamos el precio"], {"phrases": ["garantiz*"]}, False, "says 'garantizamos'"),
        ("forbidden_phrases", ["I\u2019ll  do it"], {"phrases": ["I'll do"]}, False, "#1"),
        ("forbidden_phrases", "Fine.\nWe promise results.", {"phrases": ["promis*"]}, False, "#2"),
        ("equals", " Paris \n", {"value": "paris", "ignore_case": True}, True, "equal"),
        ("equals", "Lyon", {"value": "Paris"}, False, "expected 'Paris'"),
        ("contains", "Hello World", {"values": ["Hello", "World"]}, True, "contains"),
        ("contains", "Hello", {"value": "World"}, False, "missing 'World'"),
        ("not_contains", "As an AI model", {"value": "as an ai", "ignore_case": True}, False, "contains"),
        ("not_contains", "fine", {"value": "sorry"}, True, "none of"),
        ("regex", "order #1234 placed", {"pattern": r"#\d{4}"}, True, "matches"),
        ("regex", "no number", {"pattern": r"#\d+"}, False, "no match"),
        ("regex", "password: x", {"pattern": "password", "match": False}, False, "unexpected match"),
        ("json", '{"a": 1}', {}, True, "valid JSON"),
        ("json", '```json\n{"a": 1}\n```', {"schema": {"type": "object", "required": ["a"]}}, True, "schema"),
        ("json", '{"a": "x"}', {"schema": {"properties": {"a": {"type": "integer"}}}}, False, "first at a"),
        ("json", "{oops", {}, False, "not JSON"),
        ("length", "abc", {"max": 2}, False, "3 chars, more than 2"),
        ("length", "one two", {"min": 1, "max": 3, "unit": "words"}, True, "2 words"),
    ],
)
def test_builtin_checks(type_, output, args, passed, reason):
    outcome = decide(type_, output, **args)
    assert outcome.passed is passed
    assert reason in outcome.reason


class Node(BaseModel):
    code: str
    language: str = "python"


def test_code_node_validates_pydantic_output_and_named_model(tmp_path, monkeypatch):
    assert decide("code_node", Node(code="x")).passed
    assert not decide("code_node", "plain string").passed  # no model to validate against
    (tmp_path / "nodes.py").write_text(
        "from pydantic import BaseModel\nclass N(BaseModel):\n    code: str\n    entry: str\n"
    )
    check = check_types()["code_node"](model="nodes:N")
    bad = normalize(check.evaluate(CheckContext(output={"code": "x"}, suite_dir=tmp_path)))
    assert bad.passed is False and "entry" in bad.reason
    good = normalize(check.evaluate(CheckContext(output={"code": "x", "entry": "main"}, suite_dir=tmp_path)))
    assert good.passed


def test_field_check_ranges_values_and_missing():
    assert decide("field", None, fields={"km": 40.0}, field="km", min=30, max=50).passed
    assert "above 50" in decide("field", None, fields={"km": 60.0}, field="km", max=50).reason
    assert decide("field", None, fields={"risk": "high"}, field="risk", one_of=["high"]).passed
    assert "not stated" in decide("field", None, fields={"km": None}, field="km", min=1).reason
    with pytest.raises(ValueError, match="was not extracted"):
        decide("field", None, fields={}, field="km", min=1)


@pytest.mark.parametrize(
    "type_, args",
    [
        ("count", {}),
        ("max_words", {"per_message": 0}),
        ("contains", {}),
        ("regex", {"pattern": "("}),
        ("json", {"schema": {"type": "nonsense"}}),
        ("length", {"min": 5, "max": 1}),
        ("field", {"field": "x"}),
        ("equals", {"value": "a", "extra": 1}),
        ("distinct", {"max_repeats": 0}),
        ("forbidden_phrases", {"phrases": []}),
        ("forbidden_phrases", {"phrases": ["a*b"]}),
    ],
)
def test_bad_check_arguments_are_refused(type_, args):
    with pytest.raises(ValidationError):
        check_types()[type_].model_validate(args)
