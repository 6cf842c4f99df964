"""A folder's `suite.yml` and its `*.suite.yml` files all load, for every front door alike; two
suites of one name are refused in one line naming both files."""

from __future__ import annotations

import json
import re

import pytest
from click.testing import CliRunner

from evalkit.action.discovery import load_repo_suites
from evalkit.cli.commands import main
from evalkit.engine import load_suites
from evalkit.errors import UsageError
from evalkit.suite.files import resolve_suite_paths
from evalkit.testing.script import Script


def suite_text(name: str) -> str:
    return (
        f"name: {name}\ntarget: {{prompt: 'Greet {{{{ who }}}}'}}\nwatch: ['src/{name}/**']\n"
        f"cases:\n  - {{id: {name}_case, input: {{who: Ada}}, checks: [{{type: contains, value: Ada}}]}}\n"
    )


@pytest.fixture
def evals(tmp_path, monkeypatch):
    """evals/suite.yml beside evals/agent.suite.yml and evals/chat.suite.yml, in a project folder."""
    folder = tmp_path / "evals"
    folder.mkdir()
    for file, name in (("suite.yml", "main"), ("agent.suite.yml", "agent"), ("chat.suite.yml", "chat")):
        (folder / file).write_text(suite_text(name), encoding="utf-8")
    (tmp_path / "evalkit.yml").write_text("suites:\n  - evals\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return folder


def invoke(*args, env=None):
    return CliRunner().invoke(main, list(map(str, args)), env=env, catch_exceptions=False)


def test_a_folder_names_its_suite_yml_and_every_suite_yml_beside_it(evals):
    assert [p.name for p in resolve_suite_paths(evals)] == ["suite.yml", "agent.suite.yml", "chat.suite.yml"]
    assert [s.name for s in load_suites([evals])] == ["main", "agent", "chat"]


def test_a_folder_and_a_file_in_it_both_named_load_the_file_once(evals):
    assert [s.name for s in load_suites([evals, evals / "agent.suite.yml"])] == ["main", "agent", "chat"]


@pytest.mark.parametrize("command", [["list"], ["validate"], ["plan", "--estimate-tokens"]])
def test_list_validate_and_plan_see_every_suite_of_the_folder(evals, command):
    for args in ([], ["evals"]):  # from evalkit.yml, and the folder named on the command line
        result = invoke(*command, *args)
        assert result.exit_code == 0, result.output
        for name in ("main", "agent", "chat"):  # each command names every suite
            assert re.search(rf"(^|[\s(]){name}\b", result.output, re.M), (command, args, result.output)


def test_run_runs_every_suite_of_the_folder(evals, tmp_path, fake_anthropic, anthropic_env):
    fake = fake_anthropic(Script().reply("Hello Ada"))
    env = anthropic_env(fake)
    result = invoke("run", "evals", "-o", tmp_path / "res.json", env=env)
    assert result.exit_code == 0, result.output
    ran = [s["name"] for s in json.loads((tmp_path / "res.json").read_text())["suites"]]
    assert sorted(ran) == ["agent", "chat", "main"]


def test_the_actions_discovery_sees_every_suite_of_the_folder(evals, tmp_path):
    for config in ("suites:\n  - evals\n", None):  # listed in evalkit.yml, and found by walking the tree
        if config is None:
            (tmp_path / "evalkit.yml").unlink()
        repo = load_repo_suites(tmp_path)
        assert sorted(repo.watch_map()) == ["evals/agent.suite.yml", "evals/chat.suite.yml", "evals/suite.yml"]
        assert sorted(s.name for s in repo.suites) == ["agent", "chat", "main"]


def test_two_suites_of_one_name_are_one_line_naming_both_files(evals, tmp_path):
    (evals / "chat.suite.yml").write_text(suite_text("agent"), encoding="utf-8")
    with pytest.raises(UsageError) as err:
        load_suites([evals])
    assert "agent.suite.yml" in str(err.value) and "chat.suite.yml" in str(err.value)
    with pytest.raises(UsageError, match="two suites are named 'agent'"):
        load_repo_suites(tmp_path)
    result = invoke("validate")
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and "agent.suite.yml" in lines[0] and "chat.suite.yml" in lines[0], result.output
