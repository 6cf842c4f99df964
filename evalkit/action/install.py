"""The `install` input: the team's own dependencies, installed before any suite loads into a
virtual environment that also sees evalkit (and its dependencies), for the worker to run in.

The install runs the team's code (a build backend, setup.py), so it gets the worker's
environment (no secret) and, as the worker, no CAP_SYS_PTRACE. Its output is grouped in the
log; a failure is a setup error.
"""

from __future__ import annotations

import os
import subprocess
import sysconfig
import tempfile
import venv
from collections.abc import Mapping, Sequence
from pathlib import Path

from evalkit.action.sandbox import unprivileged, worker_environment
from evalkit.errors import UsageError
from evalkit.github import commands
from evalkit.render.sanitize import cap_text

MAX_LOGGED_INSTALL_OUTPUT = 50_000


class InstallError(UsageError):
    """The `install` input could not be installed (shown in the comment as a setup error)."""


def pip_arguments(install: str, workspace: Path) -> list[str]:
    """`pip install` arguments for the input: `-r FILE` for a requirements file, else a project
    folder (`.` is the repository). Refuses paths outside the workspace."""
    target = (workspace / install).resolve()
    if not (target == workspace or workspace in target.parents):
        raise InstallError(f"install: {install!r} is outside the repository")
    if target.is_file():
        return ["-r", str(target)]
    if target.is_dir():
        return [str(target)]
    raise InstallError(f"install: {install!r} is neither a requirements file nor a project folder in the repository")


def prepare_python(install: str | None, workspace: Path, env: Mapping[str, str], secrets: Sequence[str]) -> str | None:
    """The Python the worker runs: None (this one) without `install`, else a new virtual
    environment's, with the input installed and this interpreter's packages visible."""
    if not install:
        return None
    args = pip_arguments(install, workspace)
    home = Path(tempfile.mkdtemp(prefix="evalkit-venv-"))
    venv.EnvBuilder(with_pip=True, clear=True).create(home)
    python = home / "bin" / "python"
    _see_our_packages(python)
    command = [str(python), "-m", "pip", "install", "--disable-pip-version-check", "--no-input", *args]
    with commands.group(f"evalkit: install {install}"):
        print("+ pip install " + " ".join(args), flush=True)
        proc = subprocess.run(
            unprivileged(command),
            env=worker_environment(env, secrets),
            cwd=workspace,
            capture_output=True,
            text=True,
            errors="replace",
            check=False,
        )
        commands.print_untrusted(
            cap_text((proc.stdout + proc.stderr).strip(), MAX_LOGGED_INSTALL_OUTPUT, "the install's output")
        )
    if proc.returncode != 0:
        tail = [line for line in (proc.stdout + proc.stderr).splitlines() if line.strip()][-3:]
        raise InstallError(
            f"install: `pip install {' '.join(_shown(args, workspace))}` failed "
            f"(exit {proc.returncode}): " + " / ".join(tail)[-800:]
        )
    return str(python)


def _see_our_packages(python: Path) -> None:
    """A .pth in the new environment that adds this interpreter's site-packages (evalkit and its
    dependencies) after its own, so the team's pins win and evalkit is still importable."""
    code = "import sysconfig; print(sysconfig.get_paths()['purelib'])"
    purelib = subprocess.run([str(python), "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    ours = dict.fromkeys([sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]])
    # addsitedir also reads the .pth files there (an editable evalkit, namespace packages).
    line = "import site; " + "; ".join(f"site.addsitedir({path!r})" for path in ours)
    Path(purelib, "_evalkit_action.pth").write_text(line + "\n", encoding="utf-8")


def _shown(args: list[str], workspace: Path) -> list[str]:
    return [os.path.relpath(a, workspace) if os.path.isabs(a) else a for a in args]
