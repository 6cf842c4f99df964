"""The Action's `tags` input: only cases with one of the tags run (the pull-request profile); a
change whose suites have none of them runs nothing and is not an error."""

from __future__ import annotations

import json

import pytest

from evalkit.action.inputs import parse_inputs
from evalkit.errors import UsageError
from evalkit.testing.script import Script, requested_tool
from tests.action.test_action_entrypoint import SUITE, action  # noqa: F401
from tests.action.test_action_models import JUDGE, github, greet_repo  # noqa: F401

TAGGED = SUITE.replace("  - id: ada\n", "  - id: ada\n    tags: [pr]\n")


def _script() -> Script:
    verdict = {"items": [{"id": "polite", "reason": "polite", "verdict": "pass"}]}
    return Script().reply("Hello!").tool_reply("record_verdicts", verdict)


def test_only_the_tagged_cases_run(action, tmp_path, github, fake_anthropic):  # noqa: F811
    repo = greet_repo(tmp_path / "repo", TAGGED)
    fake_llm = fake_anthropic(_script())
    run = action(
        repo,
        "pull_request_opened.json",
        "pull_request",
        github=github,
        anthropic=fake_llm,
        inputs={"tags": "pr", "suites": "evals/greet.suite.yml"},
    )
    sent = [r["messages"][0]["content"] for r in fake_llm.requests if requested_tool(r) is None]
    assert run.code == 0, run.log
    assert set(sent) == {"GREET Ada politely."}  # the base run (if any) selects alike
    report = json.loads((run.results / "results.json").read_text())
    assert [c["id"] for s in report["suites"] for c in s["cases"]] == ["ada"]
    assert "(cases tagged pr)" in run.log


def test_no_case_with_the_tags_is_skipped_not_an_error(action, tmp_path, github, fake_anthropic):  # noqa: F811
    repo = greet_repo(tmp_path / "repo", TAGGED)
    fake_llm = fake_anthropic(_script())
    run = action(
        repo,
        "pull_request_opened.json",
        "pull_request",
        github=github,
        anthropic=fake_llm,
        inputs={"tags": "nightly", "suites": "evals/greet.suite.yml"},
    )
    sent = list(fake_llm.requests)
    assert run.code == 0, run.log
    assert not [r for r in sent if "messages" in r]
    assert "nothing to run" in run.log and run.outputs["verdict"] == "skipped"


def test_the_tags_input_is_a_list_of_plain_names():
    base = {"INPUT_SUITES": "suites", "INPUT_ANTHROPIC_API_KEY": "k"}
    assert parse_inputs({**base, "INPUT_TAGS": "pr, smoke\npr"}).tags == ("pr", "smoke")
    assert parse_inputs(base).tags == ()
    with pytest.raises(UsageError, match="tags: tag 'a/b' is not a plain name"):
        parse_inputs({**base, "INPUT_TAGS": "a/b"})
