"""Deciding items: code checks and the judge, extraction of fields, output (and a run's trajectory)
fenced as data."""

from __future__ import annotations

from typing import TYPE_CHECKING

from evalkit._runtime.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from evalkit.scoring.extract import EXTRACT_TOOL, extract_fields, extract_request
    from evalkit.scoring.grading import grade_request, score_output
    from evalkit.scoring.items import (
        applicable_items,
        compare_cases,
        decide_item,
        decide_items,
        item_result,
        judged_item,
        truncated_item,
    )
    from evalkit.scoring.judge import asked_ids, judge, judge_request
    from evalkit.scoring.judge_input import JudgeInput, JudgeSettings
    from evalkit.scoring.structured import (
        DEFAULT_ROOM,
        THINKING_ROOM,
        NoRoute,
        Route,
        field_tokens,
        refuse_unroutable,
        route_for,
        verdict_tokens,
    )

# What the other rooms (and a team's code) use of this one; each name loads its module on first use.
__all__ = [
    "DEFAULT_ROOM",
    "EXTRACT_TOOL",
    "JudgeInput",
    "JudgeSettings",
    "NoRoute",
    "THINKING_ROOM",
    "Route",
    "applicable_items",
    "asked_ids",
    "compare_cases",
    "decide_item",
    "decide_items",
    "extract_fields",
    "extract_request",
    "field_tokens",
    "grade_request",
    "item_result",
    "judge",
    "judge_request",
    "judged_item",
    "refuse_unroutable",
    "route_for",
    "score_output",
    "truncated_item",
    "verdict_tokens",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "EXTRACT_TOOL": "evalkit.scoring.extract",
        "extract_fields": "evalkit.scoring.extract",
        "extract_request": "evalkit.scoring.extract",
        "grade_request": "evalkit.scoring.grading",
        "score_output": "evalkit.scoring.grading",
        "applicable_items": "evalkit.scoring.items",
        "compare_cases": "evalkit.scoring.items",
        "decide_item": "evalkit.scoring.items",
        "decide_items": "evalkit.scoring.items",
        "item_result": "evalkit.scoring.items",
        "judged_item": "evalkit.scoring.items",
        "truncated_item": "evalkit.scoring.items",
        "asked_ids": "evalkit.scoring.judge",
        "judge": "evalkit.scoring.judge",
        "judge_request": "evalkit.scoring.judge",
        "JudgeInput": "evalkit.scoring.judge_input",
        "JudgeSettings": "evalkit.scoring.judge_input",
        "DEFAULT_ROOM": "evalkit.scoring.structured",
        "THINKING_ROOM": "evalkit.scoring.structured",
        "NoRoute": "evalkit.scoring.structured",
        "Route": "evalkit.scoring.structured",
        "field_tokens": "evalkit.scoring.structured",
        "refuse_unroutable": "evalkit.scoring.structured",
        "route_for": "evalkit.scoring.structured",
        "verdict_tokens": "evalkit.scoring.structured",
    },
)

del annotations, TYPE_CHECKING, lazy_exports
