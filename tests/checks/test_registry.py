"""The per-load check registry: built-ins, a suite's plugins, entry points, then the rest."""

from __future__ import annotations

import pytest

from evalkit.errors import SuiteError
from evalkit.suite import load_suite

TONE = """
from evalkit import Check, register_check

@register_check
class Tone(Check):
    type = "tone_{tag}"

    def evaluate(self, ctx):
        return True, "{who}"
"""


def test_two_plugin_modules_claiming_one_type_fail_naming_both(write):
    write("tone_a.py", TONE.format(tag="clash", who="a"))
    write("tone_b.py", TONE.format(tag="clash", who="b"))
    path = write("s.yml", "plugins: [tone_a, tone_b]\ncases: [{id: x, checks: [{type: tone_clash}]}]\n")
    with pytest.raises(SuiteError) as info:
        load_suite(path)
    text = str(info.value)
    assert "check type 'tone_clash' is registered by both tone_a.Tone and tone_b.Tone" in text


def test_two_suites_with_their_own_same_named_check_each_get_their_own(write):
    write("one/mine_one.py", TONE.format(tag="own", who="from one"))
    write("two/mine_two.py", TONE.format(tag="own", who="from two"))
    first = load_suite(write("one/s.yml", "plugins: [mine_one]\ncases: [{id: x, checks: [{type: tone_own}]}]\n"))
    second = load_suite(write("two/s.yml", "plugins: [mine_two]\ncases: [{id: x, checks: [{type: tone_own}]}]\n"))
    assert type(first.cases[0].items[0].check).__module__ == "mine_one"
    assert type(second.cases[0].items[0].check).__module__ == "mine_two"


def test_a_plugin_may_not_take_a_built_in_type():
    from evalkit import Check, register_check

    with pytest.raises(ValueError, match="'contains' is built in"):

        @register_check
        class Contains(Check):
            type = "contains"

            def evaluate(self, ctx):
                return True


def test_llm_judge_in_checks_is_a_judge_criterion_not_a_check(write):
    suite = load_suite(write("s.yml", "cases: [{id: x, checks: [{type: llm_judge, criteria: polite}]}]\n"))
    item = suite.cases[0].items[0]
    assert item.judge == "polite" and item.check is None and item.decided_by == "judge"
