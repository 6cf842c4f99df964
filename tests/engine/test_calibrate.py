"""`evalkit calibrate`: the judge and the extraction measured on gold outputs (loopback fake)."""

from __future__ import annotations

import itertools
import json
import re

import pytest
from click.testing import CliRunner

from evalkit.cli.commands import main
from evalkit.testing.fake_anthropic import FakeAnthropicServer
from evalkit.testing.script import Script
from tests.fakes import model_env

GOLD = "\n".join(
    f"""  - case: c
    output: "reply number {i}"
    fields: {{km: {10 * i}}}
    labels: {{kind: {"pass" if i < 5 else "fail"}}}"""
    for i in range(10)
)

SUITE = f"""
name: cal
target: m:f
fields:
  km: {{type: number}}
calibration: {{min_agreement: 0.9}}
cases:
  - id: c
    rubric:
      - {{id: kind, judge: The reply is kind}}
gold:
{GOLD}
"""


def _number(body) -> int:
    return int(re.search(r"reply number (\d)", body["messages"][0]["content"]).group(1))


def wrong_on_two(body):
    # passes replies 0-6: the gold labels fail 5 and 6 -> two false passes in ten
    verdict = "pass" if _number(body) < 7 else "fail"
    return {"items": [{"id": "kind", "reason": "as scripted", "verdict": verdict}]}


def extract(body):
    n = _number(body)
    return {"km": None if n == 9 else 10 * n}  # one of ten values missed


def run_calibrate(tmp_path, write, judge, *args, suite=SUITE):
    suite = write("cal.suite.yml", suite)
    script = Script().respond(judge, tool="record_verdicts").respond(extract, tool="record_fields")
    with FakeAnthropicServer(script) as fake:
        env = model_env(fake.url, tmp_path / "c")
        result = CliRunner().invoke(main, ["calibrate", str(suite), *args], env=env, catch_exceptions=False)
    return result, json.loads((tmp_path / "cal.calibration.json").read_text())


def test_a_judge_wrong_on_two_of_ten_agrees_80_percent_with_the_right_kappa(tmp_path, write):
    result, saved = run_calibrate(tmp_path, write, wrong_on_two, "--repeats", "1")
    assert result.exit_code == 1, result.output  # 80 % is under the suite's bar of 90 %
    [item] = saved["items"]
    assert item["agreement"] == pytest.approx(0.8) and item["kappa"] == pytest.approx(0.6)
    assert (item["false_pass"], item["false_fail"], item["labels"]) == (2, 0, 10)
    assert saved["fields"] == [{"field": "km", "compared": 10, "accuracy": pytest.approx(0.9), "errors": 0}]
    assert result.output.startswith(
        "cal: below the calibration bar: kind agrees 80% < 90% — judge agreement "
        "with 10 gold labels: 80% (errors count as disagreements), κ 0.60 (95% CI "
    )
    assert "below the suite's calibration bar — rewrite: kind" in result.output


def test_fields_a_gold_entry_marks_misread_are_not_scored(tmp_path, write):
    # Entry 9 records km as a fooled extraction would (on purpose): the extraction is not scored on it.
    suite = SUITE.replace(
        'output: "reply number 9"\n    fields: {km: 90}',
        'output: "reply number 9"\n    fields: {km: 90}\n    misread: [km]',
    )
    assert "misread: [km]" in suite
    _, saved = run_calibrate(tmp_path, write, wrong_on_two, "--repeats", "1", suite=suite)
    assert saved["fields"] == [{"field": "km", "compared": 9, "accuracy": 1.0, "errors": 0}]


def test_a_judge_that_alternates_has_a_flip_rate_of_1(tmp_path, write):
    turns: dict[int, itertools.cycle] = {}

    def alternate(body):  # each output's verdicts alternate: pass, fail, pass...
        verdict = next(turns.setdefault(_number(body), itertools.cycle(["pass", "fail"])))
        return {"items": [{"id": "kind", "reason": "coin", "verdict": verdict}]}

    result, saved = run_calibrate(tmp_path, write, alternate, "--repeats", "2")
    assert saved["items"][0]["flip_rate"] == 1.0 and saved["flip_rate"] == 1.0
    assert saved["repeats"] == 2 and saved["items"][0]["verdicts"] == 20


def test_calibrate_without_gold_is_a_usage_error(write):
    suite = write("s.yml", SUITE.split("gold:")[0])
    result = CliRunner().invoke(main, ["calibrate", str(suite)], env={"ANTHROPIC_API_KEY": "k"})
    assert result.exit_code == 2 and "no gold outputs" in result.output


def test_the_saved_figures_show_in_selftest_the_log_line_and_the_markdown_report(tmp_path, write):
    from evalkit.engine.selftest import selftest
    from evalkit.render.log import suite_line
    from evalkit.render.markdown import render_markdown
    from evalkit.results.report import Report, SuiteResult
    from evalkit.suite import load_suite
    from evalkit.suite.calibration import calibration_note

    run_calibrate(tmp_path, write, wrong_on_two, "--repeats", "1")
    suite = load_suite(tmp_path / "cal.suite.yml")
    note = calibration_note(suite)
    assert note is not None and note.startswith(
        "below the calibration bar: kind agrees 80% < 90% — judge agreement "
        "with 10 gold labels: 80% (errors count as disagreements), κ 0.60"
    )
    assert note in selftest(suite).summary()
    result = SuiteResult(name="cal", path=str(suite.path), verdict="pass", calibration=note)
    assert note in suite_line(result)
    assert f"🎯 {note}" in render_markdown(Report(verdict="pass", suites=[result]))


def test_kappa_interval_does_not_let_a_few_matched_labels_pass_for_skill():
    from evalkit.results.intervals import cohen_kappa, kappa_interval

    three = [("pass", "pass"), ("fail", "fail"), ("fail", "fail")]
    assert cohen_kappa(three) == 1.0 and kappa_interval(three)[0] < 0 < kappa_interval(three)[1]  # type: ignore[index]
    fifty = [("pass", "pass")] * 25 + [("fail", "fail")] * 25
    assert kappa_interval(fifty)[0] > 0.8  # type: ignore[index]
    # the same 50 agreements as 3 verdicts on each of ~17 outputs: the interval is as wide as 17 units give
    assert kappa_interval(fifty, units=17)[0] < kappa_interval(fifty)[0]  # type: ignore[index]
    constant = [("pass", "pass")] * 7 + [("fail", "pass")] * 3  # says pass to everything
    assert cohen_kappa(constant) == 0.0 and kappa_interval(constant)[0] < 0  # type: ignore[index]


def test_errors_count_as_disagreements_and_the_headline_says_so(tmp_path, write):
    def broken(body):  # every reply but output 0's is malformed (and stays so on the retry)
        if _number(body) != 0:
            return {"items": "broken"}
        return {"items": [{"id": "kind", "reason": "fine", "verdict": "pass"}]}

    suite = SUITE.replace("{min_agreement: 0.9}", "{max_error_share: 0.2}")
    result, saved = run_calibrate(tmp_path, write, broken, "--repeats", "1", suite=suite)
    assert result.exit_code == 1
    # 1 right verdict of 10 labels: 10 %, not the 100 % of the one verdict given
    assert saved["agreement"] == pytest.approx(0.1) and saved["items"][0]["errors"] == 9
    # 10 verdicts + 10 extractions, asked in one call per output (as a run asks): a malformed reply
    # loses that output's fields too
    assert saved["errors"] == 18 and saved["calls"] == 20
    assert result.output.startswith(
        "cal: below the calibration bar: errors 90% of verdicts and extractions > 20% — "
        "judge agreement with 10 gold labels: 10% (errors count as disagreements)"
    )
