"""One table of exit codes (evalkit/exit_codes.py): no other module writes an exit code as a number,
neither as a constant of its own, nor in `sys.exit(...)`, nor in what a front door returns to it."""

from __future__ import annotations

import ast
from pathlib import Path

from evalkit.exit_codes import ExitCode, WorkerExit, passed_or_failed

PACKAGE = Path(__file__).resolve().parents[1] / "evalkit"
TABLE = "exit_codes.py"
# sys.exit with a number that is no exit code of evalkit's: a user-code worker process of the pool ending
# as a Python program ends after its parent closed the link (the run is over: no verdict rides on it).
NOT_A_VERDICT = {("workers/worker_main.py", 0)}


def _modules(package: Path) -> dict[str, ast.Module]:
    return {
        path.relative_to(package).as_posix(): ast.parse(path.read_text(encoding="utf-8"))
        for path in sorted(package.rglob("*.py"))
        if path.name != TABLE or path.parent != package
    }


def _leaves(node: ast.AST | None) -> list[ast.AST]:
    """What `node` can evaluate to, as expressions: a number it may be, a call whose result it may be
    (not what it computes with: `argv[1:]`, `n > 0`, a call's arguments)."""
    if isinstance(node, ast.IfExp):
        return _leaves(node.body) + _leaves(node.orelse)
    if isinstance(node, (ast.BoolOp, ast.Dict)):
        return [leaf for value in node.values for leaf in _leaves(value)]
    if isinstance(node, ast.Subscript):
        return _leaves(node.value)
    if isinstance(node, ast.Call) and _called_name(node) in ("max", "min", "get"):
        return [leaf for arg in node.args for leaf in _leaves(arg)] + _leaves(getattr(node.func, "value", None))
    if isinstance(node, ast.GeneratorExp):
        return _leaves(node.elt)
    if isinstance(node, (ast.Assign, ast.AnnAssign)):
        return _leaves(node.value)
    return [node] if isinstance(node, (ast.Constant, ast.Call, ast.Name)) else []


def _numbers(node: ast.AST | None) -> list[int]:
    return [
        leaf.value
        for leaf in _leaves(node)
        if isinstance(leaf, ast.Constant) and isinstance(leaf.value, int) and not isinstance(leaf.value, bool)
    ]


def _calls(node: ast.AST | None) -> list[str]:
    return [name for leaf in _leaves(node) if isinstance(leaf, ast.Call) and (name := _called_name(leaf))]


def _called_name(call: ast.Call) -> str | None:
    func = call.func
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None


def _is_sys_exit(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "exit"
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id == "sys"
    )


def _returned_values(function: ast.FunctionDef | ast.AsyncFunctionDef) -> list[tuple[int, ast.expr]]:
    """What `function` returns, with the values it gave the names it returns (`code = 0 ... return code`)."""
    returns = [node for node in ast.walk(function) if isinstance(node, ast.Return) and node.value is not None]
    names = {leaf.id for ret in returns for leaf in _leaves(ret.value) if isinstance(leaf, ast.Name)}
    values: list[tuple[int, ast.expr]] = [(ret.lineno, ret.value) for ret in returns if ret.value is not None]
    for node in ast.walk(function):
        pairs: list[tuple[ast.expr, ast.expr | None]] = []
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Tuple) and isinstance(node.value, ast.Tuple):
                    pairs += zip(target.elts, node.value.elts)
                else:
                    pairs.append((target, node.value))
        elif isinstance(node, ast.AnnAssign):
            pairs.append((node.target, node.value))
        values += [
            (node.lineno, value)
            for target, value in pairs
            if isinstance(target, ast.Name) and target.id in names and value is not None
        ]
    return values


def _exits_in(tree: ast.AST) -> list[ast.Call]:
    """The `sys.exit(...)` calls of `tree`, also those in code it passes as a string (`python -c "..."`)."""
    calls = [node for node in ast.walk(tree) if isinstance(node, ast.Call) and _is_sys_exit(node)]
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and "sys.exit(" in node.value:
            try:
                calls += _exits_in(ast.parse(node.value))
            except SyntaxError:
                pass
    return calls


def exit_code_literals(package: Path) -> list[str]:
    """Every place outside the table that writes an exit code as a number: an `EXIT_*` constant, a number
    in `sys.exit(...)`, or one a function whose result reaches `sys.exit` returns (the functions called in
    `sys.exit(...)`, and those whose result they return, followed by name)."""
    modules = _modules(package)
    functions: dict[str, list[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]]] = {}
    found, front_doors = [], set()
    for rel, tree in modules.items():
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                functions.setdefault(node.name, []).append((rel, node))
            elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:
                    if isinstance(target, ast.Name) and target.id.startswith("EXIT_") and _numbers(node):
                        found.append(f"{rel}:{node.lineno}: {target.id} = a number")
        for call in _exits_in(tree):
            for number in (n for arg in call.args for n in _numbers(arg)):
                if (rel, number) not in NOT_A_VERDICT:
                    found.append(f"{rel}:{call.lineno}: sys.exit with {number}")
            front_doors.update(name for arg in call.args for name in _calls(arg))
    seen: set[str] = set()
    todo = sorted(front_doors)
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        for rel, function in functions.get(name, []):
            for line, value in _returned_values(function):
                found += [f"{rel}:{line}: {function.name} returns {number}" for number in _numbers(value)]
                todo.extend(n for n in _calls(value) if n not in seen)
    return sorted(found)


def test_no_module_but_the_table_writes_an_exit_code_as_a_number():
    assert exit_code_literals(PACKAGE) == []


def test_the_rule_finds_a_constant_a_literal_exit_and_a_front_door_returning_a_number(tmp_path):
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    (package / TABLE).write_text("EXIT_OK = 0\n")  # the table itself may
    (package / "sub" / "door.py").write_text(
        "import sys\n"
        "EXIT_BAD = 4\n"
        "def main():\n"
        "    return helper() if sys.argv else 0\n"
        "def helper():\n"
        "    return 1 if sys.argv[1:] else 0\n"
        "def unrelated():\n"
        "    return 7\n"
        "if __name__ == '__main__':\n"
        "    sys.exit(main())\n"
        "    sys.exit(5)\n"
    )
    assert exit_code_literals(package) == [
        "sub/door.py:11: sys.exit with 5",
        "sub/door.py:2: EXIT_BAD = a number",
        "sub/door.py:4: main returns 0",
        "sub/door.py:6: helper returns 0",
        "sub/door.py:6: helper returns 1",
    ]


def test_the_public_codes_are_the_documented_ones():
    assert [(c.name, int(c)) for c in ExitCode] == [
        ("PASSED", 0),
        ("GATE_FAILED", 1),
        ("USAGE", 2),
        ("INTERNAL", 3),
        ("SIGINT", 130),
        ("SIGTERM", 143),
    ]
    assert passed_or_failed(True) is ExitCode.GATE_FAILED and passed_or_failed(False) is ExitCode.PASSED


def test_the_worker_protocol_reuses_no_public_code_for_a_failure():
    failures = {int(c) for c in WorkerExit if c is not WorkerExit.DONE}
    assert len(failures) == 3 and not failures & {int(c) for c in ExitCode}
