"""The package layout holds: the import contracts pass, nothing imports in a cycle, and a module
that grows long says why (one concept a module, not a size to split at)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
MAX_MODULE_LINES = 500
LONG_BECAUSE = "This module is long because"  # what a longer module's docstring must explain

grimp = pytest.importorskip("grimp", reason="import-linter (which brings grimp) is in the test extra")


def lint_imports(root: Path) -> subprocess.CompletedProcess[str]:
    """`lint-imports` with this repository's contracts, on the `evalkit` package found under `root`."""
    script = Path(sys.executable).with_name("lint-imports")
    return subprocess.run(
        [str(script), "--config", str(REPO / "pyproject.toml"), "--no-cache"],
        cwd=root,
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(root), "PATH": ""},
    )


def test_import_contracts_are_kept():
    result = lint_imports(REPO)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


@pytest.mark.parametrize(
    "module, line",
    [
        ("results/report.py", "import evalkit.run.runner"),  # a wrong-way arrow: data importing orchestration
        ("suite/loader.py", "import evalkit.run.targets"),  # the old suite <-> targets cycle
        ("llm/client.py", "import evalkit.scoring.judge"),  # the model client reaching up into scoring
        ("github/api.py", "import evalkit.engine"),  # the GitHub glue reaching into the engine
        ("testing/script.py", "import evalkit.run.runner"),  # the fakes reaching into the engine
    ],
)
def test_the_contracts_catch_a_wrong_way_import(tmp_path, module, line):
    shutil.copytree(REPO / "evalkit", tmp_path / "evalkit", ignore=shutil.ignore_patterns("__pycache__"))
    target = tmp_path / "evalkit" / module
    target.write_text(target.read_text(encoding="utf-8") + f"\n{line}  # injected by the test\n", encoding="utf-8")
    result = lint_imports(tmp_path)
    assert result.returncode != 0, result.stdout
    assert "BROKEN" in result.stdout


def _cycles(graph) -> list[list[str]]:
    """Strongly connected groups of more than one module (Tarjan), lazy imports included."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in graph.find_modules_directly_imported_by(node):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for module in sorted(graph.modules):
        if module not in index:
            visit(module)
    return found


def test_no_module_imports_in_a_cycle_not_even_inside_functions():
    graph = grimp.build_graph("evalkit", exclude_type_checking_imports=True)
    assert _cycles(graph) == []


def test_the_cycle_finder_finds_a_cycle():
    class Graph:
        modules = {"a", "b", "c"}
        edges = {"a": {"b"}, "b": {"a"}, "c": {"a"}}

        def find_modules_directly_imported_by(self, module):
            return self.edges[module]

    assert _cycles(Graph()) == [["a", "b"]]


def _unexplained_long_modules(package: Path) -> dict[str, int]:
    import ast

    out = {}
    for path in package.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        lines = len(text.splitlines())
        if lines > MAX_MODULE_LINES and LONG_BECAUSE not in (ast.get_docstring(ast.parse(text)) or ""):
            out[str(path.relative_to(package.parent))] = lines
    return out


def test_a_module_over_the_limit_says_why_in_its_docstring():
    long = _unexplained_long_modules(REPO / "evalkit")
    assert long == {}, f"split these by concept, or say in the docstring: '{LONG_BECAUSE} ...': {long}"


def test_the_length_rule_finds_a_long_module_without_a_reason(tmp_path):
    package = tmp_path / "pkg"
    package.mkdir()
    body = "x = 1\n" * (MAX_MODULE_LINES + 1)
    (package / "plain.py").write_text('"""One concept."""\n' + body)
    (package / "explained.py").write_text(f'"""One concept. {LONG_BECAUSE} its table is one."""\n' + body)
    (package / "short.py").write_text('"""Short."""\nx = 1\n')
    assert _unexplained_long_modules(package) == {"pkg/plain.py": MAX_MODULE_LINES + 2}


def _older_than_the_lock() -> list[str]:
    """Installed packages older than requirements-dev.txt pins them (CI's lowest job)."""
    import re
    from importlib.metadata import PackageNotFoundError, version

    from packaging.version import Version

    older = []
    for name, pinned in re.findall(
        r"^([A-Za-z0-9_.-]+)==([^\s\\;]+)", (REPO / "requirements-dev.txt").read_text(), re.M
    ):
        try:
            installed = version(name)
        except PackageNotFoundError:
            continue
        if Version(installed) < Version(pinned):
            older.append(f"{name} {installed} < {pinned}")
    return older


@pytest.mark.slow
def test_mypy_finds_no_error_in_evalkit():
    mypy = pytest.importorskip("mypy.api", reason="mypy is in the test extra")
    older = _older_than_the_lock()
    if older:  # strict typing is held against the locked stubs; the lowest job tests behaviour
        pytest.skip("mypy --strict runs with the locked set (CI's locked job); older here: " + ", ".join(older[:4]))
    out, err, status = mypy.run(
        ["--config-file", str(REPO / "pyproject.toml"), "--cache-dir", str(REPO / ".mypy_cache"), str(REPO / "evalkit")]
    )
    assert status == 0, out + err


# What may sit directly under evalkit/ beside the rooms: the package itself and three small shared modules.
TOP_LEVEL = {"__init__.py", "errors.py", "limits.py", "exit_codes.py"}


def test_every_room_has_a_place_in_the_layers_and_nothing_else_sits_at_the_top():
    """A new module or room of evalkit must be placed in the layers contract (pyproject.toml), or its
    arrows go unchecked; a module belongs in a room, not beside them."""
    import tomllib

    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    layers = next(c for c in config["tool"]["importlinter"]["contracts"] if c["type"] == "layers")["layers"]
    placed = {name.strip() for layer in layers for name in layer.replace(":", "|").split("|")}
    package = REPO / "evalkit"
    assert sorted(p.name for p in package.glob("*.py") if p.name not in TOP_LEVEL) == []
    rooms = {f"evalkit.{p.parent.name}" for p in package.glob("*/__init__.py")}
    modules = {f"evalkit.{p.stem}" for p in package.glob("*.py") if p.name != "__init__.py"}
    assert sorted((rooms | modules) - placed) == []


def _packages(root: Path) -> list[Path]:
    return sorted(p.parent for p in root.rglob("__init__.py") if "__pycache__" not in p.parts)


def test_every_subpackage_declares_all_and_each_name_exists():
    import ast
    import importlib

    for folder in _packages(REPO / "evalkit"):
        if folder == REPO / "evalkit":
            continue
        name = ".".join(folder.relative_to(REPO).parts)
        tree = ast.parse((folder / "__init__.py").read_text(encoding="utf-8"))
        declared = [
            node
            for node in tree.body
            if isinstance(node, (ast.Assign, ast.AnnAssign))
            and any(
                getattr(t, "id", None) == "__all__"
                for t in (node.targets if isinstance(node, ast.Assign) else [node.target])
            )
        ]
        assert declared, f"{name}/__init__.py declares no __all__"
        package = importlib.import_module(name)
        for public in package.__all__:
            assert hasattr(package, public) or (folder / f"{public}.py").exists() or (folder / public).is_dir(), (
                f"{name}.__all__ names {public!r}, which is neither defined nor a module of the room"
            )


PRIVATE_IMPORTS = """
import sys, grimp
graph = grimp.build_graph("evalkit", exclude_type_checking_imports=True)
for importer in sorted(graph.modules):
    for imported in sorted(graph.find_modules_directly_imported_by(importer)):
        parts = imported.split(".")
        private = next((i for i, part in enumerate(parts) if part.startswith("_") and not part.startswith("__") and i > 1), None)
        if private is None:
            continue
        owner = ".".join(parts[:private])  # the subpackage the private module belongs to
        if not (importer == owner or importer.startswith(owner + ".")):
            print(importer, "->", imported)
"""


def _private_imports(root: Path) -> list[str]:
    """Imports of a private module (`_name`) of a subpackage from outside that subpackage, in the
    `evalkit` package under `root` (a fresh interpreter: a copy must not mix with the one under test)."""
    result = subprocess.run(
        [sys.executable, "-c", PRIVATE_IMPORTS],
        cwd=root,
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(root), "PATH": ""},
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.splitlines()


def test_no_room_imports_another_rooms_private_module():
    assert _private_imports(REPO) == []


def test_the_private_module_rule_finds_a_reach_into_another_room(tmp_path):
    shutil.copytree(REPO / "evalkit", tmp_path / "evalkit", ignore=shutil.ignore_patterns("__pycache__"))
    target = tmp_path / "evalkit" / "render" / "markdown.py"
    target.write_text(
        target.read_text(encoding="utf-8") + "\nimport evalkit.suite._validation  # injected\n", encoding="utf-8"
    )
    assert "evalkit.render.markdown -> evalkit.suite._validation" in _private_imports(tmp_path)


def test_every_type_ignore_names_its_code_and_says_why():
    import re

    bare = []
    for path in sorted((REPO / "evalkit").rglob("*.py")):
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if "type: ignore" in line and not re.search(r"type: ignore\[[\w, -]+\]\s+#\s*\S", line):
                bare.append(f"{path.relative_to(REPO)}:{n}")
    assert bare == [], "say why after the ignore: # type: ignore[code]  # why"


def test_no_room_defines_a_name_one_of_its_modules_has():
    """Importing `evalkit.engine.calibrate` once set the package's `calibrate` to that module, over the
    function of that name: a room's own names and its modules' names must differ."""
    import ast

    clashes = []
    for folder in _packages(REPO / "evalkit"):
        modules = {p.stem for p in folder.glob("*.py")} | {
            p.name for p in folder.iterdir() if (p / "__init__.py").exists()
        }
        tree = ast.parse((folder / "__init__.py").read_text(encoding="utf-8"))
        defined = {
            node.name for node in tree.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
        }
        defined |= {
            t.id for node in tree.body if isinstance(node, ast.Assign) for t in node.targets if isinstance(t, ast.Name)
        }
        clashes += [f"{folder.relative_to(REPO)}: {name}" for name in sorted(defined & modules)]
    assert clashes == []


# At most this many positional parameters a function: more are passed by name (after `*`), so a call
# says what each value is. `self` and `cls` count: they are positional parameters like the rest, and a
# method reads no better for its receiver being left out of the count.
MAX_POSITIONAL = 5
# A signature that is not ours to choose: the method overrides one a library calls positionally.
POSITIONAL_EXCEPTIONS = {
    "github/api.py:redirect_request": "urllib.request.HTTPRedirectHandler.redirect_request, called positionally",
}


def _too_many_positional(package: Path) -> dict[str, int]:
    import ast

    out = {}
    for path in sorted(package.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                positional = len(node.args.posonlyargs) + len(node.args.args)
                name = f"{path.relative_to(package).as_posix()}:{getattr(node, 'name', '<lambda>')}"
                if positional > MAX_POSITIONAL and name not in POSITIONAL_EXCEPTIONS:
                    out[name] = positional
    return out


def test_no_function_takes_more_than_five_positional_parameters():
    assert _too_many_positional(REPO / "evalkit") == {}, "pass the rest by name: put them after `*`"


def test_the_positional_rule_counts_self_and_leaves_keyword_only_parameters_out(tmp_path):
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "m.py").write_text(
        "def five(a, b, c, d, e, *, f, g): ...\n"
        "def six(a, b, c, d, e, f=1): ...\n"
        "def only(a, b, /, c, d, e, f): ...\n"
        "class C:\n"
        "    def method(self, a, b, c, d, e): ...\n"
        "    def fine(self, a, b, c, d, *e, f): ...\n"
        "g = lambda a, b, c, d, e, f: a\n"
    )
    assert _too_many_positional(package) == {"m.py:six": 6, "m.py:only": 6, "m.py:method": 6, "m.py:<lambda>": 6}
