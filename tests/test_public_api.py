"""The public surface: exactly the names in `__all__`, sorted, each importable; imports stay light."""

from __future__ import annotations

import subprocess
import sys

import evalkit


def test_all_is_sorted_and_every_name_resolves():
    assert evalkit.__all__ == sorted(evalkit.__all__)
    for name in evalkit.__all__:
        assert getattr(evalkit, name) is not None
    public = {n for n in dir(evalkit) if not n.startswith("_")}
    assert public == set(evalkit.__all__)


def test_unknown_name_is_an_attribute_error():
    try:
        evalkit.nope  # noqa: B018
    except AttributeError as exc:
        assert "nope" in str(exc)
    else:
        raise AssertionError("expected AttributeError")


def test_importing_evalkit_pulls_in_no_heavy_module():
    code = ("import sys, evalkit; heavy = [m for m in ('anthropic', 'jinja2', 'pydantic', 'yaml') "
            "if m in sys.modules]; print(','.join(heavy))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == ""
