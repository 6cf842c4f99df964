"""The suite file format: the runtime model, the loader and the JSON Schema.

Names are loaded on first use, so `evalkit.suite.files` (which the pytest plugin reads in every
session) does not pull in pydantic, PyYAML and the checks.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from evalkit._runtime.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from evalkit.errors import Problem, SuiteError
    from evalkit.suite.calibration import (
        Calibration,
        FieldCalibration,
        ItemCalibration,
        JudgeFigures,
        calibration_note,
        fingerprints,
        save_calibration,
    )
    from evalkit.suite.conditions import condition_holds
    from evalkit.suite.files import (
        SUITE_FILENAMES,
        SUITE_SUFFIXES,
        is_suite_file,
        resolve_suite_path,
        resolve_suite_paths,
    )
    from evalkit.suite.loader import checks_item, load_suite, refuse_duplicate_names
    from evalkit.suite.model import (
        TAG_PREFIX,
        Case,
        GoldOutput,
        Inconclusive,
        Item,
        JudgeThinking,
        Suite,
        Target,
        Tool,
        Turn,
        describe_selection,
        selectors,
        tag_selector,
    )
    from evalkit.suite.prompts import render_prompt, render_template
    from evalkit.suite.schema import suite_json_schema
    from evalkit.suite.spec import CompareSpec, FieldRef, FieldSpec, Thresholds, plain_tags
    from evalkit.suite.tool_results import scripted_answer
    from evalkit.suite.yaml_reader import read_yaml

# What the other rooms (and a team's code) use of this one; each name loads its module on first use.
__all__ = [
    "Calibration",
    "Case",
    "CompareSpec",
    "FieldCalibration",
    "FieldRef",
    "FieldSpec",
    "GoldOutput",
    "Inconclusive",
    "Item",
    "ItemCalibration",
    "JudgeFigures",
    "JudgeThinking",
    "Problem",
    "SUITE_FILENAMES",
    "SUITE_SUFFIXES",
    "Suite",
    "SuiteError",
    "TAG_PREFIX",
    "Target",
    "Thresholds",
    "Tool",
    "Turn",
    "calibration_note",
    "checks_item",
    "condition_holds",
    "describe_selection",
    "fingerprints",
    "is_suite_file",
    "load_suite",
    "plain_tags",
    "read_yaml",
    "refuse_duplicate_names",
    "render_prompt",
    "render_template",
    "resolve_suite_path",
    "resolve_suite_paths",
    "save_calibration",
    "scripted_answer",
    "selectors",
    "suite_json_schema",
    "tag_selector",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "Problem": "evalkit.errors",
        "SuiteError": "evalkit.errors",
        "Calibration": "evalkit.suite.calibration",
        "FieldCalibration": "evalkit.suite.calibration",
        "ItemCalibration": "evalkit.suite.calibration",
        "JudgeFigures": "evalkit.suite.calibration",
        "calibration_note": "evalkit.suite.calibration",
        "fingerprints": "evalkit.suite.calibration",
        "save_calibration": "evalkit.suite.calibration",
        "condition_holds": "evalkit.suite.conditions",
        "SUITE_FILENAMES": "evalkit.suite.files",
        "SUITE_SUFFIXES": "evalkit.suite.files",
        "is_suite_file": "evalkit.suite.files",
        "resolve_suite_path": "evalkit.suite.files",
        "resolve_suite_paths": "evalkit.suite.files",
        "checks_item": "evalkit.suite.loader",
        "load_suite": "evalkit.suite.loader",
        "refuse_duplicate_names": "evalkit.suite.loader",
        "Case": "evalkit.suite.model",
        "GoldOutput": "evalkit.suite.model",
        "Inconclusive": "evalkit.suite.model",
        "Item": "evalkit.suite.model",
        "JudgeThinking": "evalkit.suite.model",
        "Suite": "evalkit.suite.model",
        "TAG_PREFIX": "evalkit.suite.model",
        "Target": "evalkit.suite.model",
        "Tool": "evalkit.suite.model",
        "Turn": "evalkit.suite.model",
        "describe_selection": "evalkit.suite.model",
        "selectors": "evalkit.suite.model",
        "tag_selector": "evalkit.suite.model",
        "render_prompt": "evalkit.suite.prompts",
        "render_template": "evalkit.suite.prompts",
        "suite_json_schema": "evalkit.suite.schema",
        "CompareSpec": "evalkit.suite.spec",
        "FieldRef": "evalkit.suite.spec",
        "FieldSpec": "evalkit.suite.spec",
        "Thresholds": "evalkit.suite.spec",
        "plain_tags": "evalkit.suite.spec",
        "scripted_answer": "evalkit.suite.tool_results",
        "read_yaml": "evalkit.suite.yaml_reader",
    },
)

# Only the public names stay bound on the package (a test compares vars() with __all__).
del annotations, TYPE_CHECKING, lazy_exports
