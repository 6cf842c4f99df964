"""Changed files of a PR (paginated API) or a push (git diff), and suite selection by globs."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from github_helpers import TOKEN, actions_env

from evalkit.github.api import GitHubAPI
from evalkit.github.changes import ChangedFiles, changed_files, select_suites
from evalkit.github.event import ZERO_SHA, Event, load_event
from evalkit.github.globs import glob_match


def pr_event(number: int = 12) -> Event:
    return Event(name="pull_request", owner="octo-org", repo="hello", pr_number=number)


def test_pr_files_over_three_pages(fake):
    fake.set_pr_files(12, [{"filename": f"src/f{i:03}.py", "status": "modified"} for i in range(250)])
    changed = changed_files(pr_event(), GitHubAPI(TOKEN, fake.url), ".")
    assert changed.paths == [f"src/f{i:03}.py" for i in range(250)]
    assert [r.query["page"] if "page" in r.query else "1" for r in fake.requests] == ["1", "2", "3"]
    assert all(r.query["per_page"] == "100" for r in fake.requests)


def test_a_rename_counts_as_both_paths(fake):
    fake.set_pr_files(
        12,
        [
            {
                "filename": "suites/new_home/prompt.j2",
                "status": "renamed",
                "previous_filename": "suites/pace_ai/prompt.j2",
            },
            {"filename": "README.md", "status": "modified"},
        ],
    )
    changed = changed_files(pr_event(), GitHubAPI(TOKEN, fake.url), ".")
    assert set(changed.paths) == {"suites/new_home/prompt.j2", "suites/pace_ai/prompt.j2", "README.md"}


def test_the_3000_file_limit_means_unknown(fake):
    fake.set_pr_files(12, [{"filename": f"f{i}.txt", "status": "added"} for i in range(3500)])
    changed = changed_files(pr_event(), GitHubAPI(TOKEN, fake.url), ".")
    assert changed.paths is None and "3,000" in changed.reason


def test_an_api_error_means_unknown(fake_github):

    fake = fake_github(fail_files=True)
    changed = changed_files(pr_event(), GitHubAPI(TOKEN, fake.url), ".")
    assert changed.paths is None and "every suite" in changed.reason
    assert TOKEN not in changed.reason


def test_no_token_means_unknown():
    assert changed_files(pr_event(), None, ".").paths is None


def test_workflow_dispatch_runs_everything(tmp_path):
    event = load_event(actions_env(tmp_path, "workflow_dispatch", "workflow_dispatch.json"))
    changed = changed_files(event, None, str(tmp_path))
    assert changed.paths is None and "every suite" in changed.reason


# -- push: a real git repository --


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True).stdout.strip()


def commit(repo: Path, files: dict[str, str | None], message: str) -> str:
    for name, content in files.items():
        path = repo / name
        if content is None:
            git(repo, "rm", "-q", name)
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content)
        git(repo, "add", name)
    git(repo, "commit", "-q", "-m", message)
    return git(repo, "rev-parse", "HEAD")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "user.email", "t@example.com")
    git(root, "config", "user.name", "T")
    git(root, "config", "commit.gpgsign", "false")
    return root


def push_event(before: str | None, after: str, default_branch: str | None = "main") -> Event:
    return Event(name="push", owner="o", repo="r", before=before, after=after, default_branch=default_branch)


def test_push_diff_between_before_and_after(repo):
    first = commit(repo, {"README.md": "a", "suites/pace_ai/suite.yml": "x", "old name.txt": "o"}, "one")
    second = commit(repo, {"suites/pace_ai/suite.yml": "y", "prompts/ünïcode.j2": "p"}, "two")
    git(repo, "mv", "old name.txt", "new name.txt")
    third = commit(repo, {}, "rename")
    changed = changed_files(push_event(first, third), None, str(repo))
    # Raw names (no quoting), and a rename as both paths.
    assert sorted(changed.paths) == sorted(
        ["suites/pace_ai/suite.yml", "prompts/ünïcode.j2", "old name.txt", "new name.txt"]
    )
    assert changed_files(push_event(second, third), None, str(repo)).paths == ["new name.txt", "old name.txt"]


def test_push_of_a_new_branch_diffs_against_the_merge_base(repo):
    commit(repo, {"README.md": "a"}, "base")
    git(repo, "update-ref", "refs/remotes/origin/main", "HEAD")
    git(repo, "checkout", "-q", "-b", "feature")
    head = commit(repo, {"suites/help_agents/code_generate.yml": "x"}, "feature")
    changed = changed_files(push_event(ZERO_SHA, head), None, str(repo))
    assert changed.paths == ["suites/help_agents/code_generate.yml"]
    assert "merge-base" in changed.reason


def test_push_with_an_unknown_before_and_no_default_branch_is_unknown(repo):
    head = commit(repo, {"README.md": "a"}, "one")
    changed = changed_files(push_event("f" * 40, head), None, str(repo))
    assert changed.paths is None and "every suite" in changed.reason
    assert changed_files(push_event("f" * 40, head, None), None, str(repo)).paths is None


def test_push_outside_a_git_repository_is_unknown(tmp_path):
    changed = changed_files(push_event("1" * 40, "2" * 40), None, str(tmp_path))
    assert changed.paths is None


# -- globs and selection --


@pytest.mark.parametrize(
    ("pattern", "path", "hit"),
    [
        ("suites/pace_ai/**", "suites/pace_ai/suite.yml", True),
        ("suites/pace_ai/**", "suites/pace_ai/profiles/a/b.yml", True),
        ("suites/pace_ai/**", "suites/pace_ai_v2/suite.yml", False),
        ("prompts/*.j2", "prompts/coach.j2", True),
        ("prompts/*.j2", "prompts/sub/coach.j2", False),
        ("**/*.j2", "coach.j2", True),
        ("**/*.j2", "a/b/coach.j2", True),
        ("a/**/b.py", "a/b.py", True),
        ("a/**/b.py", "a/x/y/b.py", True),
        ("*.md", "README.md", True),
        ("*.md", "docs/README.md", False),
        ("**.md", "docs/README.md", True),
        ("src/?.py", "src/a.py", True),
        ("src/?.py", "src/ab.py", False),
        ("src/[ab].py", "src/b.py", True),
        ("src/[!ab].py", "src/c.py", True),
        ("src/[!ab].py", "src/a.py", False),
        ("./suites/*.yml", "suites/x.yml", True),
        ("file.with+regex(chars).txt", "file.with+regex(chars).txt", True),
        ("file.txt", "fileXtxt", False),
    ],
)
def test_glob_semantics(pattern, path, hit):
    assert glob_match(pattern, path) is hit


WATCH = {
    "pace_ai": ["suites/pace_ai/**", "prompts/*.j2"],
    "help_agents": ["suites/help_agents/**"],
    "always": [],
}


def test_select_by_changed_paths():
    selected, reasons = select_suites(WATCH, ChangedFiles(["prompts/coach.j2", "README.md"], "pr"))
    assert selected == ["pace_ai", "always"]
    assert "prompts/coach.j2" in reasons["pace_ai"] and "prompts/*.j2" in reasons["pace_ai"]
    assert reasons["help_agents"].startswith("skipped")


def test_unknown_changes_select_every_suite():
    selected, reasons = select_suites(WATCH, ChangedFiles(None, "workflow_dispatch event"))
    assert selected == list(WATCH)
    assert all("workflow_dispatch" in r for r in reasons.values())


def test_an_invalid_glob_runs_the_suite_rather_than_skipping_it():
    for bad in ([""], ["!only/negated/**"]):
        selected, reasons = select_suites({"s": bad}, ChangedFiles(["x"], "pr"))
        assert selected == ["s"] and "invalid" in reasons["s"]


def test_a_later_negated_glob_takes_back_what_an_earlier_one_matched():
    watch = {"docs": ["docs/**", "!docs/drafts/**"]}
    assert select_suites(watch, ChangedFiles(["docs/drafts/x.md"], "pr"))[0] == []
    selected, reasons = select_suites(watch, ChangedFiles(["docs/drafts/x.md", "docs/a.md"], "pr"))
    assert selected == ["docs"] and reasons["docs"] == "docs/a.md matches docs/**"
    again = {"docs": ["docs/**", "!docs/drafts/**", "docs/drafts/keep.md"]}
    assert select_suites(again, ChangedFiles(["docs/drafts/keep.md"], "pr"))[0] == ["docs"]


def test_no_changed_files_selects_only_suites_without_globs():
    assert select_suites(WATCH, ChangedFiles([], "pr"))[0] == ["always"]


def test_end_to_end_pr_event_to_selected_suites_and_one_comment(tmp_path, fake):
    from evalkit.github.sticky_comment import upsert_comment
    from evalkit.render.comment import MARKER, finish

    event = load_event(actions_env(tmp_path, "pull_request", "pull_request_opened.json"))
    fake.set_pr_files(event.pr_number, [{"filename": "suites/pace_ai/prompts/coach.j2", "status": "modified"}])
    api = GitHubAPI(TOKEN, fake.url)
    selected, _ = select_suites(WATCH, changed_files(event, api, str(tmp_path)))
    assert selected == ["pace_ai", "always"]
    for _ in range(2):
        result = upsert_comment(
            api, event.owner, event.repo, event.pr_number, finish(f"Ran {', '.join(selected)}"), marker=MARKER
        )
    assert result.action == "updated" and len(fake.comments(event.pr_number)) == 1
    assert {r.path for r in fake.requests} >= {
        "/repos/octo-org/hello/pulls/12/files",
        "/repos/octo-org/hello/issues/12/comments",
    }
