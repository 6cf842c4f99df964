"""Consistency over repeats: each run's own verdict, pass@k and pass^k in every view, and
`pass_all: true` (every run must pass)."""

from __future__ import annotations

import itertools
import json
import re
import xml.etree.ElementTree as ET

import pytest
from click.testing import CliRunner

from evalkit.cli.commands import main
from evalkit.render.comment import render_comment
from evalkit.render.html import render_html
from evalkit.render.junit import render_junit
from evalkit.render.markdown import render_markdown
from evalkit.results.consistency import consistency, run_passes
from evalkit.results.report import ItemResult, Report, RunResult
from evalkit.suite.spec import Thresholds
from evalkit.testing.fake_anthropic import FakeAnthropicServer
from evalkit.testing.script import Script
from tests.fakes import model_env

# `flaky`: the judge fails its item on one of three runs (2/3 runs pass; the rate, 67 %, meets the
# 50 % threshold); `steady`: a code check every run passes (3/3).
SUITE = """
name: repeats
target:
  prompt: "Say hi"
repeats: 3
thresholds: {rubric: 0.5}
cases:
  - id: flaky
    rubric:
      - {id: kind, judge: The reply is kind}
  - id: steady
    checks:
      - {type: contains, value: hi}
"""


def one_fail_in_three():
    votes = itertools.chain(["pass", "fail", "pass"], itertools.repeat("pass"))
    return lambda body: {"items": [{"id": "kind", "reason": "scripted", "verdict": next(votes)}]}


def run_suite(tmp_path, write, suite_text):
    suite = write("s.yml", suite_text)
    script = Script().reply("hi").respond(one_fail_in_three(), tool="record_verdicts")
    out = tmp_path / "r.json"
    with FakeAnthropicServer(script) as fake:
        env = model_env(fake.url, tmp_path / "c")
        result = CliRunner().invoke(
            main, ["run", str(suite), "-o", str(out), "--no-cache"], env=env, catch_exceptions=False
        )
    return result, Report.model_validate(json.loads(out.read_text()))


def cases(report):
    return {c.id: c for c in report.suites[0].cases}


def test_each_run_carries_its_own_verdict_and_the_case_its_k_of_n(tmp_path, write):
    result, report = run_suite(tmp_path, write, SUITE)
    assert result.exit_code == 0, result.output
    flaky, steady = cases(report)["flaky"], cases(report)["steady"]
    assert sorted(r.passed for r in flaky.runs) == [False, True, True]  # read back from the JSON
    assert flaky.verdict == "pass"  # without pass_all, the rate decides
    c = consistency(flaky)
    assert (c.passed, c.k, c.pass_at_k, c.pass_all_k) == (2, 3, True, False)
    assert c.summary == "2/3 runs passed · pass@3 ✓ · pass^3 ✗"
    assert consistency(steady).summary == "3/3 runs passed · pass@3 ✓ · pass^3 ✓"


def test_the_markdown_report_and_the_comment_show_k_of_n(tmp_path, write):
    _, report = run_suite(tmp_path, write, SUITE)
    for text in (render_markdown(report), render_comment(report)):
        assert "| Runs passed |" in text
        flaky_row = next(line for line in text.splitlines() if "`flaky`" in line)
        assert "2/3 runs passed · pass@3 ✓ · pass^3 ✗" in flaky_row
        steady_row = next(line for line in text.splitlines() if "`steady`" in line)
        assert "3/3 runs passed · pass@3 ✓ · pass^3 ✓" in steady_row


def test_junit_properties_give_k_of_n_pass_at_k_and_pass_hat_k(tmp_path, write):
    _, report = run_suite(tmp_path, write, SUITE)
    root = ET.fromstring(render_junit(report).split("\n", 1)[1])
    props = {
        tc.get("name"): {p.get("name"): p.get("value") for p in tc.iter("property")} for tc in root.iter("testcase")
    }
    props["flaky"].pop("queue_seconds", None)  # a property of its own, there when the case waited for a slot
    assert props["flaky"] == {"runs_passed": "2/3", "pass@k": "true", "pass^k": "false"}
    assert props["steady"]["runs_passed"] == "3/3" and props["steady"]["pass^k"] == "true"


def test_the_html_page_shows_runs_passed_and_each_runs_verdict(tmp_path, write):
    _, report = run_suite(tmp_path, write, SUITE)
    page = render_html(report)
    assert '<th class="sortable num">runs passed</th>' in page
    assert re.search(r"2/3<br><span class=\"muted\">pass@3 ✓ · pass\^3 ✗</span>", page)
    assert "2/3 runs passed · pass@3 ✓ · pass^3 ✗" in page  # the case's drill-down
    assert re.search(r"Run \d <span class=\"st-fail\">fail</span>", page)


def test_pass_all_fails_the_case_a_run_failed_and_says_which_and_keeps_a_3_of_3_case(tmp_path, write):
    result, report = run_suite(tmp_path, write, "pass_all: true\n" + SUITE)
    assert result.exit_code == 1, result.output
    flaky, steady = cases(report)["flaky"], cases(report)["steady"]
    failed_run = next(r.repeat + 1 for r in flaky.runs if not r.passed)
    assert flaky.verdict == "fail"
    assert flaky.reasons == [f"pass_all: run {failed_run} of 3 failed (2/3 passed)"]
    assert steady.verdict == "pass" and steady.reasons == []
    assert f"failed: run {failed_run}" in render_markdown(report)


def test_a_case_may_turn_pass_all_off_where_the_suite_turns_it_on(tmp_path, write):
    text = "pass_all: true\n" + SUITE.replace("  - id: flaky\n", "  - id: flaky\n    pass_all: false\n")
    result, report = run_suite(tmp_path, write, text)
    assert result.exit_code == 0, result.output
    assert cases(report)["flaky"].verdict == "pass"


def test_pass_all_does_not_let_a_failing_run_pass_as_inconclusive():
    from evalkit.results.gates import case_verdict, score_case
    from evalkit.results.report import CaseResult

    # 2 of 3 at threshold 0.8: inconclusive by the rate's interval; a failed run makes pass_all fail it.
    runs = [
        RunResult(repeat=r, items=[ItemResult(id="k", text="k", status="fail" if r == 1 else "pass")]) for r in range(3)
    ]
    case = CaseResult(id="c", verdict="pass", runs=runs)
    score_case(case)
    for run in runs:
        run.passed = run_passes(run, Thresholds(rubric=0.8))
    assert case_verdict(case, Thresholds(rubric=0.8))[0] == "inconclusive"
    assert case_verdict(case, Thresholds(rubric=0.8), pass_all=True) == (
        "fail",
        ["pass_all: run 2 of 3 failed (2/3 passed)", "rubric pass rate 67% < 80%"],
    )


@pytest.mark.parametrize(
    "items, error, passes",
    [
        ([ItemResult(id="r", text="r", status="pass")], None, True),
        ([ItemResult(id="r", text="r", status="fail")], None, False),  # its rubric rate, 0 %, is below 50 %
        ([ItemResult(id="r", text="r", status="pass"), ItemResult(id="s", text="s", status="fail")], None, True),
        ([ItemResult(id="c", text="c", status="fail", required=True)], None, False),
        (
            [
                ItemResult(id="r", text="r", status="pass"),
                ItemResult(id="x", text="x", status="fail", critical=True),
                ItemResult(id="y", text="y", status="pass"),
                ItemResult(id="z", text="z", status="pass"),
            ],
            None,
            False,
        ),
        ([ItemResult(id="c", text="c", status="error", required=True)], None, False),
        ([ItemResult(id="c", text="c", status="n/a", required=True)], None, True),
        ([], "target raised", False),
    ],
)
def test_a_run_passes_by_the_case_gates_rules_applied_to_it_alone(items, error, passes):
    assert run_passes(RunResult(repeat=0, items=items, error=error), Thresholds(rubric=0.5)) is passes


def test_results_written_before_runs_had_a_verdict_still_load_and_show_no_figures(tmp_path, write):
    _, report = run_suite(tmp_path, write, SUITE)
    old = json.loads(report.model_dump_json())
    for suite in old["suites"]:
        for case in suite["cases"]:
            for run in case["runs"]:
                del run["passed"]
    path = tmp_path / "old.json"
    path.write_text(json.dumps(old))
    loaded = Report.load(path)
    flaky = cases(loaded)["flaky"]
    assert [r.passed for r in flaky.runs] == [None, None, None] and consistency(flaky) is None
    assert "Runs passed" not in render_markdown(loaded)
    assert "runs_passed" not in render_junit(loaded)
    assert "runs passed" not in render_html(loaded)


def test_a_pass_all_that_is_not_true_or_false_is_refused_with_where_it_is(write):
    from evalkit.errors import SuiteError
    from evalkit.suite import load_suite

    with pytest.raises(SuiteError) as err:
        load_suite(write("s.yml", SUITE.replace("  - id: steady\n", "  - id: steady\n    pass_all: sometimes\n")))
    assert "pass_all" in str(err.value) and "s.yml" in str(err.value)
