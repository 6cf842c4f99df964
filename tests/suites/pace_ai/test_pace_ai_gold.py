"""The pace-ai gold set: up to date, covering every rubric line, agreeing with the code, catching the
bad replies (the README's figures), and failing loudly when a tool regresses."""

import importlib.util
import sys
from pathlib import Path

import pytest
from pace_ai import profiles
from pace_ai.tools import analyze_training_load

from evalkit.engine import load_suites
from evalkit.engine.selftest import selftest

SUITE_DIR = Path(__file__).resolve().parents[3] / "suites" / "pace_ai"


def _module(name):
    spec = importlib.util.spec_from_file_location(name, SUITE_DIR / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(name, module)
    spec.loader.exec_module(module)
    return module


gold_set = _module("gold_set")


@pytest.fixture(scope="module")
def suite():
    return load_suites([SUITE_DIR])[0]


def test_the_gold_file_is_what_gold_set_writes():
    assert gold_set.GOLD_FILE.read_text(encoding="utf-8") == gold_set.build(), (
        "run `python suites/pace_ai/gold_set.py` after editing the gold set"
    )


def test_at_least_40_labelled_replies_covering_every_rubric_line(suite):
    assert len(suite.gold) >= 40
    notes = [g.note for g in suite.gold]
    assert sum(n.startswith("GOOD") for n in notes) >= 15 and sum(n.startswith("BAD") for n in notes) >= 25
    labels: dict[str, set[str]] = {}
    for g in suite.gold:
        for item, label in g.labels.items():
            labels.setdefault(item, set()).add(label)
    items = {it.id for case in suite.cases for it in case.items if not it.required}
    for item in items:
        assert {"pass", "fail"} <= labels.get(item, set()), item
    text = " ".join(notes)
    for topic in (
        "German",
        "Spanish",
        "500",
        "prompt injection",
        "instruction to the grader",
        "recovery week",
        "the summary says 24 km",
        "race it all-out",
        "optimal at ACWR 1.9",
        "as a man",
    ):
        assert topic in text, topic


def test_the_code_agrees_with_every_gold_label(suite):
    result = selftest(suite)
    assert result.compared > 500 and result.ok, [d.describe() for d in result.disagreements]


def test_the_figures_quoted_in_the_readme(suite):
    got = gold_set.figures(suite)
    failed, bad = got["bad_failed_by_code_alone"]
    assert failed / bad >= 0.8
    failed, bad = got["bad_failed_with_honest_judge"]
    assert failed / bad >= 0.95
    assert got["good_failed"][0] == 0
    readme = (SUITE_DIR / "README.md").read_text(encoding="utf-8")
    for key, (n, total) in got.items():
        assert f"{n}/{total}" in readme, key


def test_an_acwr_bug_makes_selftest_fail_loudly_naming_the_profile(suite, monkeypatch):
    monkeypatch.setattr(profiles, "analyze_training_load", lambda weeks: analyze_training_load(list(weeks)[:4]))
    result = selftest(suite)
    assert not result.ok
    reasons = " ".join(d.reason for d in result.disagreements)
    assert "injury_risk_female: tools compute acwr" in reasons
    assert "overreaching_male: tools put ACWR" in reasons
    assert "check1:pace_tools_match_design" in {d.item_id for d in result.disagreements}
    # the facts are recomputed by the tools, not trusted: every changed fact is named too
    assert any("injury_risk_female: fact acwr: recorded " in p for p in result.problems), result.problems[:5]


def test_every_judged_line_has_several_fail_labels_and_the_hard_cases_are_held(suite):
    judged = {it.id for case in suite.cases for it in case.items if it.judge is not None}
    fails = {item: sum(g.labels.get(item) == "fail" for g in suite.gold) for item in judged}
    assert all(n >= 2 for n in fails.values()), fails
    good = " ".join(g.note for g in suite.gold if g.note.startswith("GOOD"))
    bad = " ".join(g.note for g in suite.gold if g.note.startswith("BAD"))
    for topic in ("miles", "given by time", "goal pace", "40 % long run", "skip the race", "'optimal'", "taper"):
        assert topic in good, topic
    for topic in (
        "miles",
        "given by time",
        "doubles",
        "80 km",
        "taper",
        "ACWR would stay",
        "chest tightness",
        "missed periods",
        "bpm",
        "gullible extraction",
        "placed last",
        "50 %",
    ):
        assert topic in bad, topic
