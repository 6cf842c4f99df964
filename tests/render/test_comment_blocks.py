"""The PR comment fits GitHub's limit by leaving out whole blocks, and caps every untrusted string."""

from __future__ import annotations

from evalkit.errors import Problem, SuiteError, UsageError
from evalkit.render.comment import MARKER, MAX_COMMENT_CHARS, render_comment, setup_error_body
from evalkit.render.markdown import render_markdown
from evalkit.render.sanitize import MAX_QUOTED_CHARS
from evalkit.results.report import CaseResult, ItemResult, Report, RunResult, SuiteResult


def _case(cid: str, verdict: str, reason: str = "rude") -> CaseResult:
    items = [
        ItemResult(
            id="polite",
            text="Is polite",
            status="pass" if verdict == "pass" else "fail",
            reason=reason,
            decided_by="judge",
        )
    ]
    return CaseResult(
        id=cid,
        verdict=verdict,
        runs=[RunResult(repeat=0, output="x", items=items)],
        reasons=[] if verdict == "pass" else ["rubric 0% < 80%"],
    )


def _suite(name: str, cases: list[CaseResult]) -> SuiteResult:
    verdict = "fail" if any(c.verdict == "fail" for c in cases) else "pass"
    return SuiteResult(name=name, path=f"evals/{name}.suite.yml", verdict=verdict, cases=cases)


def test_one_huge_reason_is_capped_and_every_other_case_keeps_its_details():
    cases = [_case("huge", "fail", "A" * 1_000_000)] + [_case(f"c{i}", "fail", f"reason-{i}") for i in range(20)]
    report = Report(verdict="fail", suites=[_suite("greet", cases)])
    body = render_comment(report)
    assert len(body) <= MAX_COMMENT_CHARS
    assert "A" * MAX_QUOTED_CHARS in body and "A" * (MAX_QUOTED_CHARS + 1) not in body
    assert f"{1_000_000 - MAX_QUOTED_CHARS:,} more characters in results.json" in body
    for i in range(20):
        assert f"reason-{i}" in body
    assert "left out" not in body and "truncated" not in body
    assert "model calls" in body  # the usage line at the end survives


def test_passing_suites_tables_go_before_failing_details():
    passing = [_suite(f"ok{i}", [_case(f"p{i}-{j}", "pass") for j in range(200)]) for i in range(10)]
    failing = _suite("bad", [_case(f"f{i}", "fail", "r" * 300) for i in range(30)])
    body = render_comment(Report(verdict="fail", suites=[*passing, failing]))
    assert len(body) <= MAX_COMMENT_CHARS
    assert "passing suites' tables left out" in body and "failing cases' details" not in body
    assert body.count("<details>") == 30
    assert "### ✅ ok0" in body  # the heading of a passing suite stays
    # The markdown report (CLI, summary) keeps everything and shows no sentinel.
    full = render_markdown(Report(verdict="fail", suites=[*passing, failing]))
    assert "`p9-199`" in full and not any("\ue000" <= ch <= "\uf8ff" for ch in full)


def test_forged_block_sentinels_in_model_output_are_stripped():
    forged = "\ue010passing\ue011 hidden \ue012"
    body = render_comment(Report(verdict="fail", suites=[_suite("s", [_case("c", "fail", forged)])]))
    assert "hidden" in body and not any("\ue000" <= ch <= "\uf8ff" for ch in body)


def test_setup_error_body_lists_problems_with_file_and_line():
    error = SuiteError(
        "evals/a.suite.yml",
        [
            Problem("unknown key 'bogus'", "evals/a.suite.yml", 7),
            Problem("@team <b>x</b>", "evals/a.suite.yml", 9, "c1"),
        ],
    )
    body = setup_error_body(error, where=lambda p: p.file, run_url="https://github.com/o/r/actions/runs/1")
    assert body.startswith(MARKER) and "evals could not run" in body
    assert "`evals/a.suite.yml:7` — unknown key 'bogus'" in body
    assert "`evals/a.suite.yml:9` — case c1:" in body and "@team" not in body and "<b>" not in body
    assert "passed" not in body
    usage = setup_error_body(UsageError("invalid input: concurrency: '0' is not a whole number"))
    assert "evals could not run" in usage and "concurrency" in usage
