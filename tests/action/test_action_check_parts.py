"""The check run's parts in process: its conclusion for every way a run ends, the input, the cap on
annotations, and what a missing token does."""

from __future__ import annotations

from pathlib import Path

import pytest

from evalkit.action.inputs import check_name, parse_inputs, wants_check_run
from evalkit.action.publish import (
    MAX_CHECK_ANNOTATIONS,
    Failure,
    check_annotation,
    check_conclusion,
    failures,
    post_check_run,
)
from evalkit.errors import UsageError
from evalkit.exit_codes import ExitCode
from evalkit.github.api import GitHubAPI
from evalkit.github.event import Event
from evalkit.render.comment import marker
from evalkit.results.report import CaseResult, ItemResult, Report, RunResult, SuiteResult

EVENT = Event(
    name="pull_request",
    owner="octo-org",
    repo="hello",
    pr_number=12,
    head_sha="2" * 40,
    run_url="https://github.com/octo-org/hello/actions/runs/1",
)


@pytest.mark.parametrize(
    "verdict, gate_code, conclusion",
    [
        ("pass", ExitCode.PASSED, "success"),
        ("fail", ExitCode.GATE_FAILED, "failure"),
        ("error", ExitCode.GATE_FAILED, "failure"),  # an error row fails a gate: the team's code raised
        ("fail", ExitCode.PASSED, "success"),  # gate: regressions, and nothing regressed
        ("pass", ExitCode.GATE_FAILED, "failure"),  # gate: regressions, and a case regressed
        ("inconclusive", ExitCode.PASSED, "neutral"),
        ("skipped", ExitCode.PASSED, "skipped"),
        ("skipped", None, "skipped"),  # no key on a fork, nothing affected
        ("error", None, "action_required"),  # the evals could not run or did not finish
    ],
)
def test_the_conclusion_follows_the_gates_and_never_passes_a_run_that_did_not_finish(verdict, gate_code, conclusion):
    assert check_conclusion(verdict, gate_code) == conclusion


def env(**inputs: str) -> dict[str, str]:
    return {f"INPUT_{k.upper()}": v for k, v in inputs.items()}


def test_the_input_is_off_by_default_and_checked():
    assert parse_inputs(env()).check_run is False and not wants_check_run(env())
    assert parse_inputs(env(check_run="true")).check_run is True and wants_check_run(env(check_run="TRUE"))
    with pytest.raises(UsageError, match="check_run: 'sometimes' is not true or false"):
        parse_inputs(env(check_run="sometimes"))
    assert not wants_check_run(env(check_run="sometimes"))  # read leniently before the check: no check run
    assert check_name(env()) == "evalkit" and check_name(env(comment_key="py3.12")) == "evalkit: py3.12"


def red_report(n: int, workspace: Path) -> Report:
    item = ItemResult(id="polite", text="polite", status="fail", reason="rude")
    cases = [
        CaseResult(
            id=f"c{i}",
            verdict="fail",
            line=10 + i,
            reasons=["polite failed"],
            runs=[RunResult(repeat=0, output="Go away.", items=[item])],
        )
        for i in range(n)
    ]
    cases.append(CaseResult(id="ok", verdict="pass", line=5))
    suite = SuiteResult(name="greet", path=str(workspace / "evals" / "greet.suite.yml"), verdict="fail", cases=cases)
    return Report(verdict="fail", suites=[suite])


def test_only_failing_cases_are_annotated_on_their_line_relative_to_the_workspace(tmp_path):
    found = failures(red_report(2, tmp_path), tmp_path)
    assert [(f.case.id, f.file, f.line) for f in found] == [
        ("c0", "evals/greet.suite.yml", 10),
        ("c1", "evals/greet.suite.yml", 11),
    ]
    note = check_annotation(found[0])
    assert (note.path, note.start_line, note.level, note.title) == (
        "evals/greet.suite.yml",
        10,
        "failure",
        "evalkit greet: c0 fail",
    )
    assert "polite fail: rude" in note.message and "Go away." in note.message
    no_line = check_annotation(Failure(found[0].suite, found[0].case, "x.yml", None))
    assert no_line.start_line == 1  # a case whose line the loader did not know: the file's first line


def test_more_annotations_than_the_cap_say_how_many_in_the_summary(tmp_path, fake_github):
    mark = marker()
    notes = [check_annotation(f) for f in failures(red_report(MAX_CHECK_ANNOTATIONS + 7, tmp_path), tmp_path)]
    fake = fake_github()
    result = post_check_run(
        GitHubAPI("t", fake.url),
        EVENT,
        f"{mark}\n## ❌ evalkit: A gate failed\n",
        name="evalkit",
        conclusion="failure",
        annotations=notes,
        mark=mark,
    )
    [check] = fake.check_runs()
    assert result is not None and result.annotations == MAX_CHECK_ANNOTATIONS == len(check["annotations"])
    assert check["output"]["summary"].startswith("> 7 more failing cases are not annotated here")
    assert check["output"]["title"] == "❌ evalkit: A gate failed" and mark not in check["output"]["summary"]


def test_without_a_token_one_warning_and_no_request(capsys):
    assert post_check_run(None, EVENT, "## x", name="evalkit", conclusion="success") is None
    out = capsys.readouterr().out
    assert out.count("::warning") == 1 and "no github_token: no check run" in out
