"""`evalkit init --target pkg.mod:fn` gates what the team changes: its suite watches the target's
package, the prompt files the target visibly reads and the suite's folder, and the workflow's
`paths:` are every suite's watch globs plus evalkit's own files."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from evalkit.action.discovery import load_repo_suites
from evalkit.cli.commands import main
from evalkit.cli.init_watch import watch_for_target, workflow_paths
from evalkit.github.changes import ChangedFiles, select_suites
from evalkit.github.globs import first_match

REPLY = """from pathlib import Path

PROMPT = Path(__file__).resolve().parents[1] / "prompts/support.txt"


def answer(question, client):
    return client.complete(PROMPT.read_text(encoding="utf-8") + question, max_tokens=200)
"""


def git(cwd, *args):
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
    )


@pytest.fixture
def team(tmp_path) -> Path:
    """A new team's repository: support/reply.py reads prompts/support.txt; docs beside."""
    root = tmp_path / "team"
    for name, text in {
        "support/__init__.py": "",
        "support/reply.py": REPLY,
        "prompts/support.txt": "You answer support questions.\n",
        "docs/index.md": "# Support\n",
        "README.md": "# team\n",
    }.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    git(root, "init", "-q", "-b", "main")
    return root


def init(root: Path, target: str):
    result = CliRunner().invoke(main, ["init", str(root), "--target", target], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    git(root, "add", "-A")
    git(root, "commit", "-qm", "evalkit init")
    return result


def selected(root: Path, changed: list[str]) -> list[str]:
    """The suites the Action would run for a pull request that changes `changed`."""
    return select_suites(load_repo_suites(root).watch_map(), ChangedFiles(changed, "test"))[0]


def workflow_filter(root: Path) -> list[str]:
    workflow = yaml.safe_load((root / ".github/workflows/evals.yml").read_text(encoding="utf-8"))
    return workflow[True]["pull_request"]["paths"]  # YAML 1.1 reads `on` as True


def test_a_pr_changing_only_the_prompt_file_is_evaluated_and_a_docs_only_pr_is_not(team):
    init(team, "support.reply:answer")
    suite = yaml.safe_load((team / "evals/suite.yml").read_text(encoding="utf-8"))
    assert suite["watch"] == ["support/**", "prompts/**", "evals/**"]
    for change in (["prompts/support.txt"], ["support/reply.py"], ["evals/suite.yml"]):
        assert selected(team, change) == ["evals/suite.yml"], change
        assert first_match(workflow_filter(team), change), change  # and the workflow starts at all
    for change in (["docs/index.md"], ["README.md", "docs/index.md"]):
        assert selected(team, change) == [], change
        assert first_match(workflow_filter(team), change) is None, change


def test_list_changed_since_agrees_for_a_prompt_change(team, monkeypatch):
    init(team, "support.reply:answer")
    (team / "prompts/support.txt").write_text("You answer support questions kindly.\n", encoding="utf-8")
    monkeypatch.chdir(team)
    result = CliRunner().invoke(main, ["list", "--changed-since", "HEAD"], catch_exceptions=False)
    assert "run   evals/suite.yml" in result.output and "prompts/support.txt matches prompts/**" in result.output


def test_the_workflow_paths_are_every_suites_globs_and_evalkits_own_files(team):
    init(team, "support.reply:answer")
    assert workflow_filter(team) == [
        "support/**",
        "prompts/**",
        "evals/**",
        "evalkit.yml",
        ".github/workflows/evals.yml",
    ]


def test_without_a_prompt_file_init_says_in_one_line_which_globs_to_add(team):
    (team / "support/reply.py").write_text("def answer(question, client):\n    return 'ok'\n", encoding="utf-8")
    (team / "prompts/support.txt").unlink()
    (team / "prompts").rmdir()
    result = init(team, "support.reply:answer")
    notes = [line for line in result.output.splitlines() if line.startswith("note:")]
    assert len(notes) == 1 and "support/reply.py" in notes[0] and "prompts/**" in notes[0], result.output
    assert yaml.safe_load((team / "evals/suite.yml").read_text())["watch"] == ["support/**", "evals/**"]


def test_the_generated_suite_has_no_comment_cut_mid_sentence(team):
    init(team, "support.reply:answer")
    comments = [
        line.split("#", 1)[1].strip() for line in (team / "evals/suite.yml").read_text().splitlines() if "#" in line
    ]
    assert all(not c.endswith(("your code's", "add your", ":", ",")) for c in comments), comments


def test_a_top_level_module_is_watched_as_its_file_and_a_module_not_in_the_project_says_so(tmp_path):
    (tmp_path / "app.py").write_text("def reply(q):\n    return 'x'\n", encoding="utf-8")
    assert watch_for_target(tmp_path, "app:reply").globs == ["app.py", "evals/**"]
    elsewhere = watch_for_target(tmp_path, "somewhere.else:fn")
    assert elsewhere.globs == ["evals/**"] and "somewhere.else is not a file" in (elsewhere.note or "")


def test_literals_outside_the_project_or_naming_the_package_itself_are_not_watched(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "secret.txt").write_text("x", encoding="utf-8")
    (tmp_path / "pkg" / "mod.py").write_text(
        "A = '/etc/passwd'\nB = '../secret.txt'\nC = '.'\nD = 'pkg'\nE = '.git'\ndef fn(q):\n    return q\n",
        encoding="utf-8",
    )
    (tmp_path / ".git").mkdir()
    guess = watch_for_target(tmp_path, "pkg.mod:fn")
    # '../secret.txt' from pkg/ is the project's secret.txt: inside the project, so it is watched
    assert guess.globs == ["pkg/**", "secret.txt", "evals/**"]


def test_a_suite_that_watches_nothing_leaves_the_workflow_without_a_paths_filter(tmp_path):
    (tmp_path / "evalkit.yml").write_text("suites: [a.suite.yml]\n", encoding="utf-8")
    (tmp_path / "a.suite.yml").write_text("target: m:f\ncases: [{id: c}]\n", encoding="utf-8")
    assert workflow_paths(tmp_path, ".github/workflows/evals.yml") is None


def test_the_workflow_uploads_what_the_comment_links_to(team):
    """The comment points at `report.html` in the run's artifacts: init's workflow uploads it, and the answers."""
    init(team, "support.reply:answer")
    workflow = yaml.safe_load((team / ".github/workflows/evals.yml").read_text(encoding="utf-8"))
    steps = workflow["jobs"]["evals"]["steps"]
    action = next(s for s in steps if s.get("uses", "").startswith("org/eval-action"))
    upload = next(s for s in steps if s.get("uses", "").startswith("actions/upload-artifact@"))
    assert action["id"] == "evals" and "always()" in upload["if"]
    paths = upload["with"]["path"].splitlines()
    assert paths == ["${{ steps.evals.outputs.jsonl_path }}", "${{ steps.evals.outputs.html_path }}"]
    action_yml = yaml.safe_load((Path(__file__).resolve().parents[2] / "action.yml").read_text(encoding="utf-8"))
    assert {"jsonl_path", "html_path"} <= set(action_yml["outputs"])


def test_a_push_to_the_default_branch_records_the_history_and_saves_the_base(team):
    """Flaky-on-main and reused base results need runs of the default branch: init's workflow runs on
    a push to it (same paths), may read artifacts, and uploads what the Action names."""
    git(team, "checkout", "-q", "-b", "trunk")  # the branch checked out in a repository without a remote
    init(team, "support.reply:answer")
    workflow = yaml.safe_load((team / ".github/workflows/evals.yml").read_text(encoding="utf-8"))
    push = workflow[True]["push"]
    assert push["branches"] == ["trunk"] and push["paths"] == workflow_filter(team)
    job = workflow["jobs"]["evals"]
    assert job["permissions"]["actions"] == "read"
    uploads = {s["with"]["name"]: s for s in job["steps"] if s.get("uses", "").startswith("actions/upload-artifact@")}
    history = uploads["${{ steps.evals.outputs.history_artifact }}"]
    assert history["with"]["path"] == "${{ steps.evals.outputs.history_artifact_path }}"
    assert "steps.evals.outputs.history_artifact != ''" in history["if"]
    base = uploads["${{ steps.evals.outputs.base_artifact }}"]
    assert base["with"]["path"] == "${{ steps.evals.outputs.base_artifact_path }}"
    action_yml = yaml.safe_load((Path(__file__).resolve().parents[2] / "action.yml").read_text(encoding="utf-8"))
    assert {"history_artifact", "history_artifact_path", "base_artifact", "base_artifact_path"} <= set(
        action_yml["outputs"]
    )


def test_the_default_branch_is_origins_head_where_git_knows_it(tmp_path):
    from evalkit.cli.scaffold import default_branch

    assert default_branch(tmp_path) == "main"  # not a repository
    git(tmp_path, "init", "-q", "-b", "work")
    assert default_branch(tmp_path) == "work"
    git(tmp_path, "commit", "-q", "--allow-empty", "-m", "first")
    git(tmp_path, "update-ref", "refs/remotes/origin/develop", "HEAD")
    git(tmp_path, "symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/develop")
    assert default_branch(tmp_path) == "develop"
