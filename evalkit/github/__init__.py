"""GitHub glue: the runner's event, changed files, the sticky comment and workflow commands."""

from __future__ import annotations

from typing import TYPE_CHECKING

from evalkit._runtime.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from evalkit.github.api import GitHubAPI, GitHubAPIError
    from evalkit.github.artifacts import artifact_files, branch_artifacts
    from evalkit.github.changes import ChangedFiles, changed_files, changed_since, git_toplevel, select_suites
    from evalkit.github.check_run import Annotation, CheckRunResult, Conclusion, Level, create_check_run
    from evalkit.github.commands import annotation, append_summary, set_output
    from evalkit.github.event import Event, load_event
    from evalkit.github.globs import glob_match
    from evalkit.github.sticky_comment import CommentResult, upsert_comment

# What the other rooms (and a team's code) use of this one; each name loads its module on first use.
__all__ = [
    "Annotation",
    "ChangedFiles",
    "CheckRunResult",
    "CommentResult",
    "Conclusion",
    "Event",
    "GitHubAPI",
    "GitHubAPIError",
    "Level",
    "annotation",
    "append_summary",
    "artifact_files",
    "branch_artifacts",
    "changed_files",
    "changed_since",
    "create_check_run",
    "git_toplevel",
    "glob_match",
    "load_event",
    "select_suites",
    "set_output",
    "upsert_comment",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "branch_artifacts": "evalkit.github.artifacts",
        "GitHubAPI": "evalkit.github.api",
        "GitHubAPIError": "evalkit.github.api",
        "artifact_files": "evalkit.github.artifacts",
        "ChangedFiles": "evalkit.github.changes",
        "changed_files": "evalkit.github.changes",
        "changed_since": "evalkit.github.changes",
        "git_toplevel": "evalkit.github.changes",
        "select_suites": "evalkit.github.changes",
        "Annotation": "evalkit.github.check_run",
        "CheckRunResult": "evalkit.github.check_run",
        "Conclusion": "evalkit.github.check_run",
        "Level": "evalkit.github.check_run",
        "create_check_run": "evalkit.github.check_run",
        "annotation": "evalkit.github.commands",
        "append_summary": "evalkit.github.commands",
        "set_output": "evalkit.github.commands",
        "Event": "evalkit.github.event",
        "load_event": "evalkit.github.event",
        "glob_match": "evalkit.github.globs",
        "CommentResult": "evalkit.github.sticky_comment",
        "upsert_comment": "evalkit.github.sticky_comment",
    },
)

del annotations, TYPE_CHECKING, lazy_exports
