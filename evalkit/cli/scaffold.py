"""`evalkit init`: a first suite next to a team's code, ready to run.

It writes, in the project folder, never over an existing file:
- `evals/suite.yml`: one check, one judged rubric item, one case that runs three times;
- `evals/evals_target.py`: a target that calls the model through the client evalkit hands it (skipped
  when `--target module:function` names the team's own function, which the suite then runs);
- `evalkit.yml`: the suites evalkit and the Action run (`suites: [evals]`);
- `.github/workflows/evalkit.yml`: the Action on pull requests and by hand;
- `.evalkit/` added to `.gitignore` (runs and caches stay out of git).

It never writes through a symlink it did not create: a file it would write, or a folder inside the
project on the way to one, that is a symlink is refused (exit 2, naming it) before anything is
written, and files are created with O_EXCL | O_NOFOLLOW, each folder opened with O_NOFOLLOW, so a
symlink put in place meanwhile is refused too, never followed.
"""

from __future__ import annotations

import errno
import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

from evalkit.cli.init_watch import watch_for_target, workflow_paths
from evalkit.errors import UsageError

DEFAULT_MODEL = "claude-haiku-5-5"
_TARGET = re.compile(r"[A-Za-z_][\w.]*:[A-Za-z_][\w.]*")

TARGET_PY = '''"""The system under test for evals/suite.yml: replace the body with a call to your own code.

evalkit calls `answer(input, client)` once per case and repeat, in a worker process of its own.
`client.complete(prompt, system=..., model="low" | "high" | a model id, max_tokens=..., temperature=...)`
calls the model and returns the reply's text (counted, priced and cached like every call of a run).
Return a str, a dict, or `evalkit.TargetResult(output, facts={...})` with numbers your code computed.
"""


def answer(question: str, client) -> str:
    return client.complete(question, system="Answer in one short sentence.", max_tokens=200)
'''

SUITE_YML = """# A first suite. `evalkit run` runs the target on every case, applies the checks (code: free and
# steady) and asks the judge model to fill the rubric (one call per run, a reason per item).
name: {name}
target: {target}
model: {model}                  # the model `client.complete` uses by default
judge_model: {model}
# The Action runs this suite when a pull request changes a file these globs match (paths from the
# repository root): your code, the prompt files it reads, and this folder. Add any it cannot see.
watch:
{watch}checks:                         # every check must pass
  - {{type: length, min: 1, max: 2000}}
rubrics:
  answers:
    - {{id: on_topic, judge: "The answer addresses the question that was asked"}}
cases:
  - id: capital
    input: What is the capital of France?
    rubric: answers
    repeats: 3                  # the same input three times: a flaky answer shows
"""

CONFIG_YML = """# The suites `evalkit run` (with no paths) and the GitHub Action run.
suites:
  - evals
"""

WORKFLOW_YML = """# Runs the suites a pull request touches and posts one comment, updated in place. `paths:` is every
# suite's `watch` globs and evalkit's own files: a pull request that changes none of them starts no run.
# A push to {branch} (the default branch) runs them too: the run is recorded in the history that tells
# a pull request which cases are flaky on {branch}, and saved for pull requests based on that commit
# to reuse instead of running their base again.
name: evals
on:
  pull_request:{paths}
  push:
    branches: [{branch_yaml}]{paths}
  workflow_dispatch:
permissions: {{}}
jobs:
  evals:
    runs-on: ubuntu-latest
    permissions:
      contents: read
      pull-requests: write          # the one sticky comment
      actions: read                 # the history and the saved base results: artifacts of {branch}'s runs
      # checks: write               # with `check_run: true` below: the verdict as a check run too
    steps:
      - uses: actions/checkout@3d3c42e5aac5ba805825da76410c181273ba90b1  # v7.0.1
        with: {{persist-credentials: false}}
      - id: evals
        uses: org/eval-action@v1     # pin the commit SHA of the release you use
        with:
          anthropic_api_key: ${{{{ secrets.ANTHROPIC_API_KEY }}}}
{install}      # The comment links to this artifact: every case's answer (results.jsonl) and the HTML report.
      - if: always() && steps.evals.outputs.html_path != ''
        uses: actions/upload-artifact@bbbca2ddaa5d8feaa63e36b76fdaad77386f024f  # v7.0.0
        with:
          name: evalkit-results
          path: |
            ${{{{ steps.evals.outputs.jsonl_path }}}}
            ${{{{ steps.evals.outputs.html_path }}}}
          if-no-files-found: ignore
          retention-days: 14
      # On a push to {branch}: the history with this run recorded, and this commit's results.
      - if: always() && steps.evals.outputs.history_artifact != ''
        uses: actions/upload-artifact@bbbca2ddaa5d8feaa63e36b76fdaad77386f024f  # v7.0.0
        with:
          name: ${{{{ steps.evals.outputs.history_artifact }}}}
          path: ${{{{ steps.evals.outputs.history_artifact_path }}}}
          retention-days: 90
      - if: always() && steps.evals.outputs.base_artifact != ''
        uses: actions/upload-artifact@bbbca2ddaa5d8feaa63e36b76fdaad77386f024f  # v7.0.0
        with:
          name: ${{{{ steps.evals.outputs.base_artifact }}}}
          path: ${{{{ steps.evals.outputs.base_artifact_path }}}}
          retention-days: 30
"""


@dataclass(frozen=True)
class Scaffold:
    written: list[Path]
    kept: list[Path]  # existing files left as they were
    suite: Path
    note: str | None = None  # one line: the watch globs init could not work out


def init_project(folder: Path, target: str | None = None, name: str | None = None) -> Scaffold:
    """Write the files above into `folder`; a file that exists is kept (listed in `kept`)."""
    if target is not None and not _TARGET.fullmatch(target):
        raise UsageError(f"--target {target!r} is not of the form module:function")
    folder = folder.resolve()
    if not folder.is_dir():
        raise UsageError(f"{folder} is not a folder")
    suite_name = name or re.sub(r"[^A-Za-z0-9_.-]+", "-", folder.name).strip("-.") or "evals"
    guess = watch_for_target(folder, target)
    suite = SUITE_YML.format(
        name=suite_name,
        target=target or "evals_target:answer",
        model=DEFAULT_MODEL,
        watch="".join(f"  - {_quoted(glob)}\n" for glob in guess.globs),
    )
    files = {folder / "evals" / "suite.yml": suite, folder / "evalkit.yml": CONFIG_YML}
    if target is None:
        files[folder / "evals" / "evals_target.py"] = TARGET_PY
    workflow = folder / ".github" / "workflows" / "evals.yml"
    for path in [*files, workflow, folder / ".gitignore"]:
        _refuse_symlinks(folder, path)
    written, kept = _write(folder, files)
    # The workflow's paths come from the suites as written (and any evalkit.yml already there).
    paths = workflow_paths(folder, workflow.relative_to(folder).as_posix())
    branch = default_branch(folder)
    more, also_kept = _write(
        folder,
        {
            workflow: WORKFLOW_YML.format(
                branch=branch,
                branch_yaml=_quoted(branch),
                paths="\n    paths:" + "".join(f"\n      - {_quoted(glob)}" for glob in paths) if paths else "",
                install="          install: .                # your project, so the suite can import it\n"
                if (folder / "pyproject.toml").exists() or (folder / "setup.py").exists()
                else "",
            )
        },
    )
    written, kept = written + more, kept + also_kept
    if _ignore_runs(folder, folder / ".gitignore"):
        written.append(folder / ".gitignore")
    return Scaffold(written, kept, folder / "evals" / "suite.yml", guess.note)


def default_branch(folder: Path) -> str:
    """The branch pull requests merge into: origin's HEAD where git knows it, else the branch checked
    out (a new repository's first branch), else "main"."""
    for args in (
        ["symbolic-ref", "--quiet", "--short", "refs/remotes/origin/HEAD"],
        ["symbolic-ref", "--quiet", "--short", "HEAD"],
    ):
        try:
            done = subprocess.run(
                ["git", "-C", str(folder), *args], capture_output=True, text=True, timeout=30, check=False
            )
        except (OSError, subprocess.SubprocessError):
            return "main"  # no git here
        name = done.stdout.strip().removeprefix("origin/") if done.returncode == 0 else ""
        if name and name != "HEAD":
            return name
    return "main"


def _refuse_symlinks(folder: Path, path: Path) -> None:
    """UsageError naming the first of `path` and its folders inside `folder` that is a symlink."""
    for part in [*reversed(path.relative_to(folder).parents[:-1]), path.relative_to(folder)]:
        if (folder / part).is_symlink():
            raise UsageError(
                f"evalkit init does not write through symlinks: {folder / part} is a symlink (to "
                f"{os.readlink(folder / part)}); remove it, or run init where it is not (nothing was "
                "written)"
            )


_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)


def _open_folder(folder: Path, path: Path, *, create: bool) -> int:
    """A descriptor of `path`'s folder, reached from `folder` one name at a time, none of them
    followed if it is a symlink (created where `create`)."""
    fd = os.open(folder, os.O_RDONLY | _DIRECTORY)
    try:
        for name in path.relative_to(folder).parent.parts:
            if create:
                try:
                    os.mkdir(name, 0o777, dir_fd=fd)
                except FileExistsError:
                    pass
            inner = os.open(name, os.O_RDONLY | _DIRECTORY | _NOFOLLOW, dir_fd=fd)
            os.close(fd)
            fd = inner
    except BaseException:
        os.close(fd)
        raise
    return fd


def _open(folder: Path, path: Path, flags: int) -> int:
    """`path` opened with `flags` and O_NOFOLLOW, through folders none of which is followed if a symlink."""
    parent = _open_folder(folder, path, create=bool(flags & os.O_CREAT))
    try:
        return os.open(path.name, flags | _NOFOLLOW, 0o644, dir_fd=parent)
    finally:
        os.close(parent)


def _cannot(path: Path, exc: OSError) -> UsageError:
    if exc.errno in (errno.ELOOP, errno.ENOTDIR):
        return UsageError(
            f"evalkit init does not write through symlinks: {path} or a folder on its way is a "
            "symlink (or not a folder); remove it, or run init where it is not"
        )
    return UsageError(f"cannot write {path}: {exc.strerror or exc}")


def _write(folder: Path, files: dict[Path, str]) -> tuple[list[Path], list[Path]]:
    """Write each file that does not exist (created, never through a symlink); (written, kept)."""
    written, kept = [], []
    for path, text in files.items():
        if path.exists() and not path.is_symlink():
            kept.append(path)
            continue
        try:
            fd = _open(folder, path, os.O_WRONLY | os.O_CREAT | os.O_EXCL)
        except FileExistsError:  # made meanwhile: kept, as an existing file is; never followed if a link
            if path.is_symlink():
                raise _cannot(path, OSError(errno.ELOOP, "a symlink")) from None
            kept.append(path)
            continue
        except OSError as exc:
            raise _cannot(path, exc) from None
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(text)
        except OSError as exc:
            raise UsageError(f"cannot write {path}: {exc.strerror or exc}") from None
        written.append(path)
    return written, kept


def _quoted(glob: str) -> str:
    """A glob as a YAML double-quoted string (`*` and `!` would otherwise mean something)."""
    return '"' + glob.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _ignore_runs(folder: Path, gitignore: Path) -> bool:
    """Add `.evalkit/` to .gitignore unless a line already ignores it; True if the file changed."""
    try:
        fd = _open(folder, gitignore, os.O_RDWR | os.O_CREAT | os.O_APPEND)
    except OSError as exc:
        raise _cannot(gitignore, exc) from None
    with os.fdopen(fd, "r+b") as f:
        try:
            text = f.read().decode("utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise UsageError(f"cannot read {gitignore}: {exc}") from None
        if any(line.strip().strip("/") == ".evalkit" for line in text.splitlines()):
            return False
        try:
            f.write(
                (("" if not text or text.endswith("\n") else "\n") + "# evalkit's runs and caches\n.evalkit/\n").encode(
                    "utf-8"
                )
            )
        except OSError as exc:
            raise UsageError(f"cannot write {gitignore}: {exc.strerror or exc}") from None
    return True
