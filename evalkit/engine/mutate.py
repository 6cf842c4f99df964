"""`evalkit mutate`: mutation testing of a team's own suite, offline.

Two kinds of mutant, each of which the suite's gold set, replayed by `evalkit selftest`, should notice:

* **code**: one mechanical change (evalkit/engine/mutants.py: an operator, a constant ±10 %, a dropped
  condition, swapped arguments) to a module of the suite's own code: the packages its `plugins:`, its
  target and its tools come from, where they sit in the suite's repository (installed packages and
  evalkit itself are not the suite's). Each runs in a forked child that imports the package afresh
  around the mutant and runs selftest on every suite that uses the file; it is killed when selftest
  fails (a disagreement with a label, a wrong fact or field), raises (killed by a crash), or runs
  past the timeout (killed by the timeout).
* **gold**: a gold output labelled pass on a judged item, rewritten to break it
  (evalkit/engine/gold_rewrites.py); killed when the item's code witness, or with `--judge` the judge,
  fails the rewrite.

A survivor is a bug the suite would miss: a check that never looks at what the mutant changed, or a
gold set without the output that would tell.
"""

from __future__ import annotations

import hashlib
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from evalkit._runtime.import_names import import_module, repository_root
from evalkit.engine.gold_rewrites import GoldRewrite, decide, gold_rewrites
from evalkit.engine.mutants import Mutant, generate, run_isolated
from evalkit.errors import UsageError
from evalkit.llm.client import ModelClient
from evalkit.suite.model import Suite

#: Seconds one mutant's selftest may take before it counts as killed by the timeout.
TIMEOUT_S = 30.0


@dataclass(frozen=True)
class CodeFile:
    """A module of a suite's own code, and the suites whose selftest is its oracle."""

    root: Path  # file is relative to it
    file: str
    module: str
    suites: tuple[Path, ...]


@dataclass(frozen=True)
class MutantResult:
    kind: str  # code | gold
    where: str  # file:line
    change: str
    status: str  # killed | survived | needs a judge
    by: str = ""  # what killed it, why it needs a judge


@dataclass
class MutationReport:
    results: list[MutantResult] = field(default_factory=list)
    generated: int = 0  # before sampling
    seconds: float = 0.0

    @property
    def killed(self) -> int:
        return sum(r.status == "killed" for r in self.results)

    @property
    def decided(self) -> int:
        return sum(r.status in ("killed", "survived") for r in self.results)

    @property
    def score(self) -> float | None:
        return self.killed / self.decided if self.decided else None

    def score_line(self) -> str:
        if not self.decided:
            return "0/0 mutants killed (nothing measured)"
        return f"{self.killed}/{self.decided} mutants killed ({self.score:.1%})".replace("%)", " %)")

    def lines(self) -> list[str]:
        """The score line, what was measured, then one line per survivor."""
        parts = []
        for kind, name in (("code", "code mutants"), ("gold", "gold rewrites")):
            mine = [r for r in self.results if r.kind == kind]
            killed = sum(r.status == "killed" for r in mine)
            counted = sum(r.status != "needs a judge" for r in mine)
            parts.append(f"{name} {killed}/{counted}")
        waiting = sum(r.status == "needs a judge" for r in self.results)
        lines = [
            self.score_line(),
            f"  {', '.join(parts)}; {len(self.results)} of {self.generated} mutants measured; {self.seconds:.0f} s",
        ]
        if waiting:
            lines.append(
                f"  {waiting} gold rewrite{' needs' if waiting == 1 else 's need'} a judge (the judge "
                "alone decides the item): run with --judge to ask it"
            )
        lines += [
            f"SURVIVED {r.where} {r.change}" + (f" ({r.by})" if r.by else "")
            for r in self.results
            if r.status == "survived"
        ]
        return lines

    def to_json(self) -> dict[str, Any]:
        return {
            "score": self.score,
            "killed": self.killed,
            "decided": self.decided,
            "generated": self.generated,
            "seconds": round(self.seconds, 3),
            "mutants": [asdict(r) for r in self.results],
        }


def _own(path: Path, root: Path) -> bool:
    """A file of the suite's repository, not an installed package's nor evalkit's."""
    evalkit_dir = Path(__file__).resolve().parents[1]
    return path.is_relative_to(root) and "site-packages" not in path.parts and not path.is_relative_to(evalkit_dir)


def _module_names(suite: Suite) -> list[str]:
    """The modules of the suite's checks (every check class its cases use: built-ins and plugins
    alike, evalkit's own dropped later), of its target and of its tools."""
    names = sorted(
        {
            type(it.check).__module__
            for case in suite.cases
            for turn_items in [case.items, *[t.items for t in case.turns]]
            for it in turn_items
            if it.check is not None
        }
    )
    target = suite.target
    for spec in [target.function if target else None, *[t.function for t in (target.tools if target else ())]]:
        if spec:
            names.append(spec.partition(":")[0])
    return names


def suite_code(suites: Sequence[Suite]) -> list[CodeFile]:
    """Every module of the suites' own code (the packages their checks, targets and tools come from,
    where they sit in the suite's repository), with the suites that use it."""
    users: dict[Path, set[Path]] = {}
    where: dict[Path, tuple[Path, str]] = {}  # file -> (folder the top package sits in, module)
    for suite in suites:
        root = repository_root(suite.dir.resolve()) or suite.dir.resolve()
        for name in _module_names(suite):
            try:
                import_module(name, suite.dir)
            except ValueError:
                continue  # not importable here: the suite's own load would have said so
            top = sys.modules[name.split(".")[0]]
            folders = [Path(p) for p in getattr(top, "__path__", [])]
            files = [f for d in folders for f in sorted(d.rglob("*.py"))] if folders else [Path(str(top.__file__))]
            base = folders[0].parent if folders else Path(str(top.__file__)).parent
            for f in (f.resolve() for f in files):
                if _own(f, root):
                    dotted = ".".join(f.relative_to(base.resolve()).with_suffix("").parts).removesuffix(".__init__")
                    where[f] = (root, dotted)
                    users.setdefault(f, set()).add(suite.path)
    found = []
    for f, (root, module) in sorted(where.items()):
        cwd = Path.cwd().resolve()
        shown_root = cwd if f.is_relative_to(cwd) else root
        found.append(CodeFile(shown_root, str(f.relative_to(shown_root)), module, tuple(sorted(users[f]))))
    return found


def _in_sample(key: str, share: float, seed: int) -> bool:
    text = f"{seed}:{key}" if seed else key  # seed 0: the benchmark's sample
    return int(hashlib.sha256(text.encode()).hexdigest()[:12], 16) / 16**12 < share


def _selftest_of(paths: Sequence[Path]) -> Callable[[], tuple[bool, str]]:
    def run() -> tuple[bool, str]:
        from evalkit.engine import load_suites
        from evalkit.engine.selftest import describe, selftest

        results = [selftest(s) for s in load_suites(list(paths))]
        wrong = [line.strip() for r in results for line in describe(r)[1:]]
        return all(r.ok for r in results), (wrong[0] if wrong else "")[:300]

    return run


@dataclass(frozen=True)
class MutateOptions:
    sample: int | None = None
    seed: int = 0
    timeout: float = TIMEOUT_S
    files: tuple[str, ...] = ()  # globs: only these files' code mutants
    judge_model: str | None = None


def mutate(
    suites: Sequence[Suite], options: MutateOptions = MutateOptions(), client: ModelClient | None = None
) -> MutationReport:
    """Generate, sample and measure the suites' mutants; the judge is asked only when `client` is given.
    Raises UsageError when the suites' selftest fails with no mutant in place (nothing can be measured)."""
    from fnmatch import fnmatch

    t0 = time.perf_counter()
    code = [
        c
        for c in suite_code(suites)
        if not options.files or any(fnmatch(c.file, g) or fnmatch(c.file, f"*/{g}") for g in options.files)
    ]
    mutants = [(c, m) for c in code for m in generate(c.file, c.root)]
    rewrites = [r for s in suites for r in gold_rewrites(s)]
    report = MutationReport(generated=len(mutants) + len(rewrites))
    if options.sample is not None and options.sample < report.generated:
        share = options.sample / report.generated
        mutants = [(c, m) for c, m in mutants if _in_sample(m.key, share, options.seed)]
        rewrites = [r for r in rewrites if _in_sample(r.key, share, options.seed)]
    for paths in sorted({c.suites for c in code}):
        status, detail = run_isolated(None, "", Path.cwd(), _selftest_of(paths), options.timeout * 4)
        if status != "passed":
            raise UsageError(
                f"selftest fails with no mutant in place ({status}: {detail}): fix it first "
                f"(`evalkit selftest {' '.join(str(p) for p in paths)}`); nothing measured"
            )
    report.results += [_measure(c, m, options.timeout) for c, m in mutants]
    report.results += [_rewritten(r, client, options.judge_model) for r in rewrites]
    report.seconds = time.perf_counter() - t0
    return report


def _measure(c: CodeFile, m: Mutant, timeout: float) -> MutantResult:
    status, detail = run_isolated(m, c.module, c.root, _selftest_of(c.suites), timeout)
    change = f"{m.operator} {m.before} → {m.after} (in {m.function})"
    where = f"{m.file}:{m.line}"
    if status == "passed":
        return MutantResult("code", where, change, "survived")
    how = {"failed": "selftest", "error": "killed by a crash", "timeout": "killed by the timeout"}[status]
    return MutantResult("code", where, change, "killed", f"{how}: {' '.join(detail.split())}")


def _rewritten(r: GoldRewrite, client: ModelClient | None, judge_model: str | None) -> MutantResult:
    verdict = decide(r, client, judge_model)
    return MutantResult("gold", r.gold.where, r.change, verdict.status, verdict.by)
