"""evalkit: evaluate LLM products with suites of cases, checks, a judge and gates.

The public names below are loaded on first use, so `import evalkit` (which every pytest
session does through the plugin) stays cheap.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

_EXPORTS = {
    "Case": "evalkit.suite",
    "Check": "evalkit.checks.base",
    "CheckContext": "evalkit.checks.base",
    "EvalkitError": "evalkit.errors",
    "ModelRequest": "evalkit.providers.base",
    "ModelResponse": "evalkit.providers.base",
    "Outcome": "evalkit.checks.base",
    "ProviderError": "evalkit.errors",
    "Report": "evalkit.report",
    "Suite": "evalkit.suite",
    "SuiteError": "evalkit.errors",
    "TargetResult": "evalkit.targets",
    "get_client": "evalkit.runtime",
    "llm_judge": "evalkit.helpers",
    "load_fixtures": "evalkit.helpers",
    "load_suite": "evalkit.suite",
    "register_check": "evalkit.checks.base",
    "run_checks": "evalkit.helpers",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'evalkit' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__
