"""The `conversation:` of a case as written: user and scripted assistant turns, each user turn's own
checks, rubric and fields, and the load errors a bad conversation gives (file:line, case id)."""

from __future__ import annotations

import jsonschema
import pytest

from evalkit.errors import SuiteError
from evalkit.suite.loader import load_suite
from evalkit.suite.schema import suite_json_schema

GOOD = """
fields:
  weekly_km: {type: number}
  sessions: {type: integer}
rubrics:
  safe: ["Says to see a physio if it persists"]
cases:
  - id: niggle
    input: {runner: ada, weekly_km: 40}
    conversation:
      - user: "{{ prompt }}"
        checks: [{type: contains, value: week}]
        rubric: ["Gives a week's plan"]
      - user: "Remind me"
      - assistant: "Here is a scripted earlier reply."
      - user: "My left knee hurts since yesterday's run. Change the plan."
        checks: [{type: not_contains, value: tempo}]
        rubric:
          - {id: knee, judge: "The plan changes because of the knee pain", critical: true}
        fields: [weekly_km]
      - user: "And next week?"
        rubric: safe
    checks: [{type: max_words, per_message: 300}]
    rubric: ["Stays kind"]
"""


def test_a_conversation_loads_into_turns_with_their_own_named_items_and_fields(write):
    suite = load_suite(write("s.yml", GOOD))
    case = suite.cases[0]
    assert [(t.number, t.role, t.scripted) for t in case.turns] == [
        (1, "user", False),
        (2, "user", True),
        (3, "assistant", False),
        (4, "user", False),
        (5, "user", False),
    ]
    first, _, scripted, knee, last = case.turns
    assert [it.id for it in first.items] == ["turn 1: check1:contains", "turn 1: item1"]
    assert first.items[0].text.startswith("turn 1: ") and "week" in first.items[0].text
    assert first.items[1].text == "turn 1: Gives a week's plan"
    assert scripted.text == "Here is a scripted earlier reply." and not scripted.items
    assert [it.id for it in knee.items] == ["turn 4: check1:not_contains", "turn 4: knee"]
    assert knee.items[1].critical and knee.fields == ("weekly_km",) and first.fields == ()
    assert [it.text for it in last.items] == ["turn 5: Says to see a physio if it persists"]
    assert knee.line == 15 and first.line == 10
    # the case's own checks and rubric score the final reply, unprefixed
    assert [it.id for it in case.items] == ["check1:max_words", "item1"]
    assert case.target_calls == 3  # turn 2 is answered by the scripted turn 3
    assert case.field_specs(suite.fields) == {"turn 4.weekly_km": suite.fields["weekly_km"]}


def test_a_case_without_a_conversation_makes_one_call():
    from evalkit.suite.model import Case

    assert Case(id="a", input={}, items=[]).target_calls == 1


@pytest.mark.parametrize(
    "conversation, message",
    [
        (
            '[{assistant: "hello"}, {user: "hi"}]',
            "turn 1: a scripted `assistant:` turn answers the `user:` turn just before it",
        ),
        (
            '[{user: "a"}, {assistant: "b"}, {assistant: "c"}, {user: "d"}]',
            "turn 3: a scripted `assistant:` turn answers",
        ),
        ('[{user: "a"}, {assistant: "b"}]', "a conversation ends with a `user:` turn"),
        ("[]", "a conversation needs at least one `user:` turn"),
        ('[{user: "a", colour: red}]', "unknown key 'colour'"),
        ('[{user: "{{ outputs[0 }}"}]', "turn 1: template: line 1:"),
        (
            '[{user: "a", checks: [{type: contains, value: x}]}, {assistant: "b"}, {user: "c"}]',
            "turn 1: the scripted turn 2 answers it (no call), so it has no `checks`, `rubric` or `fields` of its own",
        ),
        ('[{user: "a", fields: [pace]}]', "unknown field 'pace'; declared: weekly_km"),
        ('[{user: "a", checks: [{type: sintax}]}]', "unknown check type 'sintax'"),
        ('[{user: "a", rubric: nope}]', "no rubric named 'nope'"),
        ('[{user: "a", rubric: [{id: x, judge: p}, {id: x, judge: q}]}]', "duplicate rubric item id 'x'"),
    ],
)
def test_a_bad_conversation_is_a_load_error_with_its_line(write, conversation, message):
    path = write(
        "bad.yml",
        f"""
        fields: {{weekly_km: {{type: number}}}}
        cases:
          - id: c
            conversation: {conversation}
        """,
    )
    with pytest.raises(SuiteError) as info:
        load_suite(path)
    problems = [p for p in info.value.problems if message in p.message]
    assert problems, str(info.value)
    assert all(p.file == str(path) and p.case_id == "c" and p.line == 4 for p in problems)  # the flow list's line


def test_a_turn_s_problem_names_its_own_line(write):
    path = write(
        "bad.yml",
        """
        cases:
          - id: c
            conversation:
              - user: "fine"
              - user: "{% if %}"
        """,
    )
    with pytest.raises(SuiteError) as info:
        load_suite(path)
    (problem,) = info.value.problems
    assert problem.line == 5 and problem.message.startswith("turn 2: template:")


def test_the_json_schema_knows_the_conversation_keys():
    validator = jsonschema.Draft202012Validator(suite_json_schema())
    good = {
        "target": "m:f",
        "cases": [
            {
                "id": "a",
                "conversation": [
                    {"user": "hi", "checks": [{"type": "contains", "value": "x"}], "rubric": ["ok"], "fields": ["km"]},
                    {"assistant": "hello"},
                    {"user": "bye"},
                ],
            }
        ],
    }
    assert validator.is_valid(good)
    assert not validator.is_valid({"cases": [{"id": "a", "conversation": [{"user": "hi", "colour": 1}]}]})
    assert not validator.is_valid({"cases": [{"id": "a", "conversation": [{"assistant": "hi", "checks": []}]}]})


def test_the_docs_example_loads(tmp_path):
    from pathlib import Path

    page = (Path(__file__).parents[2] / "docs" / "suite-format.md").read_text(encoding="utf-8")
    section = page.split("## Conversations (multi-turn cases)", 1)[1]
    example = section.split("```yaml\n", 1)[1].split("```", 1)[0]
    (tmp_path / "s.yml").write_text(example, encoding="utf-8")
    case = load_suite(tmp_path / "s.yml").cases[0]
    assert [t.role for t in case.turns] == ["user", "user", "assistant", "user"] and case.target_calls == 2
    assert [it.id for it in case.turns[3].items] == ["turn 4: check1:not_contains", "turn 4: knee"]
