"""`evalkit init` never writes through a symlink it did not create: a file it would write, or a folder
inside the project on the way to one, that is a symlink pointing outside is refused in one line naming it
(exit 2), and nothing is written, inside or outside."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from evalkit.cli import scaffold
from evalkit.cli.scaffold import init_project
from evalkit.errors import UsageError

EVALKIT = str(Path(sys.executable).with_name("evalkit"))


def _tree(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture
def places(tmp_path):
    project, outside = tmp_path / "project", tmp_path / "outside"
    project.mkdir()
    outside.mkdir()
    (outside / "precious.txt").write_text("keep me\n")
    return project, outside


@pytest.mark.parametrize(
    "link, points_to",
    [
        ("evals", "."),  # a folder init writes into
        (".github", "."),  # a folder on the way to the workflow
        ("evalkit.yml", "evalkit.yml"),  # a dangling link: the file init would create
        (".gitignore", "precious.txt"),  # a file init appends to
    ],
)
def test_a_symlink_on_the_way_is_refused_and_nothing_is_written(places, link, points_to):
    project, outside = places
    (project / link).symlink_to(outside / points_to)
    before = _tree(outside)
    with pytest.raises(UsageError) as info:
        init_project(project)
    message = str(info.value)
    assert message == (
        f"evalkit init does not write through symlinks: {project.resolve() / link} is a symlink (to "
        f"{outside / points_to}); remove it, or run init where it is not (nothing was written)"
    )
    assert "\n" not in message
    assert _tree(outside) == before
    assert [p.name for p in project.iterdir()] == [link]


def test_a_folder_made_a_symlink_after_the_check_is_not_followed(places, monkeypatch):
    """O_NOFOLLOW where init creates: a link put in place after the check is refused, never followed."""
    project, outside = places
    monkeypatch.setattr(scaffold, "_refuse_symlinks", lambda folder, path: None)
    (project / "evals").symlink_to(outside)
    with pytest.raises(
        UsageError, match=r"does not write through symlinks: .*evals/suite.yml or a folder on its way is a symlink"
    ):
        init_project(project)
    assert _tree(outside) == {"precious.txt": b"keep me\n"}
    (project / "evals").unlink()
    (project / "evalkit.yml").symlink_to(outside / "made.yml")  # dangling: O_EXCL | O_NOFOLLOW refuses it
    with pytest.raises(UsageError):
        init_project(project)
    assert not (outside / "made.yml").exists()


def test_without_symlinks_init_writes_as_before(places):
    project, _ = places
    made = init_project(project)
    assert {p.relative_to(project.resolve()).as_posix() for p in made.written} == {
        "evals/suite.yml",
        "evals/evals_target.py",
        "evalkit.yml",
        ".github/workflows/evals.yml",
        ".gitignore",
    }
    assert (project / ".gitignore").read_text() == "# evalkit's runs and caches\n.evalkit/\n"


def test_the_command_exits_2_with_one_line(places):
    project, outside = places
    (project / "evals").symlink_to(outside)
    made = subprocess.run(
        [EVALKIT, "init"], cwd=project, env=dict(os.environ), capture_output=True, text=True, timeout=120
    )
    assert made.returncode == 2, made.stderr
    lines = [ln for ln in made.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("evalkit: evalkit init does not write through symlinks: "), lines
    assert "Traceback" not in made.stderr and _tree(outside) == {"precious.txt": b"keep me\n"}
