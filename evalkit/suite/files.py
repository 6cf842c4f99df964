"""Which files are suite files, and the suite files a path names."""

from __future__ import annotations

from pathlib import Path

from evalkit.errors import SuiteError

SUITE_FILENAMES = ("suite.yml", "suite.yaml")
SUITE_SUFFIXES = (".suite.yml", ".suite.yaml")


def is_suite_file(path: Path) -> bool:
    """`suite.yml`, `suite.yaml`, `*.suite.yml` or `*.suite.yaml`."""
    return path.name in SUITE_FILENAMES or path.name.endswith(SUITE_SUFFIXES)


def default_suite_name(path: Path) -> str:
    """A suite's name when it sets none: its folder's for `suite.yml`, else the file's stem."""
    return path.parent.name if path.name in SUITE_FILENAMES else path.stem


def resolve_suite_paths(path: str | Path) -> list[Path]:
    """The suite files a path names: a file; or in a folder, every suite file in it (`suite.yml`
    first, then each `*.suite.yml`). Every front door (the CLI, the engine, the Action's discovery)
    asks this one function, so none of them can see fewer suites than the others."""
    p = Path(path)
    if p.is_dir():
        found = suite_files_in(p)
        if found:
            return found
        raise SuiteError(str(p), [f"no {' or '.join(SUITE_FILENAMES)} or *.suite.yml in this folder"])
    if not p.exists():
        raise SuiteError(str(p), ["no such file or folder"])
    return [p]


def suite_files_in(folder: Path) -> list[Path]:
    """The suite files directly in `folder`: `suite.yml` / `suite.yaml` first, then the others by name."""
    files = [f for f in folder.iterdir() if is_suite_file(f) and f.is_file()]
    return sorted(files, key=lambda f: (f.name not in SUITE_FILENAMES, f.name))


def resolve_suite_path(path: str | Path) -> Path:
    """The one suite file a path names."""
    found = resolve_suite_paths(path)
    if len(found) > 1:
        raise SuiteError(str(path), [f"this folder holds {len(found)} suites; load them with load_suites()"])
    return found[0]
