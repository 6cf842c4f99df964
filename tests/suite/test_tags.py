"""Case tags: on cases and on the suite, selected by `--tag` (run, plan, list) alike everywhere."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from evalkit.cli.commands import main
from evalkit.engine import load_suites
from evalkit.errors import SuiteError
from evalkit.suite.model import describe_selection, tag_selector

SUITE = """\
name: tagged
target: {prompt: "Say {{ input.word }}"}
tags: [all]
cases:
  - {id: a, input: {word: alpha}, tags: [pr]}
  - {id: b, input: {word: beta}, tags: [pr, slow]}
  - {id: c, input: {word: gamma}, tags: [nightly]}
  - {id: d, input: {word: delta}}
"""


@pytest.fixture
def suite_file(tmp_path):
    path = tmp_path / "tagged.suite.yml"
    path.write_text(SUITE)
    return path


def _ids(suite, *selectors):
    return [c.id for c in suite.select(list(selectors))]


def test_case_tags_add_to_the_suites_and_select(suite_file):
    (suite,) = load_suites([suite_file])
    assert {c.id: c.tags for c in suite.cases} == {
        "a": ["all", "pr"],
        "b": ["all", "pr", "slow"],
        "c": ["all", "nightly"],
        "d": ["all"],
    }
    assert _ids(suite, tag_selector("pr")) == ["a", "b"]
    assert _ids(suite, tag_selector("pr"), tag_selector("nightly")) == ["a", "b", "c"]  # any of the tags
    assert _ids(suite, tag_selector("all")) == ["a", "b", "c", "d"]
    assert _ids(suite, "b*", "c", tag_selector("pr")) == ["b"]  # id globs and tags: both must hold
    assert _ids(suite, tag_selector("none")) == []
    assert _ids(suite) == ["a", "b", "c", "d"]


def test_a_tag_that_is_not_a_plain_name_is_refused(tmp_path):
    path = tmp_path / "bad.suite.yml"
    path.write_text(SUITE.replace("tags: [pr, slow]", "tags: [pr, 'two words']"))
    with pytest.raises(SuiteError, match="tag 'two words' is not a plain name"):
        load_suites([path])


def test_list_and_plan_take_tags(suite_file):
    listed = CliRunner().invoke(main, ["list", str(suite_file), "--tag", "pr"])
    assert listed.exit_code == 0, listed.output
    assert "  a  (#all, #pr," in listed.output and "  b  (" in listed.output
    assert "  c  (" not in listed.output and "  d  (" not in listed.output
    planned = CliRunner().invoke(main, ["plan", str(suite_file), "--tag", "pr", "--no-cache"])
    assert planned.exit_code == 0, planned.output
    assert planned.output.splitlines()[1].split()[1:3] == ["2", "2"]  # cases, runs


def test_run_takes_tags_and_a_selection_that_matches_nothing_says_so(
    suite_file, tmp_path, fake_anthropic, anthropic_environ
):
    from evalkit.testing.script import Script

    server = fake_anthropic(Script().reply("ok"))
    anthropic_environ(server)
    out = tmp_path / "r.json"
    result = CliRunner().invoke(main, ["run", str(suite_file), "--tag", "nightly", "--no-cache", "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert [c["id"] for s in json.loads(out.read_text())["suites"] for c in s["cases"]] == ["c"]
    assert [r["messages"][0]["content"] for r in server.requests] == ["Say gamma"]
    nothing = CliRunner().invoke(main, ["run", str(suite_file), "--case", "a", "--tag", "nightly", "--no-cache"])
    assert nothing.exit_code == 2
    assert "--case a --tag nightly matches no case" in nothing.output


def test_describe_selection():
    assert describe_selection(["weekly_*", tag_selector("pr")]) == "--case weekly_* --tag pr"
