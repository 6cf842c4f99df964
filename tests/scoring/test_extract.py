"""Extraction alone: the tool schema per field type, coercion, and the one corrective retry."""

from __future__ import annotations

import asyncio

import pytest

from evalkit.engine import make_client
from evalkit.scoring.extract import EXTRACT_TOOL, coerce_fields, extract_fields, extract_request
from evalkit.scoring.judge_input import JudgeInput, JudgeSettings
from evalkit.suite.spec import FieldSpec
from evalkit.testing.script import Script
from evalkit.testing.scripted import ScriptedProvider

FIELDS = {
    "km": FieldSpec(type="number"),
    "days": FieldSpec(type="integer"),
    "rest": FieldSpec(type="boolean"),
    "risk": FieldSpec(type="enum", values=["low", "high"]),
}


def test_the_schema_allows_null_for_every_field():
    schema = extract_request("m", "text", FIELDS).tools[0]["input_schema"]
    assert schema["properties"]["km"]["type"] == ["number", "null"]
    assert schema["properties"]["risk"]["enum"] == ["low", "high", None]
    assert schema["required"] == list(FIELDS)


def test_values_are_coerced_to_their_types():
    got = coerce_fields({"km": "1,200.5", "days": 5.0, "rest": "true", "risk": " HIGH "}, FIELDS)
    assert got == {"km": 1200.5, "days": 5, "rest": True, "risk": "high"}
    assert coerce_fields(dict.fromkeys(FIELDS), FIELDS) == dict.fromkeys(FIELDS)


@pytest.mark.parametrize(
    "raw, problem",
    [
        ({"km": 1, "days": 1, "rest": True}, "'risk' missing"),
        ({"km": "lots", "days": 1, "rest": True, "risk": "low"}, "'km'"),
        ({"km": 1, "days": 2.5, "rest": True, "risk": "low"}, "'days'"),
        ({"km": 1, "days": 1, "rest": "maybe", "risk": "low"}, "'rest'"),
        ({"km": 1, "days": 1, "rest": True, "risk": "medium"}, "not one of"),
        (["not", "an", "object"], "not an object"),
    ],
)
def test_bad_values_name_the_field(raw, problem):
    with pytest.raises(ValueError, match=problem):
        coerce_fields(raw, FIELDS)


def extract(script: Script):
    client = make_client(ScriptedProvider(script), no_cache=True, deprecated=None)
    return asyncio.run(
        extract_fields(client.bind(model="m"), JudgeInput("the text", fields=FIELDS), JudgeSettings("m"))
    ), client


def test_a_bad_reply_gets_one_retry():
    good = {"km": 40, "days": 4, "rest": True, "risk": "low"}
    script = Script().tool_reply(EXTRACT_TOOL, {"km": "x"}, times=1).tool_reply(EXTRACT_TOOL, good)
    (fields, error), client = extract(script)
    assert error is None and fields == {"km": 40.0, "days": 4, "rest": True, "risk": "low"}
    assert client.usage.calls == 2


def test_a_reply_bad_twice_is_an_error():
    (fields, error), _ = extract(Script().tool_reply(EXTRACT_TOOL, {"km": "x"}))
    assert fields is None and "invalid after a retry" in (error or "")


DAYS = FieldSpec(
    type="list",
    items={
        "day": FieldSpec(type="string"),
        "km": FieldSpec(type="number"),
        "session": FieldSpec(type="enum", values=["rest", "easy"]),
    },
)


def test_a_list_field_is_an_array_of_objects_with_its_entries_fields():
    schema = extract_request("m", "text", {"days": DAYS}).tools[0]["input_schema"]["properties"]["days"]
    assert schema["type"] == ["array", "null"]
    assert schema["items"]["properties"]["km"]["type"] == ["number", "null"]
    assert schema["items"]["required"] == ["day", "km", "session"]
    listing = extract_request("m", "text", {"days": DAYS}).system[1]["text"]  # type: ignore[index]
    assert "  - session (enum: rest, easy)" in listing


def test_the_instructions_and_field_list_are_a_cached_prefix_before_the_text():
    request = extract_request("m", "THE TEXT", {"days": DAYS})
    instructions, listing = request.system  # type: ignore[misc]
    assert "extract structured fields" in instructions["text"]
    assert listing["text"].startswith("Fields to extract:") and listing["cache_control"] == {"type": "ephemeral"}
    assert "THE TEXT" in request.messages[0]["content"] and "Fields to extract" not in request.messages[0]["content"]
    assert extract_request("m", "OTHER", {"days": DAYS}).system == request.system


def test_list_entries_are_coerced_and_a_missing_sub_field_is_null():
    got = coerce_fields({"days": [{"day": "Mon", "km": "5", "session": "EASY"}, {"day": "Tue"}]}, {"days": DAYS})
    assert got == {"days": [{"day": "Mon", "km": 5.0, "session": "easy"}, {"day": "Tue", "km": None, "session": None}]}
    with pytest.raises(ValueError, match=r"days\[0\].km"):
        coerce_fields({"days": [{"km": "far"}]}, {"days": DAYS})
    with pytest.raises(ValueError, match="list of objects"):
        coerce_fields({"days": "Mon 5 km"}, {"days": DAYS})


def test_a_list_field_needs_scalar_items():
    with pytest.raises(ValueError, match="needs `items`"):
        FieldSpec(type="list")
    with pytest.raises(ValueError, match="scalar fields only"):
        FieldSpec(type="list", items={"inner": DAYS})
