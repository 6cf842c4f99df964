"""Paths inside the Action's container: the workspace, the results folder, and how later steps
on the runner see them; step outputs and the job summary."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Mapping
from pathlib import Path

from evalkit.errors import UsageError
from evalkit.github.commands import annotation, append_summary, set_output

CONTAINER_WORKSPACE = "/github/workspace"
CONTAINER_RUNNER_TEMP = "/github/runner_temp"


def results_dir(env: Mapping[str, str]) -> Path:
    """Where results go: `EVALKIT_RESULTS_DIR`, else `$RUNNER_TEMP/evalkit`, else a temp dir.

    Outside the workspace by default, so the container's root-owned files do not break later
    steps; `$RUNNER_TEMP` is the runner's temp dir (`${{ runner.temp }}` in later steps).
    """
    configured = env.get("EVALKIT_RESULTS_DIR") or (
        os.path.join(env["RUNNER_TEMP"], "evalkit") if env.get("RUNNER_TEMP") else None)
    if configured:
        path = Path(configured)
        try:
            path.mkdir(parents=True, exist_ok=True)
            return path
        except OSError:
            pass
    return Path(tempfile.mkdtemp(prefix="evalkit-"))


class Outputs:
    """Step outputs and the job summary, with paths shown relative to the workspace when inside it."""

    def __init__(self, env: Mapping[str, str], workspace: Path):
        self.output_file = env.get("GITHUB_OUTPUT")
        self.summary_file = env.get("GITHUB_STEP_SUMMARY")
        self.workspace = workspace
        self.runner_temp = Path(env.get("RUNNER_TEMP") or "/nonexistent").resolve()

    def show(self, path: Path) -> str:
        """`path` as a later step on the runner can use it (they run outside the container)."""
        resolved = path.resolve()
        try:
            return resolved.relative_to(self.workspace).as_posix()
        except ValueError:
            pass
        if self.workspace == Path(CONTAINER_WORKSPACE) and self.runner_temp == Path(CONTAINER_RUNNER_TEMP):
            # Inside the action's container the runner mounts its temp dir (`_work/_temp`) at
            # /github/runner_temp and the workspace (`_work/<repo>/<repo>`) at /github/workspace:
            # relative to the workspace, the same file is ../../_temp/... on the runner too.
            try:
                return "../../_temp/" + resolved.relative_to(self.runner_temp).as_posix()
            except ValueError:
                pass
        return str(path)

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
        out_dir.resolve().relative_to(workspace)
    except ValueError:
        return
    owner = workspace.stat()
    for path in [out_dir, *out_dir.rglob("*")]:
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
