"""`evalkit calibrate` on the agent suite's gold set (41 agent runs, their judged items labelled by hand),
offline against the loopback Messages-API fake: a scripted judge that agrees on most labels and disagrees
on a few chosen ones gets the κ per judged item worked out here by hand, and an item whose κ is under the
suite's `min_item_kappa` bar fails calibrate and is named."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any, Callable

import pytest
from click.testing import CliRunner

from evalkit.checks.base import output_text
from evalkit.cli.commands import main
from evalkit.engine import load_suites
from evalkit.engine.judge_calibration import _judged_labels, gold_case_input
from evalkit.scoring.judge import judge_request
from evalkit.testing.fake_anthropic import FakeAnthropicServer
from evalkit.testing.script import Script
from evalkit.trace.steps import judged_trace
from tests.fakes import model_env

REPO = Path(__file__).resolve().parents[3]
_FENCED = re.compile(r"<(output-[0-9a-f]{12})>\n(.*)\n</\1>", re.DOTALL)
JUDGED = ("load_explained", "paces_per_run", "flags_injury_risk", "turn 2: plan_changes", "turn 2: sees_physio")


@pytest.fixture
def suite_file(tmp_path) -> Path:
    shutil.copytree(
        REPO / "suites" / "pace_ai",
        tmp_path / "pace_ai",
        ignore=shutil.ignore_patterns("__pycache__", "*calibration.json"),
    )
    return tmp_path / "pace_ai" / "agent.suite.yml"


class Scripted:
    """A judge that answers each gold run's labels, but for the (note, item) pairs it is told to flip."""

    def __init__(self, suite_path: Path, flips: set[tuple[str, str]]):
        [suite] = load_suites([suite_path])
        self.asked: dict[str, tuple[str, dict[str, str]]] = {}  # request content -> (note, labels)
        self.fields: dict[str, dict[str, Any]] = {}
        self.names = list(suite.fields)
        for gold in suite.gold:
            criteria = _judged_labels(suite, gold)
            request = judge_request(
                "any",
                output_text(gold.output),
                criteria,
                facts=gold.facts,
                case_input=gold_case_input(suite.case(gold.case_id), gold),
                trace=judged_trace(gold.trace),
            )
            self.asked[request.messages[0]["content"].rsplit("\n\n", 1)[0]] = (
                gold.note,
                {cid: gold.labels[cid] for cid in criteria},
            )
            self.fields.setdefault(output_text(gold.output), gold.fields or {})
        self.flips = flips

    def judge(self, body: dict) -> dict:
        note, labels = self.asked[body["messages"][0]["content"].rsplit("\n\n", 1)[0]]
        flip = {"pass": "fail", "fail": "pass"}
        return {
            "items": [
                {"id": cid, "reason": "scripted", "verdict": flip[v] if (note, cid) in self.flips else v}
                for cid, v in labels.items()
            ]
        }

    def extract(self, body: dict) -> dict:
        text = _FENCED.search(body["messages"][0]["content"]).group(2)
        return {name: self.fields[text].get(name) for name in self.names}


def calibrate(suite: Path, judge: Callable[[dict], dict], extract: Callable[[dict], dict]) -> tuple[Any, dict]:
    script = Script().respond(judge, tool="record_verdicts").respond(extract, tool="record_fields")
    with FakeAnthropicServer(script) as fake:
        result = CliRunner().invoke(
            main,
            ["calibrate", str(suite), "--repeats", "2", "--no-cache"],
            env=model_env(fake.url),
            catch_exceptions=False,
        )
    return result, json.loads(suite.with_name("agent.calibration.json").read_text())


def test_every_judged_item_of_the_agent_gold_set_is_labelled_on_both_sides():
    [suite] = load_suites([REPO / "suites" / "pace_ai" / "agent.suite.yml"])
    labels: dict[str, list[str]] = {}
    for gold in suite.gold:
        for cid in _judged_labels(suite, gold):
            labels.setdefault(cid, []).append(gold.labels[cid])
    assert sorted(labels) == sorted(JUDGED)
    assert all({"pass", "fail"} <= set(v) for v in labels.values()), labels  # else κ cannot tell a judge from chance
    assert suite.calibration is not None and suite.calibration.min_item_kappa == 0.6


def test_a_judge_that_misses_a_few_labels_gets_the_kappa_per_item_worked_out_by_hand(suite_file):
    # a lenient judge on the footnote run; on the physio item it misses one sound and one bad turn 2
    flips = {
        ("injury risk only in a footnote", "flags_injury_risk"),
        ("turn 2: no running, see a physio (sound)", "turn 2: sees_physio"),
        ("turn 2: 'run through it'", "turn 2: sees_physio"),
    }
    result, saved = calibrate(suite_file, *_judge(suite_file, flips))
    items = {i["id"]: i for i in saved["items"]}
    # flags_injury_risk: 10 pass / 5 fail labelled, the judge 11 / 4; po = 14/15, pe = (10*11 + 5*4) / 15²
    assert items["flags_injury_risk"]["kappa"] == pytest.approx((14 / 15 - 130 / 225) / (1 - 130 / 225))  # 0.84
    assert items["flags_injury_risk"]["false_pass"] == 2 and items["flags_injury_risk"]["false_fail"] == 0
    # sees_physio: 3 pass / 4 fail, the judge 3 / 4 but two of them swapped: po = 5/7, pe = 25/49, κ = 10/24
    assert items["turn 2: sees_physio"]["kappa"] == pytest.approx(10 / 24)
    assert items["turn 2: sees_physio"]["labels"] == 7 and items["turn 2: sees_physio"]["fail_labels"] == 4
    for cid in ("load_explained", "paces_per_run", "turn 2: plan_changes"):
        assert items[cid]["kappa"] == pytest.approx(1.0) and items[cid]["agreement"] == 1.0
    assert result.exit_code == 1
    assert saved["below"] == ["turn 2: sees_physio"]
    assert "turn 2: sees_physio κ 0.42 < 0.6" in result.output.splitlines()[0]
    assert saved["kappa"] >= 0.6  # the overall κ alone would have let the physio item through


def test_a_judge_over_the_bar_on_every_item_passes(suite_file):
    result, saved = calibrate(
        suite_file, *_judge(suite_file, {("injury risk only in a footnote", "flags_injury_risk")})
    )
    assert result.exit_code == 0, result.output
    assert saved["below"] == [] and saved["short"] == []
    assert len(saved["items"]) == 5 and all(i["kappa"] >= 0.6 for i in saved["items"])


def _judge(suite_file: Path, flips: set[tuple[str, str]]) -> tuple[Callable[[dict], dict], Callable[[dict], dict]]:
    scripted = Scripted(suite_file, flips)
    return scripted.judge, scripted.extract
