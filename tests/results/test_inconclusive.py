"""Wilson intervals over repeats, the `inconclusive` verdict and what it does to the exit code."""

from __future__ import annotations

import itertools
import json

import pytest
from click.testing import CliRunner

from evalkit.cli.commands import main
from evalkit.render.junit import render_junit
from evalkit.render.markdown import render_markdown
from evalkit.results.report import Report
from evalkit.testing.fake_anthropic import FakeAnthropicServer
from evalkit.testing.script import Script
from tests.fakes import model_env

SUITE = """
name: noisy
target:
  prompt: "Say hi"
repeats: 5
thresholds: {rubric: 0.8}
cases:
  - id: c
    rubric:
      - {id: kind, judge: The reply is kind}
"""


def three_of_five():
    votes = itertools.chain(["pass"] * 3, itertools.repeat("fail"))
    return lambda body: {"items": [{"id": "kind", "reason": "scripted", "verdict": next(votes)}]}


def run_cli(tmp_path, write, suite_text, *args):
    suite = write("s.yml", suite_text)
    script = Script().reply("hi").respond(three_of_five(), tool="record_verdicts")
    out = tmp_path / "r.json"
    with FakeAnthropicServer(script) as fake:
        env = model_env(fake.url, tmp_path / "c")
        result = CliRunner().invoke(
            main, ["run", str(suite), "-o", str(out), "--no-cache", *args], env=env, catch_exceptions=False
        )
    return result, Report.model_validate(json.loads(out.read_text()))


@pytest.mark.parametrize(
    "setting, code, suite_verdict",
    [(None, 0, "inconclusive"), ("warn", 0, "inconclusive"), ("fail", 1, "fail"), ("pass", 0, "pass")],
)
def test_3_of_5_at_threshold_0_8_is_inconclusive_and_the_exit_code_follows_the_setting(
    tmp_path, write, setting, code, suite_verdict
):
    result, report = run_cli(tmp_path, write, SUITE, *(["--inconclusive", setting] if setting else []))
    case = report.suites[0].cases[0]
    assert case.verdict == "inconclusive" and case.rubric_pass_rate == pytest.approx(0.6)
    assert case.rubric_interval == pytest.approx([0.2307, 0.8824], abs=1e-4)
    assert "interval 23%–88% reaches it" in case.reasons[0]
    assert result.exit_code == code, result.output
    assert report.suites[0].verdict == suite_verdict
    assert "1 inconclusive" in result.output
    markdown = render_markdown(report)
    assert "❔ inconclusive" in markdown
    junit = render_junit(report)
    assert ('<failure message="inconclusive' if setting == "fail" else '<skipped message="inconclusive') in junit


def test_the_suite_setting_applies_when_the_command_line_gives_none(tmp_path, write):
    result, report = run_cli(tmp_path, write, "inconclusive: fail\n" + SUITE)
    assert result.exit_code == 1 and report.suites[0].inconclusive == "fail"


def test_a_rate_whose_interval_stays_below_the_threshold_fails():
    from evalkit.results.gates import case_verdict, score_case
    from evalkit.results.report import CaseResult, ItemResult, RunResult
    from evalkit.suite.spec import Thresholds

    runs = [
        RunResult(repeat=r, items=[ItemResult(id="k", text="k", status="pass" if r < 3 else "fail")]) for r in range(20)
    ]
    case = CaseResult(id="c", verdict="pass", runs=runs)
    score_case(case)
    assert case_verdict(case, Thresholds(rubric=0.8))[0] == "fail"  # 3/20: interval 5%–36%
