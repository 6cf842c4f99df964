"""Jinja's sandbox with bounds on size: what a prompt template or a `when:` condition may build.

Jinja's own sandbox stops unsafe attribute access and caps `range()` at 100,000 items, but
`'a' * 10000000000`, `n ** (n ** n)` or `'%0999999999d' % 1` still eat memory or spin until the
machine gives out, and a suite file comes from a pull request. The documented hook for this is
`intercepted_binops` / `call_binop`: each operator that can grow a value is checked before it
runs, as are the filters that take a width or multiply a string. Output is capped as it streams."""

from __future__ import annotations

import re
from typing import Any

from jinja2.sandbox import SandboxedEnvironment

MAX_SIZE = 1_000_000  # characters or items one operation may make
MAX_POWER_BITS = 64_000  # bits of an integer `**` may make (about 19,000 digits)
MAX_OUTPUT = 2_000_000  # characters one render may write
_WIDTH = re.compile(r"\d{7,}")  # a width or precision of a million or more in a format string
# str methods whose argument sets the size of what they make (`'a'.center(10**9)`)
_STR_WIDTH_METHODS = frozenset({"center", "ljust", "rjust", "zfill", "expandtabs", "replace"})


class TooBig(ValueError):
    """An operation in a template that would build a value past the bounds."""


def _size(value: Any) -> int | None:
    return len(value) if isinstance(value, (str, bytes, list, tuple)) else None


def _check_power(base: Any, exponent: Any) -> None:
    if isinstance(base, bool) or isinstance(exponent, bool):
        return
    if isinstance(base, int) and isinstance(exponent, int) and exponent > 0 and abs(base) > 1:
        if exponent > MAX_POWER_BITS or abs(base).bit_length() * exponent > MAX_POWER_BITS:
            raise TooBig(f"{base} ** {exponent} is too large to compute here")


def _check_repeat(left: Any, right: Any) -> None:
    for seq, times in ((left, right), (right, left)):
        size = _size(seq)
        if size is not None and isinstance(times, int) and not isinstance(times, bool) and size * times > MAX_SIZE:
            raise TooBig(f"repeating {size:,} items {times:,} times is past the limit of {MAX_SIZE:,}")


def _check_width(text: Any) -> None:
    if isinstance(text, str) and _WIDTH.search(text):
        raise TooBig("a format width or precision of a million or more")


class BoundedSandbox(SandboxedEnvironment):
    """SandboxedEnvironment whose growing operations stop at MAX_SIZE instead of at the machine's memory."""

    intercepted_binops = frozenset({"*", "**", "+", "%"})

    def __init__(self, **options: Any):
        super().__init__(**options)
        for name, width_args in (("center", 1), ("indent", 1), ("wordwrap", 1), ("truncate", 1)):
            self.filters[name] = _bounded_width(self.filters[name], width_args)
        self.filters["replace"] = _bounded_replace(self.filters["replace"])
        self.filters["format"] = _bounded_format(self.filters["format"])

    def call_binop(self, context: Any, operator: str, left: Any, right: Any) -> Any:
        if operator == "**":
            _check_power(left, right)
        elif operator == "*":
            _check_repeat(left, right)
        elif operator == "+":
            a, b = _size(left), _size(right)
            if a is not None and b is not None and a + b > MAX_SIZE:
                raise TooBig(f"joining {a:,} and {b:,} items is past the limit of {MAX_SIZE:,}")
        elif operator == "%":
            _check_width(left)
        return super().call_binop(context, operator, left, right)

    def is_safe_attribute(self, obj: Any, attr: str, value: Any) -> bool:
        """A string's own methods that take a width or multiply it are refused (the filters of the same
        names are bounded instead)."""
        if isinstance(obj, str):
            if attr in _STR_WIDTH_METHODS:
                return False
        return bool(super().is_safe_attribute(obj, attr, value))

    def getattr(self, obj: Any, attribute: str) -> Any:
        """`'{:>999999999}'.format(x)`: the format text itself is checked before its method is handed out."""
        if isinstance(obj, str) and attribute in ("format", "format_map"):
            _check_width(obj)
        return super().getattr(obj, attribute)


def _bounded_width(fn: Any, _position: int) -> Any:
    def bounded(*args: Any, **kwargs: Any) -> Any:
        numbers = [a for a in (*args[1:], *kwargs.values()) if isinstance(a, int) and not isinstance(a, bool)]
        if any(abs(n) > MAX_SIZE for n in numbers):
            raise TooBig(f"a width past the limit of {MAX_SIZE:,}")
        return fn(*args, **kwargs)

    bounded.__dict__.update(getattr(fn, "__dict__", {}))  # keep Jinja's pass_environment/pass_eval_context marks
    return bounded


def _bounded_replace(fn: Any) -> Any:
    def bounded(*args: Any, **kwargs: Any) -> Any:
        # replace(eval_ctx, s, old, new, count=None)
        s, old, new = (list(args[1:4]) + [None, None, None])[:3]
        if isinstance(s, str) and isinstance(old, str) and isinstance(new, str):
            grows = (len(s) + 1 if old == "" else s.count(old)) * max(0, len(new) - len(old))
            if len(s) + grows > MAX_SIZE:
                raise TooBig(
                    f"the replacement would make {len(s) + grows:,} characters, past the limit of {MAX_SIZE:,}"
                )
        return fn(*args, **kwargs)

    bounded.__dict__.update(getattr(fn, "__dict__", {}))
    return bounded


def _bounded_format(fn: Any) -> Any:
    def bounded(value: Any, *args: Any, **kwargs: Any) -> Any:
        _check_width(value)
        return fn(value, *args, **kwargs)

    bounded.__dict__.update(getattr(fn, "__dict__", {}))
    return bounded


def render_bounded(template: Any, variables: dict[str, Any]) -> str:
    """Render `template`, refusing output past MAX_OUTPUT characters as it streams."""
    parts, written = [], 0
    for piece in template.generate(**variables):
        written += len(piece)
        if written > MAX_OUTPUT:
            raise TooBig(f"the rendered text is over {MAX_OUTPUT:,} characters")
        parts.append(piece)
    return "".join(parts)
