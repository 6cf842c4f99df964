"""Prompt templates: Jinja in a sandbox, compiled once, rendered with a case's input."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from evalkit.errors import TargetError


@lru_cache(maxsize=64)
def _environment() -> Any:
    from jinja2 import StrictUndefined  # jinja2 loads only when a template is used

    from evalkit.suite.bounded_jinja import BoundedSandbox  # likewise (it subclasses jinja2's sandbox)

    return BoundedSandbox(undefined=StrictUndefined, keep_trailing_newline=True)


@lru_cache(maxsize=256)
def _compiled(template: str) -> Any:
    return _environment().from_string(template)


def check_template(text: str) -> str | None:
    """A syntax error in a prompt template, or None."""
    from jinja2 import TemplateSyntaxError  # jinja2 loads only when a template is used

    try:
        _environment().from_string(text)
    except TemplateSyntaxError as exc:
        return f"line {exc.lineno}: {exc.message}"
    return None


def render_prompt(template: str, case_input: Any) -> str:
    """Render with the input's keys as variables (and the whole input as `input`)."""
    variables = dict(case_input) if isinstance(case_input, dict) else {}
    variables["input"] = case_input
    parts = _text_and_names(template)
    if parts is not None and all(name in variables for name in parts[1::2]):
        # What Jinja outputs for `{{ name }}` is str(value); between them, the text as it parsed it.
        return "".join([str(variables[piece]) if i % 2 else piece for i, piece in enumerate(parts)])
    from jinja2 import TemplateError  # jinja2 loads only when a template is used

    from evalkit.suite.bounded_jinja import TooBig, render_bounded

    try:
        return render_bounded(_compiled(template), variables)
    except TooBig as exc:
        raise TargetError(f"prompt template: {exc}") from None
    except TemplateError as exc:  # an undefined name, a refused attribute: named, never an empty reason
        raise TargetError(f"prompt template: {exc.message or type(exc).__name__}") from None


@lru_cache(maxsize=256)
def _text_and_names(template: str) -> list[str] | None:
    """[text, name, text, name, ..., text] when Jinja parses the template as nothing but text and
    `{{ name }}` placeholders, which then render without Jinja's machinery (a tenth of what a case
    costs evalkit at 0 ms latency); None for anything else (filters, attributes, tags, literals)."""
    from jinja2 import TemplateSyntaxError, nodes

    try:
        body = _environment().parse(template).body
    except TemplateSyntaxError:
        return None
    if not body:
        return [""]
    if len(body) != 1 or type(body[0]) is not nodes.Output:
        return None
    parts = [""]
    for node in body[0].nodes:
        if type(node) is nodes.TemplateData:
            parts[-1] += node.data
        elif type(node) is nodes.Name and node.ctx == "load":
            parts += [node.name, ""]
        else:
            return None
    return parts
