"""Resolve `module:attribute` names relative to a suite's folder and its repository's root."""

from __future__ import annotations

import importlib
import pkgutil
import sys
from pathlib import Path
from typing import Any


def import_object(spec: str, base_dir: Path | None = None) -> Any:
    """Import `module:attr` (dots allowed in attr), with `base_dir` searched first.

    Raises ValueError with a one-line message a user can act on.
    """
    module_name, sep, attr = spec.partition(":")
    if not sep or not module_name or not attr:
        raise ValueError(f"{spec!r} is not of the form module:function")
    import_module(module_name, base_dir)  # first, for a message that says what went wrong
    try:
        return pkgutil.resolve_name(spec)
    except AttributeError:
        raise ValueError(f"module {module_name!r} has no attribute {attr!r}") from None


# What marks a repository's root: where a team's own packages usually sit.
ROOT_MARKERS = (".git", "evalkit.yml", "evalkit.yaml", "pyproject.toml", "setup.py", "setup.cfg")


def repository_root(folder: Path) -> Path | None:
    """The nearest folder from `folder` up that holds one of ROOT_MARKERS, or None."""
    for candidate in (folder, *folder.parents):
        if any((candidate / marker).exists() for marker in ROOT_MARKERS):
            return candidate
    return None


def import_module(name: str, base_dir: Path | None = None) -> Any:
    """Import `name`, the suite's folder (`base_dir`) searched first; its repository's root last, so
    that a team's package at the root imports without PYTHONPATH, yet a file there (`statistics.py`)
    cannot shadow the standard library or an installed package."""
    if base_dir is not None:
        folder = str(Path(base_dir).resolve())
        # First, even when it is already on sys.path further down (once or more): another suite's
        # folder before it would answer a module name both hold (each suite folder has its `demo`).
        while folder in sys.path:
            sys.path.remove(folder)
        sys.path.insert(0, folder)
        root = repository_root(Path(folder))
        if root is not None and str(root) not in sys.path:
            sys.path.append(str(root))
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name and (name == exc.name or name.startswith(exc.name + ".")):
            where = f" (searched {base_dir}, its repository's root and sys.path)" if base_dir else ""
            raise ValueError(f"cannot import module {name!r}{where}") from None
        raise ValueError(f"importing {name!r} failed: {exc}") from None
    except SyntaxError as exc:
        raise ValueError(f"importing {name!r} failed: syntax error in {exc.filename}:{exc.lineno}") from None
