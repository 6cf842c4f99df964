"""Gold-labelled outputs in a suite: inline or from files, validated with file:line problems."""

from __future__ import annotations

import pytest

from evalkit.errors import SuiteError
from evalkit.suite import load_suite

SUITE = """
name: g
target: m:f
fields:
  risk: {type: boolean}
  zone: {type: enum, values: [easy, hard]}
cases:
  - id: a
    checks: [{type: contains, value: hi}]
    rubric:
      - id: flags
        check: {type: field, field: risk, equals: true}
        judge: The reply flags injury risk
      - {id: tone, judge: Friendly}
"""


def test_inline_gold_entries_load_with_labels_by_item_id_or_check_type(write):
    path = write(
        "s.yml",
        SUITE
        + """
gold:
  - case: a
    output: hi there
    fields: {risk: true}
    labels: {contains: pass, flags: pass, tone: pass}
    note: all good
""",
    )
    suite = load_suite(path)
    [gold] = suite.gold
    assert gold.labels == {"check1:contains": "pass", "flags": "pass", "tone": "pass"}
    assert gold.fields == {"risk": True, "zone": None}  # a declared field left out is not stated
    assert gold.note == "all good" and gold.line == 16 and gold.where == "s.yml:16"


def test_gold_files_by_glob_each_a_list_or_one_entry(write):
    path = write("s.yml", SUITE + "gold: gold/*.yml\n")
    write("gold/one.yml", "case: a\noutput: hi\nlabels: {contains: pass}\n")
    write(
        "gold/two.yml",
        "- case: a\n  output: bye\n  labels: {contains: fail}\n- case: a\n  output: x\n  labels: {tone: fail}\n",
    )
    suite = load_suite(path)
    assert [(g.file.name, g.line, g.labels) for g in suite.gold] == [
        ("one.yml", 1, {"check1:contains": "pass"}),
        ("two.yml", 1, {"check1:contains": "fail"}),
        ("two.yml", 4, {"tone": "fail"}),
    ]


def test_every_gold_problem_is_reported_with_file_and_line(write):
    path = write("s.yml", SUITE + "gold: gold/*.yml\n")
    bad = write(
        "gold/bad.yml",
        """
        - case: nope
          output: x
          labels: {contains: pass}
        - case: a
          output: x
          labels: {zzz: pass, flags: pass}
        - case: a
          output: x
          fields: {risk: 3, zone: medium, other: 1}
          labels: {tone: maybe}
        - case: a
          labels: {tone: pass}
        - case: a
          output: x
          fields: {risk: 3, zone: medium, other: 1}
          labels: {tone: pass}
    """,
    )
    with pytest.raises(SuiteError) as err:
        load_suite(path)
    found = {(p.line, p.message) for p in err.value.problems}
    assert all(p.file == str(bad) for p in err.value.problems)
    assert (1, "gold: no case 'nope'; cases: a") in found
    assert (
        6,
        "gold: no item or check 'zzz' in this case (or it names several); ids: check1:contains, flags, tone",
    ) in found
    assert (6, "gold: flags read(s) extracted fields; record the values under `fields:`") in found
    assert (10, "gold: labels.tone: Input should be 'pass', 'fail' or 'n/a'") in found
    assert (11, "gold: missing required key 'output'") in found
    assert (15, "gold: risk = 3 is not a boolean") in found
    assert (15, "gold: zone = 'medium'; values: easy, hard") in found
    assert (15, "gold: unknown field 'other'; declared: risk, zone") in found


def test_a_glob_that_matches_nothing_is_a_problem(write):
    path = write("s.yml", SUITE + "gold: gold/*.yml\n")
    with pytest.raises(SuiteError, match=r"line 14: gold: no file matches 'gold/\*.yml'"):
        load_suite(path)


def test_a_rubric_item_may_have_both_witnesses_and_a_weight(write):
    suite = load_suite(
        write("s.yml", SUITE.replace("{id: tone, judge: Friendly}", "{id: tone, judge: Friendly, weight: 2}"))
    )
    flags, tone = suite.cases[0].items[1:]
    assert flags.decided_by == "code+judge" and tone.weight == 2
    with pytest.raises(SuiteError, match="a rubric item needs `judge:`, `check:` or both"):
        load_suite(write("t.yml", SUITE.replace("{id: tone, judge: Friendly}", "{id: tone}")))
