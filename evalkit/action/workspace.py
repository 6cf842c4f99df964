"""Paths inside the Action's container: the workspace, the results folder, and how later steps
on the runner see them; step outputs and the job summary."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Mapping
from pathlib import Path

from evalkit.errors import UsageError
from evalkit.github.commands import annotation, append_summary, set_output

RESULTS_FOLDER = ".evalkit/results"  # inside the workspace; `.evalkit/.gitignore` keeps it out of git


def results_dir(env: Mapping[str, str], workspace: Path) -> Path:
    """Where results go: `EVALKIT_RESULTS_DIR`, else `.evalkit/results` in the workspace.

    In the workspace, so the paths in the outputs are plain relative paths that later steps
    (which run outside the container) read as given, and that `actions/upload-artifact` accepts:
    no `.` or `..` segment. A `.gitignore` beside it keeps git status clean.
    """
    configured = env.get("EVALKIT_RESULTS_DIR")
    path = Path(configured) if configured else workspace / RESULTS_FOLDER
    try:
        path.mkdir(parents=True, exist_ok=True)
        if not configured:
            ignore = path.parent / ".gitignore"
            if not ignore.exists():
                ignore.write_text("# evalkit's results (the Action writes them here)\n*\n", encoding="utf-8")
        return path
    except OSError:
        return Path(tempfile.mkdtemp(prefix="evalkit-"))


class Outputs:
    """Step outputs and the job summary, with paths shown relative to the workspace when inside it."""

    def __init__(self, env: Mapping[str, str], workspace: Path):
        self.output_file = env.get("GITHUB_OUTPUT")
        self.summary_file = env.get("GITHUB_STEP_SUMMARY")
        self.workspace = workspace

    def show(self, path: Path) -> str:
        """`path` as a later step on the runner can use it (they run outside the container):
        relative to the workspace, never with a `.` or `..` segment; else absolute."""
        resolved = path.resolve()
        try:
            return resolved.relative_to(self.workspace).as_posix()
        except ValueError:
            return resolved.as_posix()

    def set(self, **values: str) -> None:
        for name, value in values.items():
            if self.output_file:
                set_output(name, value, self.output_file)
            else:
                print(f"evalkit: output {name}={value}")

    def summary(self, markdown: str) -> None:
        if not self.summary_file:
            return
        if append_summary(markdown, self.summary_file):
            annotation("warning", "evalkit: the job summary was cut at GitHub's 1 MiB limit", title="evalkit")


def give_to_workspace_owner(out_dir: Path, workspace: Path) -> None:
    """Results written into the workspace belong to its owner, not to the container's root."""
    try:
        inside = out_dir.resolve().relative_to(workspace)
    except ValueError:
        return
    if not inside.parts:
        return
    top = workspace / inside.parts[0]  # `.evalkit`, with its .gitignore
    owner = workspace.stat()
    for path in [top, *top.rglob("*")]:
        try:
            os.chown(path, owner.st_uid, owner.st_gid)
        except OSError:
            return


def template_path(name: str | None, workspace: Path) -> Path | None:
    if not name:
        return None
    path = (workspace / name).resolve()
    if not path.is_file():
        raise UsageError(f"template: {name!r} is not a file in the repository")
    return path
