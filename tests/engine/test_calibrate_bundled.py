"""`evalkit calibrate` on both bundled suites, against the loopback Messages-API fake, with judges
of known quality: one that passes everything, one that fails everything, a coin, one whose replies
are mostly malformed — each must exit 1 and say why — and the gold labels themselves (exit 0).
The suites are copied: calibrate saves its figures beside the suite file."""

from __future__ import annotations

import hashlib
import itertools
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

REPO = Path(__file__).resolve().parents[2]
SUITE_FILES = [
    "pace_ai/suite.yml",
    "pace_ai/agent.suite.yml",
    "help_agents/progress_messages.suite.yml",
    "help_agents/code_generate.suite.yml",
]
_IDS = re.compile(r"exactly these ids: (.+)\.$")
_FENCED = re.compile(r"<(output-[0-9a-f]{12})>\n(.*)\n</\1>", re.DOTALL)


@pytest.fixture(scope="module")
def suites_dir(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("bundled")
    for name in ("pace_ai", "help_agents"):
        shutil.copytree(
            REPO / "suites" / name, root / name, ignore=shutil.ignore_patterns("__pycache__", "*calibration.json")
        )
    return root


class Gold:
    """What a perfect judge and a perfect extractor would answer, from the suite's gold set."""

    def __init__(self, suite_path: Path) -> None:
        [suite] = load_suites([suite_path])
        # the judge's request content but its last line (which names the tool) -> the labels asked for:
        # the same for the judge alone and for the judge with the extraction (one call)
        self.labels: dict[str, dict[str, str]] = {}
        self.fields: dict[str, dict[str, Any]] = {}  # an output's text -> its gold fields
        self.names = list(suite.fields)
        # Fields two gold entries with the same output give different values: no extractor, which
        # sees the text only, can match both (a gold-set inconsistency, reported, not hidden here).
        self.conflicts: set[str] = set()
        for gold in suite.gold:
            text, criteria = output_text(gold.output), _judged_labels(suite, gold)
            if criteria:  # asked as calibrate asks: an agent run's trace and a conversation's turns beside it
                request = judge_request(
                    "any",
                    text,
                    criteria,
                    case_input=gold_case_input(suite.case(gold.case_id), gold),
                    facts=gold.facts,
                    trace=judged_trace(gold.trace),
                )
                self.labels[_asking(request.messages[0]["content"])] = {cid: gold.labels[cid] for cid in criteria}
            if gold.fields is not None:
                before = self.fields.setdefault(text, gold.fields)
                self.conflicts |= {n for n in self.names if before.get(n) != gold.fields.get(n)}

    def judge(self, body: dict) -> dict:
        return verdicts(dict(self.labels[_asking(body["messages"][0]["content"])]))

    def extract(self, body: dict) -> dict:
        text = _FENCED.search(body["messages"][0]["content"]).group(2)
        return {name: self.fields[text].get(name) for name in self.names}


def _asking(content: str) -> str:
    return content.rsplit("\n\n", 1)[0]


def verdicts(by_id: dict[str, str]) -> dict:
    return {"items": [{"id": cid, "reason": "as scripted", "verdict": v} for cid, v in by_id.items()]}


def asked(body: dict) -> list[str]:
    last = body["messages"][0]["content"].rstrip().splitlines()[-1]
    return _IDS.search(last).group(1).split(", ")


def mostly(body: dict) -> bool:
    """Three requests in four (by a hash of the request, so a retry is as malformed as the first)."""
    return int(hashlib.sha256(body["messages"][0]["content"].encode()).hexdigest(), 16) % 4 != 0


def judges(gold: Gold) -> dict[str, tuple[Callable[[dict], dict], Callable[[dict], dict]]]:
    coins: dict[str, Any] = {}

    def coin(body: dict) -> dict:  # each output's verdicts alternate pass, fail…: half of each, whatever the label
        side = next(coins.setdefault(body["messages"][0]["content"], itertools.cycle(["pass", "fail"])))
        return verdicts({cid: side for cid in asked(body)})

    def malformed_judge(body: dict) -> dict:
        return {"items": "not a list"} if mostly(body) else gold.judge(body)

    def malformed_extract(body: dict) -> dict:
        return {} if mostly(body) else gold.extract(body)

    return {
        "passes everything": (lambda b: verdicts({cid: "pass" for cid in asked(b)}), gold.extract),
        "fails everything": (lambda b: verdicts({cid: "fail" for cid in asked(b)}), gold.extract),
        "a coin": (coin, gold.extract),
        "mostly malformed": (malformed_judge, malformed_extract),
        "the gold labels": (gold.judge, gold.extract),
    }


def calibrate(suite: Path, judge: Callable[[dict], dict], extract: Callable[[dict], dict]) -> tuple[Any, dict]:
    script = Script().respond(judge, tool="record_verdicts").respond(extract, tool="record_fields")
    with FakeAnthropicServer(script) as fake:
        env = model_env(fake.url)
        result = CliRunner().invoke(
            main, ["calibrate", str(suite), "--repeats", "2", "--no-cache"], env=env, catch_exceptions=False
        )
    saved = suite.with_name(
        "calibration.json" if suite.name == "suite.yml" else suite.name.replace(".suite.yml", ".calibration.json")
    )
    return result, json.loads(saved.read_text())


@pytest.mark.slow
@pytest.mark.parametrize("rel", SUITE_FILES)
def test_judges_of_known_quality_on_the_bundled_suites(suites_dir, rel):
    suite = suites_dir / rel
    assert load_suites([suite])[0].calibration is not None  # the suite sets a bar
    gold = Gold(suite)
    outcomes = {}
    for name, (judge, extract) in judges(gold).items():
        result, saved = calibrate(suite, judge, extract)
        outcomes[name] = (result.exit_code, result.output.splitlines()[0], saved)
    for name in ("passes everything", "fails everything", "a coin"):
        code, headline, saved = outcomes[name]
        assert code == 1, (name, headline)
        # a judge that answers without looking at the output agrees by chance only, whatever its agreement
        assert saved["kappa"] == pytest.approx(0.0, abs=1e-9), (name, headline)
        assert "below the calibration bar: κ 0.00 < 0.6 (no better than chance)" in headline, (name, headline)
    code, headline, saved = outcomes["mostly malformed"]
    assert code == 1 and saved["errors"] / saved["calls"] > 0.5, headline
    assert re.search(r"below the calibration bar: .*errors \d+% of verdicts and extractions > 5%", headline), headline
    # the errors are disagreements: the headline agreement is not the share of the few verdicts given
    assert saved["agreement"] < 0.5, headline
    code, headline, saved = outcomes["the gold labels"]
    assert code == 0, headline
    assert saved["kappa"] == pytest.approx(1.0) and saved["agreement"] == 1.0 and saved["errors"] == 0
    assert "below the calibration bar" not in headline
    assert all(f["accuracy"] == 1.0 for f in saved["fields"] if f["field"] not in gold.conflicts), saved["fields"]
    assert all(f["accuracy"] >= 0.9 for f in saved["fields"]), saved["fields"]
