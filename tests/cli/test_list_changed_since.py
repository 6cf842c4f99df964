"""`evalkit list --changed-since REF`: every suite the Action would consider, whether it would run for
the diff between REF and the working tree, and why; a bad REF is one line and exit 2."""

from __future__ import annotations

import subprocess

import pytest
from click.testing import CliRunner

from evalkit.cli.commands import main


def suite_text(name: str, watch: str) -> str:
    return (
        f"name: {name}\ntarget: {{prompt: 'Say {{{{ x }}}}'}}\nwatch: ['{watch}']\n"
        f"cases:\n  - {{id: c, input: {{x: hi}}, checks: [{{type: contains, value: hi}}]}}\n"
    )


def git(cwd, *args):
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
    )


@pytest.fixture
def repo(tmp_path, monkeypatch):
    """evals/suite.yml watching src/a/**, evals/b.suite.yml watching src/b/**, committed."""
    (tmp_path / "evals").mkdir()
    (tmp_path / "evals" / "suite.yml").write_text(suite_text("alpha", "src/a/**"), encoding="utf-8")
    (tmp_path / "evals" / "b.suite.yml").write_text(suite_text("beta", "src/b/**"), encoding="utf-8")
    for name in ("src/a/x.py", "src/b/y.py", "docs/index.md"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("1\n", encoding="utf-8")
    git(tmp_path, "init", "-q", "-b", "main")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-qm", "one")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def invoke(*args):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def line_of(output, rel):
    return next(line for line in output.splitlines() if f"  {rel}  " in line)


def test_a_changed_file_runs_the_suite_whose_glob_it_matches_and_says_so(repo):
    (repo / "src/a/x.py").write_text("2\n", encoding="utf-8")  # uncommitted: the working tree counts
    result = invoke("list", "--changed-since", "HEAD")
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[0].startswith("1 file(s) changed since HEAD; 1 of 2 suite(s)")
    assert line_of(result.output, "evals/suite.yml").startswith("run ")
    assert "(alpha): src/a/x.py matches src/a/**" in line_of(result.output, "evals/suite.yml")
    beta = line_of(result.output, "evals/b.suite.yml")
    assert beta.startswith("skip") and "no changed file matches" in beta and "src/b/**" in beta


def test_a_docs_only_diff_runs_no_suite_and_a_suite_file_change_runs_its_suite(repo):
    (repo / "docs/index.md").write_text("2\n", encoding="utf-8")
    git(repo, "commit", "-qam", "docs")
    result = invoke("list", "--changed-since", "HEAD~1")
    assert result.exit_code == 0 and "0 of 2 suite(s)" in result.output, result.output
    (repo / "evals/b.suite.yml").write_text(suite_text("beta", "src/b/**") + "# touched\n", encoding="utf-8")
    result = invoke("list", "--changed-since", "HEAD~1")
    assert line_of(result.output, "evals/b.suite.yml").startswith("run ")  # a suite watches its own file
    assert line_of(result.output, "evals/suite.yml").startswith("skip")


@pytest.mark.parametrize("ref", ["no-such-branch", "--output=x", "HEAD~9"])
def test_a_bad_ref_is_one_line_and_exit_2(repo, ref):
    result = CliRunner().invoke(main, ["list", "--changed-since", ref])
    assert result.exit_code == 2, result.output
    assert len(result.output.strip().splitlines()) == 1 and repr(ref) in result.output, result.output


def test_outside_a_git_repository_is_one_line_and_exit_2(tmp_path, monkeypatch):
    (tmp_path / "evalkit.yml").write_text("suites: [s.suite.yml]\n", encoding="utf-8")
    (tmp_path / "s.suite.yml").write_text(suite_text("s", "x/**"), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path.parent))
    result = CliRunner().invoke(main, ["list", "--changed-since", "HEAD"])
    assert result.exit_code == 2 and "not in a git repository" in result.output, result.output


def test_paths_with_changed_since_are_refused(repo):
    result = CliRunner().invoke(main, ["list", "evals", "--changed-since", "HEAD"])
    assert result.exit_code == 2 and "name no paths" in result.output, result.output
