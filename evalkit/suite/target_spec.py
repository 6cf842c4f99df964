"""The suite file's `target:` as written: a function's name, a callable, or a prompt sent to a
model (with its thinking, effort and tools); the loader turns it into the runtime `Target`."""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal, Union

from pydantic import Discriminator, Field, Tag, field_validator, model_validator

from evalkit.suite.spec_base import Strict

EffortLevel = Literal["low", "medium", "high", "xhigh", "max"]


class ThinkingBudget(Strict):
    """Extended thinking with a budget of tokens (`thinking: {budget_tokens: N}`), for a model that takes it."""

    budget_tokens: int = Field(
        description="Tokens the model may think with before it answers (at least 1024, "
        "the API's least); billed as output tokens."
    )

    @field_validator("budget_tokens")
    @classmethod
    def _at_least_the_api_minimum(cls, v: int) -> int:
        if v < 1024:
            raise ValueError(f"budget_tokens {v} is below 1024, the least the API takes")
        return v


class ToolSpec(Strict):
    """A tool the model may call in a prompt target's tool loop."""

    name: str = Field(pattern=r"^[a-zA-Z0-9_-]{1,64}$", description="The tool's name, as the model calls it.")
    description: str = Field(default="", description="What the tool does, for the model.")
    input_schema: dict[str, Any] = Field(
        default_factory=lambda: {"type": "object", "properties": {}},
        description="JSON Schema of the tool's arguments (an object).",
    )
    function: str | None = Field(
        default=None,
        description=(
            "module:function that answers the tool, called with the arguments as keywords, in a worker process like "
            "a callable target; without it, each case's `tool_results:` answers."
        ),
    )

    @field_validator("input_schema")
    @classmethod
    def _a_schema(cls, v: dict[str, Any]) -> dict[str, Any]:
        import jsonschema  # on use: only suites with tools need it

        try:
            jsonschema.Draft202012Validator.check_schema(v)
        except jsonschema.SchemaError as exc:
            raise ValueError(f"input_schema is not a JSON Schema: {exc.message}") from None
        if v.get("type") != "object":
            raise ValueError("a tool's input_schema describes an object (`type: object`)")
        return v

    @field_validator("function")
    @classmethod
    def _module_function(cls, v: str | None) -> str | None:
        if v is not None and not re.fullmatch(r"[\w.]+:[\w.]+", v):
            raise ValueError(f"function {v!r} is not of the form module:function")
        return v


class PromptTargetSpec(Strict):
    """A Jinja prompt sent to a model: inline `prompt` or a `prompt_file` beside the suite; with
    `tools:`, evalkit runs the tool loop (tool_use, tool_result, ...) to the final answer."""

    prompt: str | None = None
    prompt_file: str | None = None
    system: str | None = None
    model: str | None = None
    max_tokens: int | None = Field(default=None, gt=0)
    temperature: float | None = Field(
        default=None,
        ge=0,
        le=1,
        description="Sent only to a model that takes "
        "sampling parameters (current models do not): refused before the run otherwise.",
    )
    thinking: Literal["adaptive", "disabled", "between_tools"] | ThinkingBudget | None = Field(
        default=None,
        description="The target model's thinking: adaptive, disabled, between_tools, or "
        "{budget_tokens: N}; left out, the model's own default (generation-5 models think).",
    )
    effort: EffortLevel | None = Field(default=None, description="`output_config.effort` of the target's calls.")
    prompt_cache: bool = Field(
        default=False,
        description=(
            "Mark the `system` prompt, shared by every case, as a prompt-cache prefix: later calls read it "
            "at about a tenth of the input price (the API caches prefixes of about 1,024 tokens and more)."
        ),
    )
    tools: list[ToolSpec] = Field(
        default_factory=list,
        description="Tools the model may call; evalkit runs the loop and records every step as the run's trace.",
    )
    max_steps: int = Field(
        default=10,
        ge=1,
        le=100,
        description="Model turns a tool loop may take; a model still calling tools after them makes an error row.",
    )

    @model_validator(mode="after")
    def _one_template(self) -> "PromptTargetSpec":
        names = [t.name for t in self.tools]
        if len(set(names)) != len(names):
            raise ValueError(f"tool {sorted({n for n in names if names.count(n) > 1})[0]!r} is declared twice")
        if (self.prompt is None) == (self.prompt_file is None):
            raise ValueError("a prompt target needs exactly one of `prompt` or `prompt_file`")
        if self.prompt_cache and not self.system:
            raise ValueError("`prompt_cache: true` caches the `system` prompt: give the target one")
        return self


class CallableTargetSpec(Strict):
    function: str = Field(description="module:function, resolved relative to the suite's folder.")


def _target_kind(v: Any) -> str:
    if isinstance(v, str):
        return "~function"
    if isinstance(v, CallableTargetSpec) or (isinstance(v, dict) and "function" in v):
        return "~callable"
    return "~prompt"


TargetSpec = Annotated[
    Union[
        Annotated[str, Tag("~function")],
        Annotated[CallableTargetSpec, Tag("~callable")],
        Annotated[PromptTargetSpec, Tag("~prompt")],
    ],
    Discriminator(_target_kind),
]
