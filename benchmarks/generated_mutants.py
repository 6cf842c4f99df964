"""Mutation score over mutants generated mechanically, not chosen by hand: every comparison, arithmetic
and boolean operator, numeric constant, condition and pair of call arguments in the bundled suites'
code (and evalkit's trajectory checks) is changed one at a time, and the suites' gold sets, replayed
by `evalkit selftest`, must notice.

    python benchmarks/generated_mutants.py [--sample N] [--file PATH ...] [--selftest-only] [--list]

Operators (one AST node changed per mutant):

* ``compare``: ``<`` ↔ ``<=``, ``>`` ↔ ``>=``, ``==`` ↔ ``!=``, ``in`` ↔ ``not in``, ``is`` ↔ ``is not``;
* ``arith``: ``+`` ↔ ``-``, ``*`` ↔ ``/``, ``//`` → ``*``, ``%`` → ``//``, ``**`` → ``*``
  (``+`` on a string literal or f-string is left alone: that is concatenation);
* ``const``: a number other than 0 and 1 scaled by 1.1 and by 0.9 (an int moved by at least 1);
* ``boolop``: ``and`` ↔ ``or``, ``not x`` → ``x``;
* ``drop``: an ``if``'s or conditional expression's test made ``True`` and ``False``, an operand of
  ``and`` / ``or`` dropped, a comprehension's ``if`` filter dropped;
* ``swap``: a call's first two positional arguments swapped; ``min`` ↔ ``max``.

The oracle: each mutant runs in a forked child of this process (evalkit and its dependencies are
imported once, before the fork; the suites' own modules are not, so the child imports them afresh),
whose import system serves the mutated module compiled from the changed tree. The child runs
`evalkit selftest` on the suites that use the file, in process; a mutant is killed when selftest
disagrees with a gold label, finds a fact or field wrong, raises, or runs past the time limit.
Then, on the selftest survivors, the unit tests that cover the file (`SOURCES`: the fast files of
the suite's test folder, not the whole folder, a few seconds each) run in a child the same way, and a
failing test kills the mutant too (`--selftest-only` skips them).
Before any mutant, the unmutated code must pass the same oracle, else nothing is measured (exit 2).

Survivors an equivalence reason covers (``benchmarks/equivalent_mutants.yml``: a mutant that cannot
change any output, with the reason) are left out of the score: killed / non-equivalent. The rest are
listed (file:line, operator, before → after); an entry names its `occurrence` when the same change
recurs in the function and only one of them is equivalent. `--sample N` measures a fixed, deterministic sample:
a mutant is in it when a hash of its key (file, function, operator, before → after, occurrence)
falls below N / all, so the sample keeps its members when unrelated code changes.

Why not mutmut: it is not in our package registry; and an operator set of our own, forty lines of
`ast`, is easier to control: which operators, which files, a stable key per mutant for the
equivalence list, and an in-process oracle (selftest per mutant in a fork, about a tenth of a second)
where mutmut's runner drives a test command.

Exit 0 when the score reaches `--target` (default 0.9), 1 below it, 2 when the unmutated code fails.
"""

from __future__ import annotations

import argparse
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
from dataclasses import dataclass
from pathlib import Path
from types import CodeType, ModuleType
from typing import Any, Callable, Iterator, Sequence

import yaml

ROOT = Path(__file__).resolve().parents[1]
EQUIVALENT_FILE = ROOT / "benchmarks" / "equivalent_mutants.yml"
TIMEOUT_S = 30.0
PACE = "suites/pace_ai/pace_ai/"
HELP = "suites/help_agents/help_agents/"

T_PACE = "tests/suites/pace_ai/"
#: the agent suite's own tests: its purpose-built trajectories and its gold set, bad caught and sound passed
T_AGENT = (T_PACE + "test_pace_ai_agent.py", T_PACE + "test_pace_ai_agent_gold.py", T_PACE + "test_pace_ai_agent_edges.py")
#: file → (module name, suite folders whose selftest is the oracle, the unit tests that cover the file:
#: the fast ones, a few seconds each, so that they can run on every selftest survivor)
SOURCES: dict[str, tuple[str, tuple[str, ...], tuple[str, ...]]] = {
    PACE + "checks.py": ("pace_ai.checks", ("suites/pace_ai",),
                         (T_PACE + "test_pace_ai_rubric_checks.py", T_PACE + "test_pace_ai_safety_and_taper.py",
                          T_PACE + "test_pace_ai_edges.py")),
    PACE + "agent_checks.py": ("pace_ai.agent_checks", ("suites/pace_ai",), (T_PACE + "test_pace_ai_edges.py", *T_AGENT)),
    PACE + "reading.py": ("pace_ai.reading", ("suites/pace_ai",),
                          (T_PACE + "test_pace_ai_reading.py", T_PACE + "test_pace_ai_edges.py")),
    PACE + "trajectory.py": ("pace_ai.trajectory", ("suites/pace_ai",), (T_PACE + "test_pace_ai_edges.py", *T_AGENT)),
    PACE + "tools.py": ("pace_ai.tools", ("suites/pace_ai",),
                        (T_PACE + "test_pace_ai_tools.py", T_PACE + "test_pace_ai_edges.py")),
    HELP + "agents.py": ("help_agents.agents", ("suites/help_agents",), ("tests/suites/help_agents/test_agents.py",)),
    HELP + "models.py": ("help_agents.models", ("suites/help_agents",), ("tests/suites/help_agents/test_agents.py",)),
    "evalkit/checks/trajectory.py": ("evalkit.checks.trajectory", ("suites/pace_ai",),
                                     ("tests/checks/test_trajectory.py",)),
}


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

    def tree(self, root: Path = ROOT) -> ast.Module:
        """The whole module with this one change."""
        source = (root / self.file).read_text(encoding="utf-8")
        return _replaced(ast.parse(source, filename=self.file), self.path, self.operator, self.before, self.after)

    @property
    def key(self) -> str:
        return f"{self.file}:{self.function}:{self.operator}:{self.before} -> {self.after}#{self.occurrence}"

    def describe(self) -> str:
        return f"{self.file}:{self.line} {self.operator} {self.before} → {self.after} (in {self.function})"


# --- the operators -----------------------------------------------------------------------------

_COMPARE: dict[type[ast.cmpop], type[ast.cmpop]] = {
    ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt, ast.Eq: ast.NotEq, ast.NotEq: ast.Eq,
    ast.In: ast.NotIn, ast.NotIn: ast.In, ast.Is: ast.IsNot, ast.IsNot: ast.Is,
}
_ARITH: dict[type[ast.operator], type[ast.operator]] = {
    ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.Div, ast.Div: ast.Mult, ast.FloorDiv: ast.Mult,
    ast.Mod: ast.FloorDiv, ast.Pow: ast.Mult,
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
        if swap_op is not None and not (isinstance(node.op, ast.Add) and (_is_text(node.left) or _is_text(node.right))) \
                and not (isinstance(node.op, ast.Mod) and _is_text(node.left)):  # "%" on a string formats
            yield "arith", ast.BinOp(left=node.left, op=swap_op(), right=node.right)
    elif isinstance(node, ast.AugAssign):
        swap_op = _ARITH.get(type(node.op))
        if swap_op is not None and not (isinstance(node.op, ast.Add) and _is_text(node.value)):
            yield "arith", ast.AugAssign(target=node.target, op=swap_op(), value=node.value)
    elif isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) \
            and not isinstance(node.value, bool) and node.value not in (0, 1):
        for value in _scaled(node.value):
            yield "const", ast.Constant(value=value)
    elif isinstance(node, ast.BoolOp):
        other: ast.boolop = ast.Or() if isinstance(node.op, ast.And) else ast.And()
        yield "boolop", ast.BoolOp(op=other, values=node.values)
        for i in range(len(node.values)):
            rest = node.values[:i] + node.values[i + 1:]
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
            new_c.ifs = node.ifs[:i] + node.ifs[i + 1:]
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
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _focus(node: ast.AST, new: ast.AST) -> tuple[ast.AST, ast.AST]:
    """What to show of a change: a statement's or comprehension's test, not its whole body."""
    if isinstance(node, (ast.If, ast.IfExp)) and isinstance(new, (ast.If, ast.IfExp)):
        return node.test, new.test
    return node, new


def generate(file: str, root: Path = ROOT) -> list[Mutant]:
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
            found.append((path, operator, scope, getattr(node, "lineno", getattr(parent, "lineno", 0)),
                          _short(shown_old), _short(shown_new)))
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
    """A deterministic sample of about `n` mutants (all of them when `n` is None or not smaller)."""
    if n is None or n >= len(mutants):
        return mutants
    share = n / len(mutants)
    return [m for m in mutants if int(hashlib.sha256(m.key.encode()).hexdigest()[:12], 16) / 16 ** 12 < share]


# --- the equivalence list ----------------------------------------------------------------------

@dataclass(frozen=True)
class Equivalent:
    file: str
    function: str
    operator: str
    before: str
    after: str
    reason: str
    occurrence: int | None = None  # when the same change recurs in the function: which one (1-based)

    def covers(self, m: Mutant) -> bool:
        return (m.file, m.function, m.operator, m.before, m.after) == \
            (self.file, self.function, self.operator, self.before, self.after) \
            and self.occurrence in (None, m.occurrence)


def load_equivalents(path: Path = EQUIVALENT_FILE) -> list[Equivalent]:
    data = yaml.safe_load(path.read_text(encoding="utf-8")) if path.exists() else None
    entries = [Equivalent(**{k: v if k == "occurrence" else str(v) for k, v in e.items()}) for e in (data or [])]
    for e in entries:
        if not e.reason.strip():
            raise SystemExit(f"{path.name}: {e.file} {e.function} {e.before} -> {e.after} gives no reason")
    return entries


# --- the oracle --------------------------------------------------------------------------------

class _Serve(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Serves one module from a code object (the mutated tree) instead of its file."""

    def __init__(self, name: str, code: CodeType, origin: Path):
        self.name, self.code, self.origin = name, code, origin

    def find_spec(self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None,
                  ) -> importlib.machinery.ModuleSpec | None:
        if fullname != self.name:
            return None
        return importlib.util.spec_from_file_location(fullname, self.origin, loader=self)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        return None

    def exec_module(self, module: ModuleType) -> None:
        exec(self.code, module.__dict__)


def _selftest(folders: Sequence[str], root: Path) -> tuple[bool, str]:
    from evalkit.engine import load_suites
    from evalkit.engine.selftest import selftest_all

    lines: list[str] = []
    code = selftest_all(load_suites([root / f for f in folders]), echo=lines.append)
    text = "\n".join(lines)
    first = next((ln.strip() for ln in text.splitlines() if ln.startswith("  ")), text.splitlines()[0] if lines else "")
    return code == 0, first


def _tests(files: Sequence[str], root: Path) -> tuple[bool, str]:
    import pytest

    if not files:
        return True, "no unit tests cover the file"
    os.chdir(root)
    sys.stdout = open(os.devnull, "w")  # noqa: SIM115  # the child's own output, closed at exit
    # --assert=plain: pytest's assertion rewriter imports evalkit's modules itself (its plugin's
    # distribution), ahead of the mutant on the import path
    code = pytest.main(["-q", "-x", "--assert=plain", "-p", "no:cacheprovider", "-p", "no:xdist",
                        *[str(root / f) for f in files]])
    return code == 0, f"pytest exit {int(code)}"


def _in_child(m: Mutant | None, run: Callable[[Sequence[str], Path], tuple[bool, str]],
              folders: Sequence[str], root: Path, timeout: float) -> tuple[str, str]:
    """("passed" | "failed" | "error" | "timeout", detail) of `run` with `m` in place, in a forked child."""
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        os.close(read_fd)
        result: tuple[str, str]
        try:
            if m is not None:
                name = SOURCES[m.file][0]
                top = name.split(".")[0]
                for loaded in [k for k in sys.modules if k == top or k.startswith(top + ".")]:
                    del sys.modules[loaded]  # the whole package reloads: none of it holds the unmutated code
                code = compile(m.tree(root), str(root / m.file), "exec")
                sys.meta_path.insert(0, _Serve(name, code, root / m.file))
            ok, detail = run(folders, root)
            result = ("passed" if ok else "failed", detail)
        except BaseException as exc:  # noqa: BLE001  # any way a mutant breaks the run is a kill
            result = ("error", f"{type(exc).__name__}: {exc}"[:200])
        os.write(write_fd, json.dumps(result).encode())
        os._exit(0)
    os.close(write_fd)
    deadline = time.monotonic() + timeout
    chunks = []
    while True:
        ready, _, _ = select.select([read_fd], [], [], max(0.0, deadline - time.monotonic()))
        if not ready:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            os.close(read_fd)
            return "timeout", f"no verdict within {timeout:g} s"
        chunk = os.read(read_fd, 65536)
        if not chunk:
            break
        chunks.append(chunk)
    os.close(read_fd)
    os.waitpid(pid, 0)
    if not chunks:
        return "error", "the child exited without a verdict"
    status, detail = json.loads(b"".join(chunks))
    return str(status), str(detail)


def _preload() -> None:
    """Import evalkit and its dependencies once, before any fork (the suites' modules stay unloaded)."""
    import evalkit.checks.registry  # noqa: F401
    import evalkit.engine  # noqa: F401
    import evalkit.engine.selftest  # noqa: F401
    import evalkit.scoring.items  # noqa: F401


@dataclass
class Measured:
    mutant: Mutant
    status: str  # killed | survived | equivalent
    by: str
    reason: str = ""


def measure(mutants: list[Mutant], equivalents: list[Equivalent], tests: bool = False, root: Path = ROOT,
            timeout: float = TIMEOUT_S, echo: Callable[[str], None] = print) -> list[Measured]:
    results = []
    for m in mutants:
        _, suites, test_folders = SOURCES[m.file]
        status, detail = _in_child(m, _selftest, suites, root, timeout)
        if status != "passed":
            results.append(Measured(m, "killed", f"selftest {status}: {detail}"))
            continue
        if tests:
            status, detail = _in_child(m, _tests, [f for f in test_folders if (root / f).exists()], root,
                                       timeout * 4)
            if status != "passed":
                results.append(Measured(m, "killed", f"tests {status}: {detail}"))
                continue
        reason = next((e.reason for e in equivalents if e.covers(m)), "")
        results.append(Measured(m, "equivalent" if reason else "survived", "", reason))
        if not reason:
            echo(f"SURVIVED {m.describe()}")
    return results


def score(results: list[Measured]) -> tuple[int, int]:
    """(killed, non-equivalent)."""
    counted = [r for r in results if r.status != "equivalent"]
    return sum(r.status == "killed" for r in counted), len(counted)


def baseline(files: Sequence[str], tests: bool, root: Path = ROOT) -> list[str]:
    """What fails with no mutant in place (nothing: empty)."""
    problems = []
    for folders in sorted({SOURCES[f][1] for f in files}):
        status, detail = _in_child(None, _selftest, folders, root, TIMEOUT_S)
        if status != "passed":
            problems.append(f"selftest {' '.join(folders)}: {status}: {detail}")
    if tests:
        for folders in sorted({SOURCES[f][2] for f in files}):
            folders = tuple(f for f in folders if (root / f).exists())
            status, detail = _in_child(None, _tests, folders, root, TIMEOUT_S * 4)
            if status != "passed":
                problems.append(f"tests {' '.join(folders)}: {status}: {detail}")
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--sample", type=int, metavar="N", help="measure a fixed sample of about N mutants")
    parser.add_argument("--file", nargs="+", choices=sorted(SOURCES), help="these files only")
    parser.add_argument("--selftest-only", action="store_true", help="no unit tests on selftest survivors")
    parser.add_argument("--list", action="store_true", help="list the mutants and exit")
    parser.add_argument("--target", type=float, default=0.9, help="the score to reach (exit 1 below it)")
    args = parser.parse_args(argv)
    files = args.file or list(SOURCES)
    everything = [m for f in files for m in generate(f)]
    chosen = sampled(everything, args.sample)
    if args.list:
        for m in chosen:
            print(m.describe())
        print(f"{len(chosen)} of {len(everything)} mutants")
        return 0
    equivalents = load_equivalents()
    _preload()
    t0 = time.perf_counter()
    tests = not args.selftest_only
    problems = baseline(files, tests)
    if problems:
        print("the unmutated code does not pass; nothing measured:\n  " + "\n  ".join(problems))
        return 2
    print(f"{len(chosen)} of {len(everything)} generated mutants over {len(files)} files "
          f"(oracle: selftest{' + the unit tests that cover each file' if tests else ''})", flush=True)
    results = measure(chosen, equivalents, tests)
    killed, counted = score(results)
    by_op: dict[str, list[int]] = {}
    for r in results:
        if r.status != "equivalent":
            by_op.setdefault(r.mutant.operator, [0, 0])[0] += r.status == "killed"
            by_op[r.mutant.operator][1] += 1
    print("by operator: " + ", ".join(f"{op} {k}/{n}" for op, (k, n) in sorted(by_op.items())))
    equivalent = sum(r.status == "equivalent" for r in results)
    ratio = killed / counted if counted else 1.0
    print(f"mutation score: {killed}/{counted} non-equivalent mutants killed ({ratio:.1%}); "
          f"{equivalent} equivalent (benchmarks/equivalent_mutants.yml); {time.perf_counter() - t0:.0f} s")
    return 0 if ratio >= args.target else 1


if __name__ == "__main__":
    sys.exit(main())
