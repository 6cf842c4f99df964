"""The suite file format: the runtime model, the loader and the JSON Schema.

Names are loaded on first use, so `evalkit.suite.files` (which the pytest plugin reads in every
session) does not pull in pydantic, PyYAML and the checks.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from evalkit._runtime.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from evalkit.errors import Problem, SuiteError
    from evalkit.suite.files import (
        SUITE_FILENAMES,
        SUITE_SUFFIXES,
        is_suite_file,
        resolve_suite_path,
        resolve_suite_paths,
    )
    from evalkit.suite.loader import checks_item, load_suite
    from evalkit.suite.model import Case, Item, Suite, Target

__all__ = [
    "Case",
    "Item",
    "Problem",
    "SUITE_FILENAMES",
    "SUITE_SUFFIXES",
    "Suite",
    "SuiteError",
    "Target",
    "checks_item",
    "is_suite_file",
    "load_suite",
    "resolve_suite_path",
    "resolve_suite_paths",
]

__getattr__, __dir__ = lazy_exports(__name__, {
    "Problem": "evalkit.errors", "SuiteError": "evalkit.errors",
    "checks_item": "evalkit.suite.loader", "load_suite": "evalkit.suite.loader",
    "SUITE_FILENAMES": "evalkit.suite.files", "SUITE_SUFFIXES": "evalkit.suite.files",
    "is_suite_file": "evalkit.suite.files", "resolve_suite_path": "evalkit.suite.files",
    "resolve_suite_paths": "evalkit.suite.files",
    "Case": "evalkit.suite.model", "Item": "evalkit.suite.model", "Suite": "evalkit.suite.model",
    "Target": "evalkit.suite.model",
})

# Only the public names stay bound on the package (a test compares vars() with __all__).
del annotations, TYPE_CHECKING, lazy_exports
