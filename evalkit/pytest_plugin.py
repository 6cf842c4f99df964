"""evalkit's pytest plugin: the `eval` marker. Imports stay light (no anthropic, no jinja2)."""

from __future__ import annotations

from typing import Any


def pytest_configure(config: Any) -> None:
    config.addinivalue_line(
        "markers", "eval: an LLM evaluation (deselected by default; select with -m eval; needs a model key)")
