"""Mutation score over mutants generated mechanically, not chosen by hand: every comparison, arithmetic
and boolean operator, numeric constant, condition and pair of call arguments in the bundled suites'
code (and evalkit's trajectory checks) is changed one at a time, and the suites' gold sets, replayed
by `evalkit selftest`, must notice.

    python benchmarks/generated_mutants.py [--sample N] [--file PATH ...] [--selftest-only] [--list]

The operators, the mutants' keys and the forked child that serves a mutated module are the
package's (evalkit/engine/mutants.py, shared with `evalkit mutate`); this script adds the files it
measures, the unit tests that cover them and the equivalence list.

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
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

import yaml

from evalkit.engine import mutants as _core
from evalkit.engine.mutants import Mutant, sampled

ROOT = Path(__file__).resolve().parents[1]
EQUIVALENT_FILE = ROOT / "benchmarks" / "equivalent_mutants.yml"
TIMEOUT_S = 30.0
PACE = "suites/pace_ai/pace_ai/"
HELP = "suites/help_agents/help_agents/"

T_PACE = "tests/suites/pace_ai/"
#: the agent suite's own tests: its purpose-built trajectories and its gold set, bad caught and sound passed
T_AGENT = (
    T_PACE + "test_pace_ai_agent.py",
    T_PACE + "test_pace_ai_agent_gold.py",
    T_PACE + "test_pace_ai_agent_edges.py",
)
#: file → (module name, suite folders whose selftest is the oracle, the unit tests that cover the file:
#: the fast ones, a few seconds each, so that they can run on every selftest survivor)
SOURCES: dict[str, tuple[str, tuple[str, ...], tuple[str, ...]]] = {
    PACE + "checks.py": (
        "pace_ai.checks",
        ("suites/pace_ai",),
        (
            T_PACE + "test_pace_ai_rubric_checks.py",
            T_PACE + "test_pace_ai_safety_and_taper.py",
            T_PACE + "test_pace_ai_edges.py",
        ),
    ),
    PACE + "agent_checks.py": (
        "pace_ai.agent_checks",
        ("suites/pace_ai",),
        (T_PACE + "test_pace_ai_edges.py", *T_AGENT),
    ),
    PACE + "reading.py": (
        "pace_ai.reading",
        ("suites/pace_ai",),
        (T_PACE + "test_pace_ai_reading.py", T_PACE + "test_pace_ai_edges.py"),
    ),
    PACE + "trajectory.py": ("pace_ai.trajectory", ("suites/pace_ai",), (T_PACE + "test_pace_ai_edges.py", *T_AGENT)),
    PACE + "tools.py": (
        "pace_ai.tools",
        ("suites/pace_ai",),
        (T_PACE + "test_pace_ai_tools.py", T_PACE + "test_pace_ai_edges.py"),
    ),
    HELP + "agents.py": ("help_agents.agents", ("suites/help_agents",), ("tests/suites/help_agents/test_agents.py",)),
    HELP + "models.py": ("help_agents.models", ("suites/help_agents",), ("tests/suites/help_agents/test_agents.py",)),
    "evalkit/checks/trajectory.py": (
        "evalkit.checks.trajectory",
        ("suites/pace_ai",),
        ("tests/checks/test_trajectory.py",),
    ),
}


def generate(file: str, root: Path = ROOT) -> list[Mutant]:
    """Every mutant of `file` (relative to `root`), in source order."""
    return _core.generate(file, root)


__all__ = ["Mutant", "generate", "sampled"]  # the package's, re-exported for the tests


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
        return (m.file, m.function, m.operator, m.before, m.after) == (
            self.file,
            self.function,
            self.operator,
            self.before,
            self.after,
        ) and self.occurrence in (None, m.occurrence)


def load_equivalents(path: Path = EQUIVALENT_FILE) -> list[Equivalent]:
    data = yaml.safe_load(path.read_text(encoding="utf-8")) if path.exists() else None
    entries = [Equivalent(**{k: v if k == "occurrence" else str(v) for k, v in e.items()}) for e in (data or [])]
    for e in entries:
        if not e.reason.strip():
            raise SystemExit(f"{path.name}: {e.file} {e.function} {e.before} -> {e.after} gives no reason")
    return entries


# --- the oracle --------------------------------------------------------------------------------


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
    code = pytest.main(
        ["-q", "-x", "--assert=plain", "-p", "no:cacheprovider", "-p", "no:xdist", *[str(root / f) for f in files]]
    )
    return code == 0, f"pytest exit {int(code)}"


def _in_child(
    m: Mutant | None,
    run: Callable[[Sequence[str], Path], tuple[bool, str]],
    folders: Sequence[str],
    root: Path,
    timeout: float,
) -> tuple[str, str]:
    """("passed" | "failed" | "error" | "timeout", detail) of `run` with `m` in place, in a forked child."""
    module = SOURCES[m.file][0] if m is not None else ""  # "": nothing served, nothing forgotten
    return _core.run_isolated(m, module, root, lambda: run(folders, root), timeout)


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


def measure(
    mutants: list[Mutant],
    equivalents: list[Equivalent],
    tests: bool = False,
    root: Path = ROOT,
    timeout: float = TIMEOUT_S,
    echo: Callable[[str], None] = print,
) -> list[Measured]:
    results = []
    for m in mutants:
        _, suites, test_folders = SOURCES[m.file]
        status, detail = _in_child(m, _selftest, suites, root, timeout)
        if status != "passed":
            results.append(Measured(m, "killed", f"selftest {status}: {detail}"))
            continue
        if tests:
            status, detail = _in_child(m, _tests, [f for f in test_folders if (root / f).exists()], root, timeout * 4)
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
    print(
        f"{len(chosen)} of {len(everything)} generated mutants over {len(files)} files "
        f"(oracle: selftest{' + the unit tests that cover each file' if tests else ''})",
        flush=True,
    )
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
    print(
        f"mutation score: {killed}/{counted} non-equivalent mutants killed ({ratio:.1%}); "
        f"{equivalent} equivalent (benchmarks/equivalent_mutants.yml); {time.perf_counter() - t0:.0f} s"
    )
    return 0 if ratio >= args.target else 1


if __name__ == "__main__":
    sys.exit(main())
