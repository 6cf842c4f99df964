"""A suite's `target:` as the runtime `Target` (its prompt file read, its template checked), and
each case's `tool_results:` held against the tools that target declares."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Protocol

from evalkit.suite.model import Target, Tool
from evalkit.suite.prompts import check_template
from evalkit.suite.reading import read_suite_text
from evalkit.suite.spec import CaseSpec
from evalkit.suite.target_spec import CallableTargetSpec, PromptTargetSpec, TargetSpec
from evalkit.suite.tool_results import entry_problem


class ProblemSink(Protocol):
    """Where a problem of the file is recorded (the loader's, which adds the file and line)."""

    def __call__(self, loc: tuple[Any, ...], message: str, case_id: str | None = None) -> None: ...


def load_target(t: TargetSpec | None, folder: Path, problem: ProblemSink) -> Target | None:
    """The runtime `Target` of a suite's `target:`, its prompt file read from the suite's `folder`."""
    if t is None:
        return None
    if isinstance(t, str):
        t = CallableTargetSpec(function=t)
    if isinstance(t, CallableTargetSpec):
        if not re.fullmatch(r"[\w.]+:[\w.]+", t.function):
            problem(("target",), f"target {t.function!r} is not of the form module:function")
        return Target(function=t.function)
    assert isinstance(t, PromptTargetSpec)
    template, name = t.prompt, None
    if t.prompt_file is not None:
        file = folder / t.prompt_file
        name = t.prompt_file
        if not file.resolve().is_relative_to(folder.resolve()):
            problem(("target", "prompt_file"), f"prompt file {t.prompt_file} is outside the suite's folder {folder}")
            return None
        try:
            template = read_suite_text(file, "prompt file")
        except (OSError, ValueError) as exc:  # missing or unreadable; or a FIFO, a device, not UTF-8
            why = f"cannot read prompt file {t.prompt_file}: {exc.strerror}" if isinstance(exc, OSError) else exc
            problem(("target", "prompt_file"), str(why))
            return None
    error = check_template(template or "")
    if error:
        problem(("target",), f"prompt template: {error}")
    return Target(
        template=template,
        template_name=name,
        system=t.system,
        model=t.model,
        max_tokens=t.max_tokens,
        temperature=t.temperature,
        prompt_cache=t.prompt_cache,
        thinking=_thinking(t.thinking),
        effort=t.effort,
        tools=tuple(
            Tool(name=tool.name, description=tool.description, input_schema=tool.input_schema, function=tool.function)
            for tool in t.tools
        ),
        max_steps=t.max_steps,
    )


def check_tool_results(target: TargetSpec | None, cspec: CaseSpec, cloc: tuple[Any, ...], problem: ProblemSink) -> None:
    """A case's `tool_results:` answer tools the suite's prompt target declares, in a shape evalkit reads."""
    if not cspec.tool_results:
        return
    declared = [t.name for t in target.tools] if isinstance(target, PromptTargetSpec) else []
    for name, value in cspec.tool_results.items():
        where = cloc + ("tool_results", name)
        if name not in declared:
            problem(
                where,
                f"tool_results: the target declares no tool {name!r}; its tools: "
                f"{', '.join(declared) or '(none: only a prompt target with `tools:` has them)'}",
                cspec.id,
            )
            continue
        wrong = entry_problem(value)
        if wrong:
            problem(where, f"tool_results of {name}: {wrong}", cspec.id)


def _thinking(setting: Any) -> dict[str, Any] | None:
    """A prompt target's `thinking:` as the API takes it."""
    if setting is None:
        return None
    if isinstance(setting, str):
        return {"type": setting}
    return {"type": "enabled", "budget_tokens": setting.budget_tokens}
