"""The JSON Schema of suite files, for editors and `evalkit schema`."""

from __future__ import annotations

from typing import Any

from evalkit.checks.registry import JUDGE_TYPE, JudgeArgs, check_types
from evalkit.suite.spec import SuiteSpec


def suite_json_schema() -> dict[str, Any]:
    """JSON Schema of a suite file, with each registered check type's own arguments."""
    schema = SuiteSpec.model_json_schema()
    variants = []
    kinds: dict[str, Any] = {**check_types(), JUDGE_TYPE: JudgeArgs}
    for name, cls in sorted(kinds.items()):
        sub = cls.model_json_schema()
        props = {"type": {"const": name}, **sub.get("properties", {})}
        variant = {
            "type": "object",
            "title": name,
            "description": (cls.__doc__ or "").strip(),
            "properties": props,
            "required": ["type", *sub.get("required", [])],
            "additionalProperties": False,
        }
        if "$defs" in sub:
            schema.setdefault("$defs", {}).update(sub["$defs"])
        variants.append(variant)
    schema["$defs"]["CheckSpec"] = {"oneOf": variants, "description": "A check: `type` and its arguments."}
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "evalkit suite"
    return {
        "anyOf": [
            schema,
            {"type": "array", "items": {"$ref": "#/$defs/CaseSpec"}, "description": "A fixture list: cases only."},
        ],
        "$defs": schema.pop("$defs"),
        **{k: v for k, v in schema.items() if k.startswith("$s")},
    }
