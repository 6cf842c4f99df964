"""benchmarks/generated_mutants.py: its operators make the mutants they say, each compiles, a sample is
stable, the equivalence list names mutants that exist, and a small fixed sample is measured honestly
(a real bug killed by selftest, an equivalent mutant let through)."""

from __future__ import annotations

import ast
import importlib.util
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def _script():
    spec = importlib.util.spec_from_file_location("generated_mutants", REPO / "benchmarks" / "generated_mutants.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("generated_mutants", module)
    spec.loader.exec_module(module)
    return module


gm = _script()


def test_every_operator_family_makes_mutants_and_each_one_changes_and_compiles(tmp_path):
    source = tmp_path / "m.py"
    source.write_text(
        '"""doc."""\n\ndef f(a, b):\n    if a < b and b > 2:\n        return min(a, b) + 1.5\n'
        "    return [x for x in (a, b) if not x]\n",
        encoding="utf-8",
    )
    mutants = gm.generate("m.py", root=tmp_path)
    assert {m.operator for m in mutants} == {"compare", "arith", "const", "boolop", "drop", "swap"}
    shown = {(m.operator, m.before, m.after) for m in mutants}
    assert ("compare", "a < b", "a <= b") in shown and ("const", "1.5", "1.65") in shown
    assert ("swap", "min(a, b)", "max(a, b)") in shown and ("swap", "min(a, b)", "min(b, a)") in shown
    assert ("drop", "a < b and b > 2", "b > 2") in shown and ("boolop", "not x", "x") in shown
    original = ast.dump(ast.parse(source.read_text(encoding="utf-8")))
    for m in mutants:
        tree = m.tree(tmp_path)
        assert ast.dump(tree) != original, m.describe()
        compile(tree, "m.py", "exec")
    assert len({m.key for m in mutants}) == len(mutants)


def test_the_sample_is_deterministic_and_keeps_its_members_when_others_come_and_go():
    mutants = gm.generate("suites/pace_ai/pace_ai/tools.py")
    sample = gm.sampled(mutants, 40)
    assert 20 <= len(sample) <= 60 and sample == gm.sampled(mutants, 40)
    assert {m.key for m in gm.sampled(mutants[:200], 40 * 200 // len(mutants))} <= {m.key for m in sample}


def test_each_equivalence_entry_names_a_mutant_that_exists_and_gives_a_reason():
    everything = [m for f in {e.file for e in gm.load_equivalents()} for m in gm.generate(f)]
    for e in gm.load_equivalents():
        assert any(e.covers(m) for m in everything), f"stale entry: {e}"
        assert len(e.reason) > 30


def test_a_fixed_sample_is_measured_a_bug_killed_by_selftest_and_an_equivalent_mutant_let_through():
    tools = gm.generate("suites/pace_ai/pace_ai/tools.py")
    bug = next(m for m in tools if m.function == "analyze_training_load" and m.before == "4.0" and m.after == "4.4")
    equivalent = next(
        m for m in gm.generate("suites/pace_ai/pace_ai/checks.py") if any(e.covers(m) for e in gm.load_equivalents())
    )
    results = gm.measure([bug, equivalent], gm.load_equivalents(), tests=False, echo=lambda line: None)
    assert results[0].status == "killed" and results[0].by.startswith("selftest failed: WRONG")
    assert results[1].status == "equivalent" and results[1].reason
    assert gm.score(results) == (1, 1)


def test_an_entry_that_names_its_occurrence_covers_that_change_only():
    same = [
        m
        for m in gm.generate("suites/pace_ai/pace_ai/tools.py")
        if m.function == "_time_for_vdot" and (m.before, m.after) == ("2.0", "2.2")
    ]
    entry = next(e for e in gm.load_equivalents() if e.function == "_time_for_vdot")
    assert len(same) == 4 and entry.occurrence == 1
    assert [entry.covers(m) for m in same] == [True, False, False, False]
