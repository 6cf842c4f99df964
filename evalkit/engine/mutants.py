"""Mechanical mutants of Python source, generated from its syntax tree and run one at a time in a
forked child whose import system serves the mutated module: `evalkit mutate` and the generated-mutant
benchmark (benchmarks/generated_mutants.py) both use them.

Operators (one AST node changed per mutant):

* ``compare``: ``<`` ↔ ``<=``, ``>`` ↔ ``>=``, ``==`` ↔ ``!=``, ``in`` ↔ ``not in``, ``is`` ↔ ``is not``;
* ``arith``: ``+`` ↔ ``-``, ``*`` ↔ ``/``, ``//`` → ``*``, ``%`` → ``//``, ``**`` → ``*``
  (``+`` on a string literal or f-string is left alone: that is concatenation);
* ``const``: a number other than 0 and 1 scaled by 1.1 and by 0.9 (an int moved by at least 1);
* ``boolop``: ``and`` ↔ ``or``, ``not x`` → ``x``;
* ``drop``: an ``if``'s or conditional expression's test made ``True`` and ``False``, an operand of
  ``and`` / ``or`` dropped, a comprehension's ``if`` filter dropped;
* ``swap``: a call's first two positional arguments swapped; ``min`` ↔ ``max``.

A mutant has a stable key (file, function, operator, before → after, occurrence), so a sample drawn
by hashing keys keeps its members when unrelated code changes.
"""

from __future__ import annotations

import ast
import copy
import hashlib
import importlib.abc
import importlib.machinery
import importlib.util
import json
import os
import select
import signal
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import CodeType, ModuleType
from typing import Any

__all__ = ["Mutant", "generate", "run_isolated", "sampled"]


@dataclass(frozen=True)
class Mutant:
    file: str  # relative to the repository
    function: str  # the enclosing def/class path, "<module>" at the top
    line: int
    operator: str
    before: str
    after: str
    occurrence: int  # among mutants of the same file, function, operator, before and after
    path: tuple[str | int, ...]  # where the changed node sits in the module's tree

    def tree(self, root: Path) -> ast.Module:
        """The whole module with this one change."""
        source = (root / self.file).read_text(encoding="utf-8")
        return _replaced(ast.parse(source, filename=self.file), self.path, self.operator, self.before, self.after)

    @property
    def key(self) -> str:
        return f"{self.file}:{self.function}:{self.operator}:{self.before} -> {self.after}#{self.occurrence}"

    def describe(self) -> str:
        return f"{self.file}:{self.line} {self.operator} {self.before} → {self.after} (in {self.function})"


_COMPARE: dict[type[ast.cmpop], type[ast.cmpop]] = {
    ast.Lt: ast.LtE,
    ast.LtE: ast.Lt,
    ast.Gt: ast.GtE,
    ast.GtE: ast.Gt,
    ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq,
    ast.In: ast.NotIn,
    ast.NotIn: ast.In,
    ast.Is: ast.IsNot,
    ast.IsNot: ast.Is,
}
_ARITH: dict[type[ast.operator], type[ast.operator]] = {
    ast.Add: ast.Sub,
    ast.Sub: ast.Add,
    ast.Mult: ast.Div,
    ast.Div: ast.Mult,
    ast.FloorDiv: ast.Mult,
    ast.Mod: ast.FloorDiv,
    ast.Pow: ast.Mult,
}


def _is_text(node: ast.expr) -> bool:
    return isinstance(node, ast.JoinedStr) or (isinstance(node, ast.Constant) and isinstance(node.value, str))


def _scaled(value: int | float) -> list[int | float]:
    if isinstance(value, int):
        step = max(1, round(abs(value) * 0.1))
        return [value + step, value - step]
    return [round(value * 1.1, 12), round(value * 0.9, 12)]


def _variants(node: ast.AST) -> Iterator[tuple[str, ast.AST]]:
    """(operator, replacement node) for every mutant of `node` itself (its children aside)."""
    if isinstance(node, ast.Compare):
        for i, op in enumerate(node.ops):
            swap = _COMPARE.get(type(op))
            if swap is not None:
                new = copy.deepcopy(node)
                new.ops[i] = swap()
                yield "compare", new
    elif isinstance(node, ast.BinOp):
        swap_op = _ARITH.get(type(node.op))
        if (
            swap_op is not None
            and not (isinstance(node.op, ast.Add) and (_is_text(node.left) or _is_text(node.right)))
            and not (isinstance(node.op, ast.Mod) and _is_text(node.left))
        ):  # "%" on a string formats
            yield "arith", ast.BinOp(left=node.left, op=swap_op(), right=node.right)
    elif isinstance(node, ast.AugAssign):
        swap_op = _ARITH.get(type(node.op))
        if swap_op is not None and not (isinstance(node.op, ast.Add) and _is_text(node.value)):
            yield "arith", ast.AugAssign(target=node.target, op=swap_op(), value=node.value)
    elif (
        isinstance(node, ast.Constant)
        and isinstance(node.value, (int, float))
        and not isinstance(node.value, bool)
        and node.value not in (0, 1)
    ):
        for value in _scaled(node.value):
            yield "const", ast.Constant(value=value)
    elif isinstance(node, ast.BoolOp):
        other: ast.boolop = ast.Or() if isinstance(node.op, ast.And) else ast.And()
        yield "boolop", ast.BoolOp(op=other, values=node.values)
        for i in range(len(node.values)):
            rest = node.values[:i] + node.values[i + 1 :]
            yield "drop", rest[0] if len(rest) == 1 else ast.BoolOp(op=node.op, values=rest)
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        yield "boolop", node.operand
    elif isinstance(node, (ast.If, ast.IfExp)):
        for value in (True, False):
            new_if = copy.copy(node)
            new_if.test = ast.Constant(value=value)
            yield "drop", new_if
    elif isinstance(node, ast.comprehension) and node.ifs:
        for i in range(len(node.ifs)):
            new_c = copy.copy(node)
            new_c.ifs = node.ifs[:i] + node.ifs[i + 1 :]
            yield "drop", new_c
    elif isinstance(node, ast.Call):
        if isinstance(node.func, ast.Name) and node.func.id in ("min", "max"):
            new_call = copy.copy(node)
            new_call.func = ast.Name(id="max" if node.func.id == "min" else "min", ctx=ast.Load())
            yield "swap", new_call
        plain = [a for a in node.args if not isinstance(a, ast.Starred)]
        if len(plain) == len(node.args) >= 2 and ast.dump(node.args[0]) != ast.dump(node.args[1]):
            new_call = copy.copy(node)
            new_call.args = [node.args[1], node.args[0], *node.args[2:]]
            yield "swap", new_call


def _skipped(node: ast.AST, parent: ast.AST | None) -> bool:
    """Nodes no mutant touches: docstrings, annotations, `__all__`, `if TYPE_CHECKING`."""
    if isinstance(node, (ast.arg, ast.Import, ast.ImportFrom)):
        return True
    if isinstance(parent, (ast.AnnAssign,)) and node is parent.annotation:
        return True
    if isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef)) and node is parent.returns:
        return True
    if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
        return True
    if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
        return True
    return False


def _short(node: ast.AST, limit: int = 70) -> str:
    text = " ".join(ast.unparse(node).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _focus(node: ast.AST, new: ast.AST) -> tuple[ast.AST, ast.AST]:
    """What to show of a change: a statement's or comprehension's test, not its whole body."""
    if isinstance(node, (ast.If, ast.IfExp)) and isinstance(new, (ast.If, ast.IfExp)):
        return node.test, new.test
    return node, new


def generate(file: str, root: Path) -> list[Mutant]:
    """Every mutant of `file` (relative to `root`), in source order."""
    source = (root / file).read_text(encoding="utf-8")
    tree = ast.parse(source, filename=file)
    found: list[tuple[list[str | int], str, str, int, str, str]] = []  # path, op, function, line, before, after

    def walk(node: ast.AST, path: list[str | int], scope: str, parent: ast.AST | None) -> None:
        if _skipped(node, parent):
            return
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            scope = node.name if scope == "<module>" else f"{scope}.{node.name}"
        for operator, new in _variants(node):
            shown_old, shown_new = _focus(node, new)
            found.append(
                (
                    path,
                    operator,
                    scope,
                    getattr(node, "lineno", getattr(parent, "lineno", 0)),
                    _short(shown_old),
                    _short(shown_new),
                )
            )
        for name, value in ast.iter_fields(node):
            if name == "decorator_list":
                continue
            if isinstance(value, list):
                for i, child in enumerate(value):
                    if isinstance(child, ast.AST):
                        if i == 0 and name == "body" and _is_docstring(child):
                            continue
                        walk(child, [*path, name, i], scope, node)
            elif isinstance(value, ast.AST):
                walk(value, [*path, name], scope, node)

    walk(tree, [], "<module>", None)
    mutants: list[Mutant] = []
    seen: dict[tuple[str, str, str, str], int] = {}
    for path, operator, scope, line, before, after in found:
        if before == after:
            continue
        base = (scope, operator, before, after)
        seen[base] = seen.get(base, 0) + 1
        mutants.append(Mutant(file, scope, line, operator, before, after, seen[base], tuple(path)))
    return mutants


def _is_docstring(node: ast.AST) -> bool:
    return isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)


def _replaced(tree: ast.Module, path: Sequence[str | int], operator: str, before: str, after: str) -> ast.Module:
    """A copy of `tree` with the node at `path` replaced by its variant (`operator`, showing `after`)."""
    new_tree = tree  # parsed afresh for each mutant: changed in place
    holder: Any = new_tree
    for step in path[:-1]:
        holder = holder[step] if isinstance(step, int) else getattr(holder, step)
    last = path[-1] if path else None
    node = holder[last] if isinstance(last, int) else getattr(holder, str(last))
    for op, new in _variants(node):
        shown_old, shown_new = _focus(node, new)
        if op == operator and _short(shown_old) == before and _short(shown_new) == after:
            if isinstance(last, int):
                holder[last] = new
            else:
                setattr(holder, str(last), new)
            return ast.fix_missing_locations(new_tree)
    raise AssertionError(f"no {operator} variant {before} -> {after} at {list(path)}")  # generate() found it


def sampled(mutants: list[Mutant], n: int | None) -> list[Mutant]:
    """A deterministic sample of about `n` mutants (all of them when `n` is None or not smaller): a
    mutant is in it when a hash of its key falls below n / all."""
    if n is None or n >= len(mutants):
        return mutants
    share = n / len(mutants)
    return [m for m in mutants if int(hashlib.sha256(m.key.encode()).hexdigest()[:12], 16) / 16**12 < share]


class _Serve(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Serves one module from a code object (the mutated tree) instead of its file."""

    def __init__(self, name: str, code: CodeType, origin: Path):
        self.name, self.code, self.origin = name, code, origin

    def find_spec(
        self,
        fullname: str,
        path: Sequence[str] | None,
        target: ModuleType | None = None,
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname != self.name:
            return None
        return importlib.util.spec_from_file_location(fullname, self.origin, loader=self)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        return None

    def exec_module(self, module: ModuleType) -> None:
        exec(self.code, module.__dict__)


def run_isolated(
    m: Mutant | None, module: str, root: Path, run: Callable[[], tuple[bool, str]], timeout: float
) -> tuple[str, str]:
    """("passed" | "failed" | "error" | "timeout", detail) of `run` in a forked child of this process,
    with `m` (a mutant of `module`, whose file is relative to `root`) served in place of the module's
    file. The child forgets every loaded module of `module`'s top-level package first, so the whole
    package imports afresh around the mutant; nothing of it reaches this process or the next mutant.
    A child that raises, exits or dies is an "error", one that runs past `timeout` seconds is killed."""
    if not hasattr(os, "fork"):
        raise OSError("mutants run in a forked child: this platform has no fork()")
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        os.close(read_fd)
        result: tuple[str, str]
        try:
            top = module.split(".")[0]
            for loaded in [k for k in sys.modules if top and (k == top or k.startswith(top + "."))]:
                del sys.modules[loaded]  # the whole package reloads: none of it holds the unmutated code
            if m is not None:
                code = compile(m.tree(root), str(root / m.file), "exec")
                sys.meta_path.insert(0, _Serve(module, code, root / m.file))
            ok, detail = run()
            result = ("passed" if ok else "failed", detail)
        except BaseException as exc:  # noqa: BLE001  # any way a mutant breaks the run is a kill
            result = ("error", f"{type(exc).__name__}: {exc}"[:200])
        try:
            os.write(write_fd, json.dumps(result).encode())
        finally:
            os._exit(0)
    os.close(write_fd)
    return _verdict(pid, read_fd, timeout)


def _verdict(pid: int, read_fd: int, timeout: float) -> tuple[str, str]:
    deadline = time.monotonic() + timeout
    chunks = []
    try:
        while True:
            ready, _, _ = select.select([read_fd], [], [], max(0.0, deadline - time.monotonic()))
            if not ready:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                return "timeout", f"no verdict within {timeout:g} s"
            chunk = os.read(read_fd, 65536)
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(read_fd)
    os.waitpid(pid, 0)
    if not chunks:
        return "error", "the child exited without a verdict"
    status, detail = json.loads(b"".join(chunks))
    return str(status), str(detail)
