"""Rubric-item conditions (`when:`): sandboxed Jinja expressions over a case's input and facts."""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Callable


@lru_cache(maxsize=512)
def compile_condition(expr: str) -> Callable[..., Any]:
    """Compile `expr`; a syntax error becomes a one-line ValueError."""
    from jinja2 import StrictUndefined, TemplateSyntaxError  # jinja2 loads only when a template is used

    from evalkit.suite.bounded_jinja import BoundedSandbox  # likewise: operators bounded, see there

    env = BoundedSandbox(undefined=StrictUndefined)
    try:
        return env.compile_expression(expr, undefined_to_none=False)
    except TemplateSyntaxError as exc:
        raise ValueError(f"condition {expr!r} is not a valid expression: {exc.message}") from None


def condition_holds(expr: str, *, input: Any, facts: dict[str, Any]) -> bool:
    """Evaluate `expr` with `input` and `facts` in scope; an unknown name raises ValueError."""
    from jinja2 import UndefinedError  # jinja2 loads only when a template is used

    try:
        return bool(compile_condition(expr)(input=input, facts=facts))
    except UndefinedError as exc:
        raise ValueError(f"condition {expr!r}: {exc.message}") from None
    except Exception as exc:  # a comparison of None with a number, a value too large to build, and the like
        raise ValueError(f"condition {expr!r} failed: {exc or type(exc).__name__}") from None
