"""Suite files: both formats load, every problem is reported at once with line and case id."""

from __future__ import annotations

import json

import jsonschema
import pytest

from evalkit.engine import load_suites
from evalkit.errors import SuiteError
from evalkit.suite import load_suite
from evalkit.suite.schema import suite_json_schema

SEED_FIXTURE = """
- id: basic_hello_world
  input:
    query: "Write a function that returns 'Hello, World!'"
    context: ""
  checks:
    - type: syntax
    - type: has_main
    - type: code_node
    - type: llm_judge
      criteria: "The code returns the string 'Hello, World!' when called"

- id: fix_broken_code
  input:
    query: "Fix this code"
    context: "def main(input: str, **kwargs) -> str:\\n    return input.upper("
  checks:
    - type: syntax
    - type: has_main
    - type: code_node
    - type: llm_judge
      criteria: "The code fixes the syntax error and preserves the .upper() intent"
"""


def test_seed_fixture_list_loads_as_is(write):
    suite = load_suite(write("code_generate.yml", SEED_FIXTURE))
    assert suite.is_fixture_list and suite.target is None and suite.name == "code_generate"
    assert [c.id for c in suite.cases] == ["basic_hello_world", "fix_broken_code"]
    items = suite.cases[0].items
    assert [i.decided_by for i in items] == ["code", "code", "code", "judge"]
    assert all(i.required for i in items)
    assert items[3].judge == "The code returns the string 'Hello, World!' when called"
    assert suite.cases[1].line == 12


def test_full_suite_loads_with_rubrics_fields_and_conditions(write):
    path = write(
        "s/suite.yml",
        """
        name: coach
        target: coach:run
        watch: ["prompts/**"]
        thresholds: {rubric: 0.9}
        fields:
          km: {type: number}
          risk: {type: enum, values: [low, high]}
        rubrics:
          plan:
            - {id: rest, check: {type: field, field: km, max: 50}}
            - {id: warn, judge: "Warns about injury", critical: true, when: "facts.acwr > 1.5"}
            - "Mentions paces"
        cases:
          - id: a
            input: {profile: x}
            rubric: plan
          - id: b
            repeats: 3
    """,
    )
    suite = load_suite(path.parent)
    assert suite.name == "coach" and suite.thresholds.rubric == 0.9 and suite.thresholds.agreement == 0.8
    a, b = suite.cases
    assert [i.id for i in a.items] == ["rest", "warn", "item3"]
    assert a.items[1].critical and a.items[1].when == "facts.acwr > 1.5"
    assert a.fields == ["km", "risk"]  # a field check needs extraction
    assert b.repeats == 3 and b.fields == ["km", "risk"]  # repeats need extraction for agreement


def test_every_problem_reported_at_once_with_lines_case_ids_and_choices(write):
    path = write(
        "bad.yml",
        """
        cases:
          - id: one
            input: {}
            checks:
              - type: sintax
              - type: max_words
          - id: two
            colour: red
            rubric:
              - {id: x}
          - id: one
    """,
    )
    with pytest.raises(SuiteError) as info:
        load_suite(path)
    problems = info.value.problems
    text = "\n".join(map(str, problems))
    assert all(p.file == str(path) and (p.line or 0) > 0 for p in problems if p.case_id)
    assert "line 5: case one: unknown check type 'sintax'; valid types:" in text
    assert "syntax" in text and "max_words" in text  # the valid choices are listed
    assert "line 8: case two: unknown key 'colour'" in text
    assert "case two" in text and "needs `judge:`, `check:` or both" in text
    assert len(problems) >= 3


def test_problems_after_parsing_are_all_collected(write):
    path = write(
        "bad2.yml",
        """
        fields: {km: {type: number}}
        cases:
          - id: a
            checks:
              - type: sintax
              - type: max_words
              - {type: field, field: nope, min: 1}
          - id: a
            rubric:
              - {judge: ok, when: "facts.x >"}
    """,
    )
    with pytest.raises(SuiteError) as info:
        load_suite(path)
    text = str(info.value)
    assert "unknown check type 'sintax'" in text
    assert "max_words: missing required key 'per_message'" in text
    assert "undeclared field(s) nope" in text
    assert "duplicate case id" in text
    assert "is not a valid expression" in text


@pytest.mark.parametrize(
    "content, message",
    [
        ("cases: [\n  {id: a\n", "YAML syntax error"),
        ("", "the file is empty"),
        ("42\n", "top level is a int"),
        ("cases: []\n", "at least one case"),
        ("target: nocolon\ncases: [{id: a}]\n", "not of the form module:function"),
        ("target: {prompt: 'Hi {{ name'}\ncases: [{id: a}]\n", "prompt template"),
        ("cases: [{id: 'has space'}]\n", "white space"),
    ],
)
def test_bad_files_give_one_clear_error(write, content, message):
    path = write("x.yml", content)
    with pytest.raises(SuiteError) as info:
        load_suite(path)
    assert message in str(info.value)
    assert str(path) in str(info.value)


def test_missing_path_and_folder_without_suite(tmp_path):
    with pytest.raises(SuiteError, match="no such file"):
        load_suite(tmp_path / "nope.yml")
    with pytest.raises(SuiteError, match="no suite.yml"):
        load_suite(tmp_path)


def test_suite_may_take_cases_from_a_fixture_list_and_folders_hold_several(write, tmp_path):
    write("agents/code_generate.yml", SEED_FIXTURE)
    write("agents/code.suite.yml", "target: agents:code\ncases: code_generate.yml\n")
    write("agents/other.suite.yml", "target: agents:other\ncases: [{id: z}]\n")
    suites = load_suites([tmp_path / "agents"])
    assert [s.name for s in suites] == ["code.suite", "other.suite"] or [s.path.name for s in suites] == [
        "code.suite.yml",
        "other.suite.yml",
    ]
    code = suites[0]
    assert code.target.function == "agents:code" and len(code.cases) == 2
    assert code.cases[1].file.name == "code_generate.yml" and code.cases[1].line == 12


def test_load_suites_reports_the_problems_of_every_path_together(write, tmp_path):
    good = write("good.suite.yml", "target: m:f\ncases: [{id: a}]\n")
    broken = write("broken.suite.yml", "cases:\n  - {id: a, input: {x: 1}\n")  # an unclosed flow mapping
    invalid = write("invalid.suite.yml", "target: m:f\ncases: [{id: a, checks: [{type: no_such_check}]}]\n")
    lost = write("lost.suite.yml", "target: m:f\ncases: missing.yml\n")
    assert [s.path.name for s in load_suites([good])] == ["good.suite.yml"]
    with pytest.raises(SuiteError) as raised:
        load_suites([good, broken, invalid, lost, tmp_path / "nowhere.suite.yml"])
    message = str(raised.value)
    for name in ("broken.suite.yml", "no_such_check", "missing.yml", "nowhere.suite.yml"):
        assert name in message, name


def test_problem_in_included_fixture_list_names_that_file(write):
    write("fx.yml", "- id: a\n  checks:\n    - type: nope\n")
    path = write("x.suite.yml", "target: m:f\ncases: fx.yml\n")
    with pytest.raises(SuiteError, match=r"fx.yml line 3: case a: unknown check type 'nope'"):
        load_suite(path)


def test_plugin_checks_register_like_builtins(write):
    write(
        "myplug.py",
        """
        from evalkit import Check, register_check

        @register_check
        class Shouty(Check):
            type = "shouty_test"
            min_caps: int = 1

            def evaluate(self, ctx):
                return sum(c.isupper() for c in ctx.text) >= self.min_caps, "caps counted"
    """,
    )
    path = write("s.yml", "plugins: [myplug]\ncases:\n  - id: a\n    checks: [{type: shouty_test, min_caps: 2}]\n")
    suite = load_suite(path)
    assert suite.cases[0].items[0].check.type == "shouty_test"
    bad = write("t.yml", "plugins: [no_such_plugin_mod]\ncases: [{id: a}]\n")
    with pytest.raises(SuiteError, match="plugin 'no_such_plugin_mod'"):
        load_suite(bad)


def test_cases_written_with_the_same_check_share_one_object_unless_its_class_is_unfrozen(write):
    write(
        "stateful.py",
        """
        from pydantic import ConfigDict
        from evalkit import Check, register_check

        @register_check
        class Counting(Check):
            model_config = ConfigDict(frozen=False)  # keeps state per case: must not be shared
            type = "counting_test"
            seen: int = 0

            def evaluate(self, ctx):
                self.seen += 1
                return True
    """,
    )
    path = write(
        "s.yml",
        """
        plugins: [stateful]
        check_defaults: {max_words: {per_message: 9}}
        cases:
          - {id: a, checks: [{type: contains, value: ok}, {type: max_words}, {type: counting_test}]}
          - {id: b, checks: [{type: contains, value: ok}, {type: max_words}, {type: counting_test}]}
          - {id: c, checks: [{type: contains, value: "ok "}, {type: max_words, per_message: 9.0}]}
          - {id: d, checks: [{type: max_words, per_message: 1}, {type: max_words, per_message: true}]}
    """,
    )
    a, b, c, d = load_suite(path).cases
    assert a.items[0].check is b.items[0].check and a.items[1].check is b.items[1].check
    assert a.items[0].text == b.items[0].text == "contains(value='ok')"
    assert a.items[2].check is not b.items[2].check  # unfrozen: one object a case
    assert c.items[0].check is not a.items[0].check  # a different value is a different check
    assert c.items[1].check is not a.items[1].check  # 9.0 is not 9: YAML values are told apart
    assert d.items[0].check is not d.items[1].check  # nor 1 and true
    assert (a.items[0].id, a.items[0].line, b.items[0].line) == ("check1:contains", 4, 5)


def test_json_schema_accepts_good_suites_and_rejects_unknown_keys():
    schema = suite_json_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    good = {
        "target": "m:f",
        "cases": [
            {
                "id": "a",
                "checks": [{"type": "max_words", "per_message": 6}],
                "rubric": [{"judge": "ok", "critical": True}],
            }
        ],
    }
    assert validator.is_valid(good)
    assert validator.is_valid([{"id": "a", "input": {}, "checks": [{"type": "syntax"}]}])
    assert not validator.is_valid({"cases": [{"id": "a", "bogus": 1}]})
    assert not validator.is_valid({"cases": [{"id": "a", "checks": [{"type": "max_words", "per_word": 6}]}]})
    json.dumps(schema)
