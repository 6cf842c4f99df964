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
    """The suite files a path names: a file; or in a folder, `suite.yml`, else every `*.suite.yml`."""
    p = Path(path)
    if p.is_dir():
        for name in SUITE_FILENAMES:
            if (p / name).is_file():
                return [p / name]
        found = sorted(f for f in p.iterdir() if f.name.endswith(SUITE_SUFFIXES) and f.is_file())
        if found:
            return found
        raise SuiteError(str(p), [f"no {' or '.join(SUITE_FILENAMES)} or *.suite.yml in this folder"])
    if not p.exists():
        raise SuiteError(str(p), ["no such file or folder"])
    return [p]


def resolve_suite_path(path: str | Path) -> Path:
    """The one suite file a path names."""
    found = resolve_suite_paths(path)
    if len(found) > 1:
        raise SuiteError(str(path), [f"this folder holds {len(found)} suites; load them with load_suites()"])
    return found[0]
