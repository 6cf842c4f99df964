"""The Action's merge mode: the results every shard job saved, joined into one report."""

from __future__ import annotations

import glob
from pathlib import Path

from evalkit.action.discovery import parse_list
from evalkit.engine import merge_and_save
from evalkit.errors import UsageError
from evalkit.results.report import Report


def merge_shards(patterns: str, workspace: Path, out_dir: Path) -> tuple[Report, list[Path]]:
    """Merge the results files the `merge` input names (paths or globs, relative to the
    repository root) into `out_dir/results.json`."""
    files: list[Path] = []
    for entry in parse_list(patterns):
        matched = sorted(glob.glob(str(workspace / entry), recursive=True))
        if not matched:
            raise UsageError(f"merge: {entry!r} matches no file (download the shards' results first)")
        files += [Path(m) for m in matched if Path(m) not in files]
    report = merge_and_save([str(f) for f in files], out_dir / "results.json")
    return report, files
