"""Re-exports loaded on first use, so importing a package does not import what it re-exports.

A package's `__init__` lists its public names with the module each lives in, imports them under
`TYPE_CHECKING` (for editors and mypy), and installs the `__getattr__` and `__dir__` made here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from importlib import import_module
from typing import Any


def lazy_exports(package: str, homes: Mapping[str, str]) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """(`__getattr__`, `__dir__`) for `package`, whose public names live in `homes` (name: module)."""
    namespace = import_module(package).__dict__

    def __getattr__(name: str) -> Any:
        home = homes.get(name)
        if home is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(import_module(home), name)
        namespace[name] = value  # later look-ups skip this function
        return value

    def __dir__() -> list[str]:
        return sorted(homes)

    return __getattr__, __dir__
