"""benchmarks/mutation_score.py: its mutations still apply to the code as it is, each one in a copy (never
the working tree), and a mutation is killed by what catches it."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def _script():
    spec = importlib.util.spec_from_file_location("mutation_score", REPO / "benchmarks" / "mutation_score.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("mutation_score", module)
    spec.loader.exec_module(module)
    return module


ms = _script()


def test_at_least_twelve_named_mutations_each_applying_to_exactly_one_place():
    assert len(ms.MUTATIONS) >= 12
    assert len({m.id for m in ms.MUTATIONS}) == len(ms.MUTATIONS)
    assert {m.suite for m in ms.MUTATIONS} == {"pace_ai", "help_agents"}
    for m in ms.MUTATIONS:
        text = (REPO / m.file).read_text(encoding="utf-8")
        assert text.count(m.old) == 1, (m.id, "the code changed: update the mutation")
        assert m.old != m.new and m.what


def test_a_mutation_is_measured_in_a_copy_and_the_copy_is_restored(tmp_path):
    acwr = next(m for m in ms.MUTATIONS if m.id == "acwr_window")
    before = (REPO / acwr.file).read_text(encoding="utf-8")
    repo = ms._copy(tmp_path)
    outcome = ms.measure(repo, acwr, both=False)
    assert outcome.killed and outcome.killed_by[0].startswith("selftest (WRONG pace_ai.yml:")
    assert "fact acwr: recorded 1.1, now 1.153" in outcome.killed_by[0]
    assert (repo / acwr.file).read_text(encoding="utf-8") == before  # restored in the copy
    assert (REPO / acwr.file).read_text(encoding="utf-8") == before  # the working tree never touched


def test_a_mutation_whose_text_is_gone_stops_the_measurement(tmp_path):
    stale = ms.Mutation("gone", "pace_ai", "suites/pace_ai/pace_ai/tools.py", "no such code", "x", "a stale one")
    repo = ms._copy(tmp_path)
    with pytest.raises(SystemExit, match="occurs 0 times"):
        ms.apply(repo, stale)


def test_an_unknown_mutation_id_is_a_one_line_error(capsys):
    assert ms.main(["--only", "nope"]) == 2
    assert capsys.readouterr().out.startswith("unknown mutation nope; choose from acwr_window, ")
