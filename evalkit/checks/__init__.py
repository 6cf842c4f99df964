"""Checks: small classes whose fields are their YAML arguments, looked up by `type`."""

from evalkit.checks.base import Check, CheckContext, Outcome, normalize, output_text
from evalkit.checks.fields import FieldCheck
from evalkit.checks.registry import (
    JUDGE_TYPE,
    CheckRegistry,
    JudgeArgs,
    JudgeCriterion,
    check_types,
    register_check,
)

__all__ = [
    "Check",
    "CheckContext",
    "CheckRegistry",
    "FieldCheck",
    "JUDGE_TYPE",
    "JudgeArgs",
    "JudgeCriterion",
    "Outcome",
    "check_types",
    "normalize",
    "output_text",
    "register_check",
]
