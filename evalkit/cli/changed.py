"""`evalkit list --changed-since REF`: the suites the Action would consider, and whether each would
run for the diff between REF and the working tree, and why. The Action's own discovery and
selection decide (evalkit.action.discovery, evalkit.github.changes); this only prints them."""

from __future__ import annotations

from pathlib import Path

from evalkit.errors import UsageError


def changed_since_lines(project_root: Path, ref: str) -> list[str]:
    """A headline, then one line per suite: `run` or `skip`, its file and name, and the reason."""
    from evalkit.action.discovery import load_repo_suites
    from evalkit.github.changes import changed_since, git_toplevel, select_suites

    top = git_toplevel(str(project_root))
    if top is None:
        raise UsageError(f"--changed-since: {project_root} is not in a git repository")
    root = Path(top).resolve()
    # As the Action's `working_directory`: suites and evalkit.yml from the project, files named from the root.
    project = project_root.resolve() if project_root.resolve() != root else None
    repo = load_repo_suites(root, project)
    if not repo.refs:
        raise UsageError(
            f"--changed-since: no suites found in {project or root}: add an evalkit.yml listing them, "
            "or name files suite.yml / *.suite.yml"
        )
    changed = changed_since(str(root), ref)
    watch = repo.watch_map()
    selected, reasons = select_suites(watch, changed)
    lines = [f"{changed.reason}; {len(selected)} of {len(repo.refs)} suite(s) from {repo.source} would run"]
    for ref_, suite in zip(repo.refs, repo.suites):
        verdict = "run " if ref_.rel in selected else "skip"
        reason = reasons[ref_.rel].removeprefix("skipped: ")
        if ref_.rel not in selected:
            reason += f" ({', '.join(watch[ref_.rel])})"
        lines.append(f"{verdict}  {ref_.rel}  ({suite.name}): {reason}")
    return lines
