"""evalkit stands on public ground: no import from a dependency's private module, no private
attribute of another library or of the stdlib, no reading of a dependency's source files."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "evalkit"
# Underscore names the Python documentation itself documents as public.
DOCUMENTED = {("os", "_exit")}
# Calls that locate or read a module's source, which is no API of any library.
SOURCE_READERS = {"find_spec", "getsource", "getsourcefile", "getsourcelines", "getfile"}


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _ours(module: str) -> bool:
    return module == "evalkit" or module.startswith("evalkit.")


def findings(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    where = path.name
    found, imported = [], {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if not _ours(alias.name):
                    imported[alias.asname or alias.name.split(".")[0]] = alias.name
                    if any(_private(part) for part in alias.name.split(".")):
                        found.append(f"{where}:{node.lineno}: import {alias.name}")
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module and not _ours(node.module):
            if any(_private(part) for part in node.module.split(".")):
                found.append(f"{where}:{node.lineno}: from {node.module} import ...")
            for alias in node.names:
                if _private(alias.name):
                    found.append(f"{where}:{node.lineno}: from {node.module} import {alias.name}")
                imported[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            chain, base = [node.attr], node.value
            while isinstance(base, ast.Attribute):
                chain.append(base.attr)
                base = base.value
            if isinstance(base, ast.Name) and base.id in imported:
                root = imported[base.id].split(".")[0]
                for attr in reversed(chain):
                    if _private(attr) and (root, attr) not in DOCUMENTED:
                        found.append(f"{where}:{node.lineno}: {base.id}.{'.'.join(reversed(chain))}")
                        break
                dependency = root not in sys.stdlib_module_names
                if dependency and chain[0] == "__file__":
                    found.append(f"{where}:{node.lineno}: reads where {root} is installed ({base.id}.__file__)")
            if node.attr in SOURCE_READERS:
                found.append(f"{where}:{node.lineno}: {node.attr} (reads or locates a module's source)")
        elif isinstance(node, ast.Name) and node.id in SOURCE_READERS:
            found.append(f"{where}:{node.lineno}: {node.id} (reads or locates a module's source)")
    return found


@pytest.mark.parametrize("path", sorted(PACKAGE.rglob("*.py")), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_private_ground(path):
    assert findings(path) == []


def test_the_check_sees_what_it_forbids(tmp_path):
    probe = tmp_path / "probe.py"
    probe.write_text(
        "import atexit\nimport importlib.util\nimport anthropic\n"
        "from anthropic._data import MODELS\nfrom anthropic.resources import _private_thing\n"
        "atexit._run_exitfuncs()\nimportlib.util.find_spec('anthropic')\n"
        "anthropic.__file__\nanthropic.resources.messages._helper\nimport os\nos._exit(0)\n",
        encoding="utf-8",
    )
    assert sorted(line.split(": ", 1)[1] for line in findings(probe)) == sorted(
        [
            "from anthropic._data import ...",
            "from anthropic.resources import _private_thing",
            "atexit._run_exitfuncs",
            "find_spec (reads or locates a module's source)",
            "reads where anthropic is installed (anthropic.__file__)",
            "anthropic.resources.messages._helper",
        ]
    )
