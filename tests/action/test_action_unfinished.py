"""A run that does not end with a verdict never leaves the previous one standing: through the real
entrypoint against the loopback fakes, after a green run, a push whose user code ends its process
(at call time: an error row; at import in the worker: "the run did not finish"), a worker killed by
a signal, results that are missing, and an internal error each update the comment."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from test_action_entrypoint import action, github, greet_script, marked, repo  # noqa: F401 - fixtures

from evalkit.testing.fake_anthropic import FakeAnthropicServer

QUITTER_SUITE = """\
name: quitter
target: quitter:run
watch: ["evals/quitter.py"]
checks:
  - {type: contains, value: "Hello"}
cases:
  - {id: fine, input: {how: fine}}
  - {id: quits, input: {how: quits}}
"""

AT_CALL = """\
import os

def run(input):
    if input["how"] == "quits":
        os._exit(0)
    return "Hello"
"""

# Ends the Action's worker itself as the run job imports the module (preflight checks the target);
# the index job, and the workers calls run in, import it harmlessly.
AT_IMPORT = """\
import json, os, signal, sys

def _job_kind():
    try:
        with open(sys.argv[1]) as fh:
            return json.load(fh).get("kind")
    except Exception:
        return None

if _job_kind() == "run":
    {end}

def run(input):
    return "Hello"
"""


def _green_then(action, repo: Path, github, target_code: str, **kwargs):
    """A green run on PR 12, then the same PR with the quitter suite and `target_code`."""
    github.set_pr_files(12, [{"filename": "prompts/greet.txt"}])
    with FakeAnthropicServer(greet_script()) as fake_llm:
        green = action(repo, "pull_request_opened.json", "pull_request", github=github, anthropic=fake_llm)
    assert green.code == 0, green.log
    assert "All gates passed" in marked(github, 12)[0]["body"]
    (repo / "evals" / "quitter.suite.yml").write_text(QUITTER_SUITE)
    (repo / "evals" / "quitter.py").write_text(target_code)
    (repo / "evalkit.yml").write_text("suites:\n  - evals/quitter.suite.yml\n")
    github.set_pr_files(12, [{"filename": "evals/quitter.py"}])
    with FakeAnthropicServer(greet_script()) as fake_llm:
        return action(repo, "pull_request_opened.json", "pull_request", github=github, anthropic=fake_llm, **kwargs)


def _comment_and_summary(github, run) -> list[str]:
    (comment,) = marked(github, 12)
    assert run.outputs["verdict"] == "error" and run.outputs["comment_id"] == str(comment["id"])
    return [comment["body"], run.summary]


def test_os_exit_0_in_a_target_after_a_green_run_is_an_error_row_in_the_comment(action, repo, github):
    run = _green_then(action, repo, github, AT_CALL)
    assert run.code == 1, run.log
    assert "Traceback" not in run.log
    for text in _comment_and_summary(github, run):
        assert "All gates passed" not in text
        assert "target called os._exit(0), which ended its worker process" in text


@pytest.mark.slow
def test_os_exit_0_as_the_worker_imports_the_target_says_the_run_did_not_finish(action, repo, github):
    run = _green_then(action, repo, github, AT_IMPORT.replace("{end}", "os._exit(0)"))
    assert run.code == 2, run.log
    assert "Traceback" not in run.log
    for text in _comment_and_summary(github, run):
        assert "the run did not finish" in text and "All gates passed" not in text
        assert "user code called os._exit(0)" in text


@pytest.mark.slow
def test_a_worker_killed_by_a_signal_says_the_run_did_not_finish(action, repo, github):
    run = _green_then(action, repo, github, AT_IMPORT.replace("{end}", "os.kill(os.getpid(), signal.SIGKILL)"))
    assert run.code == 2, run.log
    for text in _comment_and_summary(github, run):
        assert "the run did not finish" in text and "was killed by SIGKILL" in text


MISSING_RESULTS = """\
import sys
import evalkit.action.evaluate as evaluate
import evalkit.action.__main__ as entry

real = evaluate.run_worker

def run_worker(job, **kwargs):  # the worker answers, but its results are gone
    answer = real(job, **kwargs)
    if job["kind"] == "run":
        __import__("pathlib").Path(job["results"]).unlink()
    return answer

evaluate.run_worker = run_worker
sys.exit(entry.main())
"""

INTERNAL_ERROR = """\
import sys
import evalkit.action.__main__ as entry

def evaluate(*args, **kwargs):
    raise KeyError("a bug of evalkit's")

entry.evaluate = evaluate
sys.exit(entry.main())
"""


def test_missing_results_say_the_run_did_not_finish(action, repo, github):
    run = _green_then(
        action, repo, github, AT_CALL.replace("os._exit(0)", "pass"), command=[sys.executable, "-c", MISSING_RESULTS]
    )
    assert run.code == 3, run.log
    assert "FileNotFoundError" not in run.log
    for text in _comment_and_summary(github, run):
        assert "the run did not finish" in text and "the run ended without writing its results" in text


def test_an_internal_error_says_the_run_did_not_finish_and_exits_3(action, repo, github):
    run = _green_then(action, repo, github, AT_CALL, command=[sys.executable, "-c", INTERNAL_ERROR])
    assert run.code == 3, run.log
    assert "KeyError" in run.log  # the traceback is in the log, for whoever fixes it
    for text in _comment_and_summary(github, run):
        assert "the run did not finish" in text and "an internal error of evalkit: KeyError" in text
