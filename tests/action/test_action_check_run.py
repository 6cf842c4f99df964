"""`check_run: true` through the entrypoint against the loopback fakes: one check run on the PR's head
commit, its conclusion from the gates, the comment's headline and report, an annotation on each failing
case's line (sent in requests of 50); a token without `checks: write` is a warning, nothing more."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_action_entrypoint import KEY, SUITE, TOKEN, action, github, greet_script, marked, repo  # noqa: F401

from evalkit.render.comment import MARKER, headline
from evalkit.testing.fake_anthropic import FakeAnthropicServer
from evalkit.testing.fake_github import FakeGitHub

PR = "pull_request_opened.json"
PR_HEAD = "2" * 40  # the event's pull_request.head.sha; GITHUB_SHA (the test merge commit) is "a" * 40
BOB_LINE = SUITE.splitlines().index("  - id: bob") + 1
CASES = 120


def run(action, repo, github, *, red: bool = False, **inputs: str):
    """One pull-request run; red: Bob's greeting is judged rude."""
    github.set_pr_files(12, [{"filename": "prompts/greet.txt"}])
    inputs.setdefault("cache_dir", ".cache-red" if red else ".cache-green")
    script = greet_script(verdict_bob="fail", reason_bob=f"rude, and it says {KEY}") if red else greet_script()
    with FakeAnthropicServer(script) as fake_llm:
        return action(repo, PR, "pull_request", github=github, anthropic=fake_llm, inputs=inputs)


def check_requests(github: FakeGitHub) -> list:
    return [r for r in github.requests if "/check-runs" in r.path]


@pytest.mark.slow
def test_a_red_run_makes_one_failing_check_with_an_annotation_on_the_case_line(action, repo, github):
    red = run(action, repo, github, red=True, check_run="true")
    assert red.code == 1, red.log
    [check] = github.check_runs()
    assert (check["name"], check["head_sha"], check["status"], check["conclusion"]) == (
        "evalkit",
        PR_HEAD,
        "completed",
        "failure",
    )
    assert check["details_url"] == "https://github.com/octo-org/hello/actions/runs/4242"
    # The comment's own headline and report: one engine, two places.
    [comment] = marked(github, 12)
    report = comment["body"].removeprefix(MARKER).lstrip("\n")
    assert check["output"]["summary"] == report
    assert check["output"]["title"] == headline(report) and "A gate failed" in check["output"]["title"]
    [note] = check["annotations"]
    assert (note["path"], note["start_line"], note["end_line"], note["annotation_level"]) == (
        "evals/greet.suite.yml",
        BOB_LINE,
        BOB_LINE,
        "failure",
    )
    assert "bob" in note["title"] and "polite fail: rude" in note["message"]
    for request in github.requests:  # the key a reply echoed reaches no request, the check run's neither
        assert KEY not in request.raw_body
    assert "evalkit: check run 'evalkit': failure, 1 annotations" in red.proc.stdout

    green = run(action, repo, github, check_run="true")  # a new run, a new check run on the commit
    assert green.code == 0, green.log
    latest = github.check_runs()[-1]
    assert (latest["conclusion"], latest["annotations"]) == ("success", [])
    assert "All gates passed" in latest["output"]["title"]


@pytest.mark.slow
def test_input_off_makes_no_check_runs_call(action, repo, github):
    red = run(action, repo, github, red=True)  # action.yml's default: check_run "false"
    assert red.code == 1, red.log
    assert check_requests(github) == [] and github.check_runs() == []
    assert len(marked(github, 12)) == 1


@pytest.mark.slow
def test_without_checks_write_a_warning_and_the_same_verdict_and_comment(action, repo, fake_github):
    github = fake_github(token=TOKEN, checks_write=False)
    red = run(action, repo, github, red=True, check_run="true")
    assert len(check_requests(github)) == 1 and github.check_runs() == []
    assert len(marked(github, 12)) == 1  # the comment is not lost
    assert red.code == 1, red.log
    assert red.outputs["verdict"] == "fail"
    warnings = [line for line in red.proc.stdout.splitlines() if line.startswith("::warning") and "check run" in line]
    assert len(warnings) == 1 and "permissions: checks: write" in warnings[0], red.proc.stdout


def many_failures(root: Path) -> tuple[Path, dict[str, int]]:
    """A repository whose one suite has CASES failing cases and one whose target raises (an error row),
    run by a Python target: no model is called. Also each case's line."""
    lines = ["name: many", "target: many_target:run", "checks:", '  - {type: contains, value: "Hello"}', "cases:"]
    where: dict[str, int] = {}
    for i in range(CASES + 1):
        case = "boom" if i == CASES else f"c{i:03d}"
        where[case] = len(lines) + 1
        lines += [f"  - id: {case}", f"    input: {case}"]
    (root / "evals").mkdir(parents=True)
    (root / "evals" / "many.suite.yml").write_text("\n".join(lines) + "\n")
    (root / "evals" / "many_target.py").write_text(
        "def run(input):\n    if input == 'boom':\n        raise RuntimeError('the target broke')\n    return 'nope'\n"
    )
    (root / "evalkit.yml").write_text("suites:\n  - evals/many.suite.yml\n")
    return root, where


@pytest.mark.slow
def test_more_than_50_failing_cases_go_in_requests_of_50_each_on_its_line(action, github, tmp_path):
    repo, where = many_failures(tmp_path / "many")
    done = action(
        repo,
        "workflow_dispatch.json",
        "workflow_dispatch",
        github=github,
        inputs={"check_run": "true", "suites": "many"},
    )
    assert done.code == 1, done.log
    [check] = github.check_runs()
    assert check["head_sha"] == "a" * 40  # a manual run: its own commit
    assert check["conclusion"] == "failure"
    notes = check["annotations"]
    assert len(notes) == CASES + 1
    assert {n["path"] for n in notes} == {"evals/many.suite.yml"}
    assert [(n["title"].split(": ")[1].split()[0], n["start_line"]) for n in notes] == list(where.items())
    levels = {n["title"].split(": ")[1].split()[0]: n["annotation_level"] for n in notes}
    assert levels["boom"] == "warning" and set(levels.values()) == {"failure", "warning"}
    assert "the target broke" in notes[-1]["message"]
    writes = [(r.method, len(r.body["output"].get("annotations", []))) for r in check_requests(github)]
    assert writes == [("POST", 50), ("PATCH", 50), ("PATCH", 21)]


def test_evals_that_could_not_run_conclude_action_required(action, repo, github):
    broken = run(action, repo, github, check_run="true", suites="evals/nope.suite.yml")
    assert broken.code == 2, broken.log
    [check] = github.check_runs()
    assert (check["conclusion"], check["annotations"]) == ("action_required", [])
    assert "evals could not run" in check["output"]["title"]
