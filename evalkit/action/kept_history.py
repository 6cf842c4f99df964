"""The history the Action keeps (input `history`): a push to the default branch downloads the newest
history the default branch's runs left as the artifact `evalkit-history`, records its own run in it
and leaves the file for the workflow to upload under that name (actions/upload-artifact: the REST API
has no upload); a pull request downloads the newest one and only reads it, to tell which cases are
flaky on the default branch. A pull request never writes it: no output names a file to upload there.

Only artifacts of the default branch's runs of this repository are read (a pull request's workflow
could upload one of the same name). Two default-branch runs at once each upload their copy and the
later upload is the newest; each run joins the newest `JOINED` copies by run key, so the run the other
copy holds comes back at the next run. Whatever cannot be had (no token, no `actions: read`, an
expired, damaged or foreign artifact) is one warning line, never a failed run."""

from __future__ import annotations

import sqlite3
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

from evalkit.compare.flaky import FlakyIndex
from evalkit.errors import UsageError
from evalkit.github import commands
from evalkit.github.api import GitHubAPI, GitHubAPIError
from evalkit.github.artifacts import artifact_files, branch_artifacts
from evalkit.github.event import Event
from evalkit.history.access import prune_file, read_flaky, read_report_past, record_file
from evalkit.history.database import open_history
from evalkit.history.merge import add_missing_runs
from evalkit.history.migrations import SCHEMA_VERSION
from evalkit.history.report_past import ReportPast
from evalkit.results.report import Report

ARTIFACT = "evalkit-history"
FOLDER = "history"
FILE = "history.sqlite"
JOINED = 3  # copies a default-branch run joins: runs lost to an overlapping upload come back


def warn(line: str) -> None:
    commands.annotation("warning", f"evalkit: {line}", title="evalkit: history")


def _download(api: GitHubAPI | None, event: Event, into: Path, last: int) -> tuple[list[Path], str | None]:
    """(the newest `last` copies of the default branch's history as files in `into`, newest first,
    the ones that unpack; why none could be looked up, or None). A copy that does not unpack is
    warned about and left out."""
    if api is None:
        return [], "no github_token to find the history"
    branch = event.default_branch
    if not branch:
        return [], "the event names no default branch"
    try:
        artifacts = branch_artifacts(api, event.owner, event.repo, ARTIFACT, branch=branch, last=last)
    except GitHubAPIError as exc:
        return [], f"the history artifact could not be looked up ({_short(exc)}; the job needs `actions: read`)"
    paths = []
    for n, artifact in enumerate(artifacts):
        try:
            files = artifact_files(api, event.owner, event.repo, artifact)
        except (GitHubAPIError, ValueError, zipfile.BadZipFile) as exc:
            warn(f"the history artifact {artifact.get('id')} could not be read ({_short(exc)}): left out")
            continue
        if FILE not in files:
            warn(
                f"the history artifact {artifact.get('id')} holds no {FILE} ({', '.join(sorted(files))[:100]}): "
                "left out"
            )
            continue
        path = into / f"copy-{n}.sqlite"
        path.write_bytes(files[FILE])
        paths.append(path)
    return paths, None


@dataclass(frozen=True)
class ReadHistory:
    """What a pull request reads of the default branch's history."""

    flaky: FlakyIndex | None = None  # the cases flaky there, for the comparison
    past: ReportPast | None = None  # its last runs of the report's suites, for the HTML report's charts


def read_default_branch_history(api: GitHubAPI | None, event: Event, report: Report) -> ReadHistory:
    """On a pull request: the cases flaky on the default branch and its last runs of `report`'s suites,
    from the newest history (read only); nothing, with a line saying why, when there is none to read."""
    branch = event.default_branch or "main"
    with tempfile.TemporaryDirectory(prefix="evalkit-history-") as tmp:
        paths, why = _download(api, event, Path(tmp), 1)
        if why:
            warn(f"{why}: no flaky cases known")
            return ReadHistory()
        if not paths:
            print(
                f"evalkit: no history yet (no {ARTIFACT} artifact of {event.default_branch}'s runs): "
                "no flaky cases known"
            )
            return ReadHistory()
        try:
            read = ReadHistory(read_flaky(paths[0], branch=branch), read_report_past(paths[0], report, branch=branch))
        except UsageError as exc:
            warn(f"the history artifact is not a usable history ({_short(exc)}): no flaky cases known")
            return ReadHistory()
    print(f"evalkit: history of {event.default_branch}: {len(read.flaky or {})} flaky case(s)")
    return read


def past_of_recorded(history: Path, report: Report, event: Event) -> ReportPast | None:
    """On a push to the default branch, once its run is recorded in `history`: the last runs of the
    report's suites, for the HTML report's charts; None (with a warning) when it cannot be read."""
    try:
        return read_report_past(history, report, branch=event.default_branch or "main")
    except UsageError as exc:
        warn(f"the history could not be read for the report's charts ({_short(exc)})")
        return None


def record_default_branch_run(
    api: GitHubAPI | None, event: Event, results: Path, out_dir: Path, commit: str | None, *, keep: int = 500
) -> Path | None:
    """On a push to the default branch: the newest history joined with the copies before it, this run
    recorded in it, written to `out_dir/history/history.sqlite`; the folder, or None (with a line why)
    when nothing is to be uploaded."""
    folder = out_dir / FOLDER
    target = folder / FILE
    with tempfile.TemporaryDirectory(prefix="evalkit-history-") as tmp:
        paths, why = _download(api, event, Path(tmp), JOINED)
        if why:  # uploading a new file now would replace the history that could not be read
            warn(f"{why}: this run is not recorded")
            return None
        folder.mkdir(parents=True, exist_ok=True)
        target.unlink(missing_ok=True)
        if any(_newer(p) for p in paths):
            warn(
                f"the history was written by a newer evalkit (schema above {SCHEMA_VERSION}): this run is "
                "not recorded; upgrade evalkit"
            )
            return None
        usable = []
        for n, path in enumerate(paths):
            problem = _problem(path)
            if problem:
                warn(f"copy {n + 1} of the history is not usable ({problem}): left out")
            else:
                usable.append(path)
        if paths and not usable:
            print("evalkit: a new history starts with this run")
        if usable:
            target.write_bytes(usable[0].read_bytes())
            joined = _join(target, usable[1:])
            if joined:
                print(f"evalkit: {joined} run(s) an overlapping upload had left out joined the history")
    try:
        done = record_file(results, target, branch=event.default_branch, commit=commit)
    except UsageError as exc:
        print(f"evalkit: this run is not recorded in the history: {exc}")
        return None
    print(
        f"evalkit: run recorded in the history of {event.default_branch} as #{done.number}: upload "
        f"{FOLDER}/{FILE} as artifact {ARTIFACT}"
    )
    try:
        gone = prune_file(target, keep=keep)
    except UsageError as exc:  # the run is recorded: a history that cannot be pruned now is still whole
        warn(f"the history could not be pruned to its newest {keep} runs ({_short(exc)})")
    else:
        if gone:
            print(f"evalkit: {gone} run(s) older than the newest {keep} removed from the history (history_keep)")
    return folder


def _join(target: Path, others: list[Path]) -> int:
    conn = open_history(target)
    try:
        return sum(add_missing_runs(conn, other) for other in others)
    except UsageError as exc:
        warn(f"an older copy of the history could not be joined ({_short(exc)})")
        return 0
    finally:
        conn.close()


def _problem(path: Path) -> str | None:
    """Why the file is not a usable history (damaged, not SQLite, another program's), or None."""
    try:
        open_history(path).close()
    except UsageError as exc:
        return _short(exc)
    return None


def _newer(path: Path) -> bool:
    """The file is an evalkit history of a schema this evalkit does not know."""
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            row = conn.execute("SELECT version FROM schema_version").fetchone()
        finally:
            conn.close()
    except sqlite3.Error:
        return False
    return bool(row) and int(row[0]) > SCHEMA_VERSION


def _short(exc: BaseException) -> str:
    return " ".join(str(exc).split())[:200]
