"""evalkit: evaluate LLM products with suites of cases, checks, a judge and gates.

The public names below are loaded on first use, so `import evalkit` (which every pytest
session does through the plugin) stays cheap; the `TYPE_CHECKING` block shows editors and
type checkers the real types.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from evalkit._runtime.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from evalkit.checks.base import Check, CheckContext, Outcome
    from evalkit.checks.registry import register_check
    from evalkit.engine.agent_client import get_client
    from evalkit.errors import EvalkitError, Problem, ProviderError, SuiteError
    from evalkit.llm.providers.interface import ModelRequest, ModelResponse
    from evalkit.pytest_plugin.helpers import llm_judge, load_fixtures, run_checks
    from evalkit.results.report import Report
    from evalkit.run.targets import TargetResult
    from evalkit.suite.loader import load_suite
    from evalkit.suite.model import Case, Suite
    from evalkit.trace.steps import Step

__all__ = [
    "Case",
    "Check",
    "CheckContext",
    "EvalkitError",
    "ModelRequest",
    "ModelResponse",
    "Outcome",
    "Problem",
    "ProviderError",
    "Report",
    "Step",
    "Suite",
    "SuiteError",
    "TargetResult",
    "get_client",
    "llm_judge",
    "load_fixtures",
    "load_suite",
    "register_check",
    "run_checks",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "Case": "evalkit.suite.model",
        "Check": "evalkit.checks.base",
        "CheckContext": "evalkit.checks.base",
        "EvalkitError": "evalkit.errors",
        "ModelRequest": "evalkit.llm.providers.interface",
        "ModelResponse": "evalkit.llm.providers.interface",
        "Outcome": "evalkit.checks.base",
        "Problem": "evalkit.errors",
        "ProviderError": "evalkit.errors",
        "Report": "evalkit.results.report",
        "Step": "evalkit.trace.steps",
        "Suite": "evalkit.suite.model",
        "SuiteError": "evalkit.errors",
        "TargetResult": "evalkit.run.targets",
        "get_client": "evalkit.engine.agent_client",
        "llm_judge": "evalkit.pytest_plugin.helpers",
        "load_fixtures": "evalkit.pytest_plugin.helpers",
        "load_suite": "evalkit.suite.loader",
        "register_check": "evalkit.checks.registry",
        "run_checks": "evalkit.pytest_plugin.helpers",
    },
)

# Only the public names stay bound on the package (a test compares vars() with __all__).
del annotations, TYPE_CHECKING, lazy_exports
