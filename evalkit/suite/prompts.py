"""Prompt templates: Jinja in a sandbox, compiled once per text, rendered with a case's input."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from evalkit.errors import TargetError


@lru_cache(maxsize=1)
def _environment() -> Any:
    from jinja2 import StrictUndefined  # jinja2 loads only when a template is used

    from evalkit.suite.bounded_jinja import BoundedSandbox  # likewise (it subclasses jinja2's sandbox)

    return BoundedSandbox(undefined=StrictUndefined, keep_trailing_newline=True)


# Every case of a suite renders the same few texts: compiling is the costly part, so each is
# compiled once (a suite's template first when the suite is checked at load).
@lru_cache(maxsize=256)
def _compiled(template: str) -> Any:
    return _environment().from_string(template)


def check_template(text: str) -> str | None:
    """A syntax error in a prompt template, or None."""
    from jinja2 import TemplateSyntaxError  # jinja2 loads only when a template is used

    try:
        _compiled(text)
    except TemplateSyntaxError as exc:
        return f"line {exc.lineno}: {exc.message}"
    return None


def render_prompt(template: str, case_input: Any) -> str:
    """Render with the input's keys as variables (and the whole input as `input`)."""
    variables = dict(case_input) if isinstance(case_input, dict) else {}
    variables["input"] = case_input
    return render_template(template, variables)


def render_template(template: str, variables: dict[str, Any], what: str = "prompt template") -> str:
    """Render with exactly these variables; an undefined name or a refused operation is a TargetError."""
    from jinja2 import TemplateError  # jinja2 loads only when a template is used

    from evalkit.suite.bounded_jinja import TooBig, render_bounded

    try:
        return render_bounded(_compiled(template), variables)
    except TooBig as exc:
        raise TargetError(f"{what}: {exc}") from None
    except TemplateError as exc:  # an undefined name, a refused attribute: named, never an empty reason
        raise TargetError(f"{what}: {exc.message or type(exc).__name__}") from None
