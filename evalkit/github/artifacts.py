"""Workflow artifacts through GitHub's REST API (`actions: read`): find the newest unexpired
artifact of a name, and read the files of its zip archive. Uploading is the workflow's own step
(actions/upload-artifact): the REST API has no upload endpoint."""

from __future__ import annotations

import io
import zipfile
from typing import Any

from evalkit.github.api import GitHubAPI

MAX_ARTIFACT_BYTES = 64 * 1024 * 1024


def branch_artifacts(
    api: GitHubAPI, owner: str, repo: str, name: str, *, branch: str, last: int = 1
) -> list[dict[str, Any]]:
    """The newest `last` unexpired artifacts called `name` that runs of `branch` of this repository
    itself uploaded, newest first: an artifact of the same name from a pull request's run (its branch,
    or a fork whose branch has the same name) is not one of them."""
    data = api.get(f"/repos/{owner}/{repo}/actions/artifacts", {"name": name, "per_page": 100})
    found = []
    for artifact in (data or {}).get("artifacts") or []:
        run = artifact.get("workflow_run") or {}
        own = run.get("head_repository_id") is not None and run.get("head_repository_id") == run.get("repository_id")
        if artifact.get("name") == name and not artifact.get("expired") and run.get("head_branch") == branch and own:
            found.append(artifact)
    found.sort(key=lambda a: (str(a.get("created_at") or ""), int(a.get("id") or 0)), reverse=True)
    return found[:last]


def artifact_files(api: GitHubAPI, owner: str, repo: str, artifact: dict[str, Any]) -> dict[str, bytes]:
    """The files of `artifact`'s zip archive (GET …/actions/artifacts/{id}/zip), by name."""
    raw = api.download(
        f"/repos/{owner}/{repo}/actions/artifacts/{int(artifact['id'])}/zip", max_bytes=MAX_ARTIFACT_BYTES
    )
    with zipfile.ZipFile(io.BytesIO(raw)) as archive:
        total = sum(info.file_size for info in archive.infolist())
        if total > MAX_ARTIFACT_BYTES:
            raise ValueError(f"artifact {artifact.get('name')} unpacks to {total} bytes")
        return {info.filename: archive.read(info) for info in archive.infolist() if not info.is_dir()}
