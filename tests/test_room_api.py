"""Each room's `__all__` is its API: the names other rooms use of it, each of which resolves on the
room's package; and no room imports a name of another room that the other room does not export."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

import evalkit

PACKAGE = Path(evalkit.__file__).parent
ROOMS = sorted(p.name for p in PACKAGE.iterdir() if (p / "__init__.py").exists())


def _is_module(dotted: str) -> bool:
    path = PACKAGE.parent.joinpath(*dotted.split("."))
    return path.with_suffix(".py").exists() or (path / "__init__.py").exists()


def cross_room_imports() -> list[tuple[str, str, str, str]]:
    """(importing file, room, module, name) of every `from evalkit.<room>... import name` made outside
    that room, where `name` is not a module."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).parts
        mine = rel[0] if len(rel) > 1 else None
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (
                isinstance(node, ast.ImportFrom)
                and node.level == 0
                and node.module
                and node.module.startswith("evalkit.")
            ):
                continue
            room = node.module.split(".")[1]
            if room in ROOMS and room != mine:
                found += [
                    (str(path.relative_to(PACKAGE.parent)), room, node.module, a.name)
                    for a in node.names
                    if not _is_module(f"{node.module}.{a.name}")
                ]
    return found


def test_the_scan_sees_imports_across_rooms():
    seen = {(room, name) for _, room, _, name in cross_room_imports()}
    assert ("run", "Runner") in seen and ("suite", "load_suite") in seen and ("llm", "ModelClient") in seen


def test_every_name_another_room_imports_is_in_that_rooms_all():
    missing = sorted(
        {
            f"{f}: {module}.{name}"
            for f, room, module, name in cross_room_imports()
            if name not in importlib.import_module(f"evalkit.{room}").__all__
        }
    )
    assert missing == [], "export these names in their room's __all__ (or stop importing them):\n" + "\n".join(missing)


@pytest.mark.parametrize("room", ROOMS)
def test_each_rooms_all_is_sorted_and_every_name_resolves_to_its_homes_object(room):
    package = importlib.import_module(f"evalkit.{room}")
    names = package.__all__
    assert len(names) == len(set(names))
    for name in names:
        if _is_module(f"evalkit.{room}.{name}"):
            continue  # a name shared with a module of the room (`current_client`): imported from the module itself
        assert getattr(package, name) is not None, name
    homes = {module for _, r, module, _ in cross_room_imports() if r == room}
    for _, r, module, name in cross_room_imports():
        if r == room and not _is_module(f"evalkit.{room}.{name}"):
            assert getattr(importlib.import_module(module), name) is getattr(package, name), (module, name)
    assert homes or names or room in ("cli", "pytest_plugin")
