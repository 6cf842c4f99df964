"""The public surface: exactly the names in `__all__`, sorted, each importable; imports stay light."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

import evalkit

PUBLIC_API = sorted(
    [
        "Case",
        "Check",
        "CheckContext",
        "EvalkitError",
        "ModelRequest",
        "ModelResponse",
        "Outcome",
        "Problem",
        "ProviderError",
        "Report",
        "Step",
        "Suite",
        "SuiteError",
        "TargetResult",
        "get_client",
        "llm_judge",
        "load_fixtures",
        "load_suite",
        "register_check",
        "run_checks",
    ]
)


def leaked_names(module) -> set[str]:
    """Public-looking names bound on the module that `__all__` does not list (its own subpackages,
    which Python binds on import, are not names we export)."""
    return {
        n
        for n, v in vars(module).items()
        if n.isidentifier()
        and not n.startswith("_")
        and n not in module.__all__
        and not (isinstance(v, ModuleType) and v.__name__ == f"{module.__name__}.{n}")
    }


def test_all_is_the_documented_api_sorted():
    assert evalkit.__all__ == PUBLIC_API


def test_every_name_in_all_resolves_and_nothing_else_leaks():
    for name in evalkit.__all__:
        assert getattr(evalkit, name) is not None
    assert leaked_names(evalkit) == set()
    assert sorted(dir(evalkit)) == PUBLIC_API


def test_a_leaked_private_name_is_caught(monkeypatch):
    monkeypatch.setattr(evalkit, "runner", object(), raising=False)
    assert leaked_names(evalkit) == {"runner"}


def test_type_checkers_see_every_public_name():
    """The `TYPE_CHECKING` block imports each name of `__all__`, so mypy and editors see real types."""
    tree = ast.parse(Path(evalkit.__file__).read_text(encoding="utf-8"))
    block = next(n for n in tree.body if isinstance(n, ast.If) and ast.unparse(n.test) == "TYPE_CHECKING")
    imported = {a.asname or a.name for n in block.body if isinstance(n, ast.ImportFrom) for a in n.names}
    assert imported == set(PUBLIC_API)


@pytest.mark.parametrize("package", ["evalkit.suite", "evalkit.render", "evalkit.checks"])
def test_subpackages_re_export_exactly_their_all(package):
    module = __import__(package, fromlist=["*"])
    assert module.__all__ == sorted(module.__all__)
    for name in module.__all__:
        assert getattr(module, name) is not None
    assert leaked_names(module) == set()


def test_unknown_name_is_an_attribute_error():
    with pytest.raises(AttributeError, match="nope"):
        evalkit.nope  # noqa: B018


def test_importing_evalkit_pulls_in_no_heavy_module():
    code = (
        "import sys, evalkit; heavy = [m for m in ('anthropic', 'jinja2', 'pydantic', 'yaml') "
        "if m in sys.modules]; print(','.join(heavy))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == ""
