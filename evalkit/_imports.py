"""Resolve `module:attribute` names relative to a suite's folder."""

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


def import_module(name: str, base_dir: Path | None = None) -> Any:
    if base_dir is not None:
        folder = str(Path(base_dir).resolve())
        if folder not in sys.path:
            sys.path.insert(0, folder)
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name and (name == exc.name or name.startswith(exc.name + ".")):
            where = f" (searched {base_dir} and sys.path)" if base_dir else ""
            raise ValueError(f"cannot import module {name!r}{where}") from None
        raise ValueError(f"importing {name!r} failed: {exc}") from None
    except SyntaxError as exc:
        raise ValueError(f"importing {name!r} failed: syntax error in {exc.filename}:{exc.lineno}") from None
