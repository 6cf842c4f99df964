"""Mutation score of the bundled suites' checks and tools: realistic bugs, injected one at a time into a
temporary copy of the repository (never the working tree), each of which `evalkit selftest` or the
suite's own tests must catch.

    python benchmarks/mutation_score.py [--only ID ...] [--both] [--list]

For each mutation: the copy's file gets the bug, `evalkit selftest suites/<suite>` runs in the copy
(exit 1 = killed), then, if selftest let it pass, the suite's own test folder
(`pytest -x tests/suites/<suite>`; only that folder, not the whole test suite, to keep the time down);
the file is restored before the next one. `--both` runs the tests even when selftest killed the
mutation, to say which of the two catch it. The copy is checked first: unmutated, both must pass,
and its `evalkit` must be the one imported (PYTHONPATH), else nothing is measured (exit 2).
Prints one line per mutation and the score; exits 0 when every mutation is killed, 1 otherwise.

Why not mutmut: it generates operator-level mutants (`<` for `<=`, a changed constant) over whole
modules by the thousand, while the point here is a short, named list of bugs a person could write
(an ACWR window, the wrong VDOT, a witness that accepts a missing quote), each one read and
justified, and run against `selftest` as well as the tests.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TIMEOUT_S = 900


@dataclass(frozen=True)
class Mutation:
    id: str
    suite: str  # pace_ai | help_agents
    file: str  # relative to the repository
    old: str  # occurs exactly once in the file
    new: str
    what: str  # the bug, in words


PACE = "suites/pace_ai/pace_ai/"
MUTATIONS = [
    Mutation(
        "acwr_window",
        "pace_ai",
        PACE + "tools.py",
        "last4 = weeks[-4:]",
        "last4 = weeks[-5:-1]",
        "ACWR window wrong: chronic load over the 4 weeks before the last, not the last 4",
    ),
    Mutation(
        "zones_wrong_vdot",
        "pace_ai",
        PACE + "profiles.py",
        'zones = calculate_training_zones(prediction["vdot_exact"])',
        'zones = calculate_training_zones(predict_race_time(goal["distance"], goal["goal_time"], '
        'goal["distance"])["vdot_exact"])',
        "training zones from the goal time's VDOT instead of the recent race's",
    ),
    Mutation(
        "repetition_not_track",
        "pace_ai",
        PACE + "plan.py",
        'TRACK_SESSIONS = frozenset({"interval", "repetition"})',
        'TRACK_SESSIONS = frozenset({"interval"})',
        "repetitions not counted as track work (beginner and masters limits)",
    ),
    Mutation(
        "witness_missing_quote",
        "pace_ai",
        PACE + "safety.py",
        'return f"no quote ({name})"',
        "return None",
        "a MUST item's code witness accepts a missing quote",
    ),
    Mutation(
        "moderate_at_optimal",
        "pace_ai",
        PACE + "safety.py",
        '"optimal": ("low", "optimal"),',
        '"optimal": ("low", "optimal", "moderate"),',
        '"moderate" injury risk accepted at an optimal ACWR',
    ),
    Mutation(
        "rest_days_off_by_one",
        "pace_ai",
        PACE + "plan.py",
        "rest_days=max(7, len(days)) - len(runs),",
        "rest_days=max(7, len(days)) - len(runs) + 1,",
        "rest days off by one (one more than the week holds)",
    ),
    Mutation(
        "acwr_band_edge",
        "pace_ai",
        PACE + "tools.py",
        '    if ratio_2dp < 1.5:\n        return "elevated"',
        '    if ratio_2dp <= 1.5:\n        return "elevated"',
        "ACWR 1.50 called elevated, not high (the danger zone starts above it)",
    ),
    Mutation(
        "hard_day_without_quality_is_easy",
        "pace_ai",
        PACE + "plan.py",
        "hard_km += float(quality) if ok else _km(d)",
        "hard_km += float(quality) if ok else 0.0",
        "a hard session without quality km counted as easy running (easy share)",
    ),
    Mutation(
        "long_run_few_days_always",
        "pace_ai",
        PACE + "checks.py",
        "high = self.few_days_max_pct if week.run_days <= self.few_run_days else self.max_pct",
        "high = self.few_days_max_pct",
        "the long-run share's 45 % allowance for 3-day weeks given to every week",
    ),
    Mutation(
        "volume_band_30",
        "pace_ai",
        PACE + "coach.py",
        "VOLUME_BAND = (0.80, 1.20)",
        "VOLUME_BAND = (0.70, 1.30)",
        "the weekly-volume band widened from ±20 % to ±30 %",
    ),
    Mutation(
        "next_week_acwr_window",
        "pace_ai",
        PACE + "checks.py",
        "ratio = km / ((sum(weeks[-3:]) + km) / 4) if km > 0 else 0.0",
        "ratio = km / ((sum(weeks[-4:]) + km) / 5) if km > 0 else 0.0",
        "next week's ACWR over a 5-week window (volume_in_acwr_band)",
    ),
    Mutation(
        "taper_cut_band",
        "pace_ai",
        PACE + "checks.py",
        "TAPER_CUT_PCT = (20.0, 75.0)",
        "TAPER_CUT_PCT = (10.0, 90.0)",
        "a taper's volume cut accepted from 10 % to 90 % (not 20-75 %)",
    ),
    Mutation(
        "overreaching_equal_volume",
        "pace_ai",
        PACE + "safety.py",
        "if total is not None and total >= last",
        "if total is not None and total > last",
        "a plan as big as last week's spike accepted as backing off (flags_overreaching)",
    ),
    Mutation(
        "stated_total_tolerance",
        "pace_ai",
        PACE + "checks.py",
        "off <= self.tolerance + 1e-9,",
        "off <= 2 * self.tolerance + 1e-9,",
        "a stated weekly total 20 % off the days' sum accepted",
    ),
    Mutation(
        "older_beginner_at_60",
        "pace_ai",
        PACE + "safety.py",
        'older_beginner = age >= 50 and experience == "beginner"',
        'older_beginner = age >= 60 and experience == "beginner"',
        "all-out efforts and max heart rates forbidden only from 60, not 50",
    ),
    Mutation(
        "miles_as_km",
        "pace_ai",
        PACE + "reading.py",
        "MILE_KM = 1.609344",
        "MILE_KM = 1.0",
        "miles read as km by the reply's own-words reader",
    ),
    Mutation(
        "hard_plan_days_ignored",
        "pace_ai",
        PACE + "safety.py",
        'also = ["the plan still holds " + ", ".join(hard)] if hard else []',
        "also = []",
        "a warning against hard workouts accepted while the plan still holds them",
    ),
    Mutation(
        "codenode_any_function",
        "help_agents",
        "suites/help_agents/help_agents/models.py",
        'isinstance(n, ast.FunctionDef) and n.name == "main"',
        "isinstance(n, ast.FunctionDef)",
        "CodeNode accepts code whose only function is not `main`",
    ),
    Mutation(
        "has_main_no_kwargs",
        "help_agents",
        "evalkit/checks/code.py",
        '    if args.kwarg is None:\n        problems.append("no `**kwargs`")\n',
        "",
        "has_main no longer requires `**kwargs`",
    ),
    Mutation(
        "max_words_off_by_one",
        "help_agents",
        "evalkit/checks/text.py",
        "if len(m.split()) > self.per_message]",
        "if len(m.split()) > self.per_message + 1]",
        "max_words lets a message one word over the limit through",
    ),
    Mutation(
        "count_min_only",
        "help_agents",
        "evalkit/checks/text.py",
        "if self.expected is not None and n != self.expected:",
        "if self.expected is not None and n < self.expected:",
        "count accepts more messages than expected",
    ),
]


@dataclass
class Outcome:
    mutation: Mutation
    killed_by: list[str]
    seconds: float

    @property
    def killed(self) -> bool:
        return bool(self.killed_by)


def _copy(dest: Path) -> Path:
    repo = dest / "repo"
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", ".evalkit", "*.egg-info")
    repo.mkdir()
    shutil.copy2(ROOT / "pyproject.toml", repo / "pyproject.toml")  # pytest's settings
    for part in ("evalkit", "suites"):
        shutil.copytree(ROOT / part, repo / part, ignore=ignore)
    (repo / "tests").mkdir()
    shutil.copy2(ROOT / "tests" / "conftest.py", repo / "tests" / "conftest.py")
    shutil.copytree(ROOT / "tests" / "suites", repo / "tests" / "suites", ignore=ignore)
    return repo


def _env(repo: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "EVALKIT_", "PYTEST_"))}
    env.update(PYTHONPATH=str(repo), EVALKIT_CACHE_DIR=str(repo / ".evalkit-cache"), PYTHONDONTWRITEBYTECODE="1")
    return env


def _run(cmd: list[str], repo: Path) -> tuple[int, str]:
    try:
        done = subprocess.run(cmd, cwd=repo, env=_env(repo), capture_output=True, text=True, timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return -1, f"timed out after {TIMEOUT_S} s"
    return done.returncode, done.stdout + done.stderr


def selftest(repo: Path, suite: str) -> tuple[int, str]:
    return _run([str(Path(sys.executable).with_name("evalkit")), "selftest", f"suites/{suite}"], repo)


def suite_tests(repo: Path, suite: str) -> tuple[int, str]:
    return _run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-x",
            "-p",
            "no:cacheprovider",
            "-p",
            "no:xdist",
            f"tests/suites/{suite}",
        ],
        repo,
    )


def _first_failure(output: str) -> str:
    for line in output.splitlines():
        if line.startswith(("FAILED ", "ERROR ")):
            return line.split(" ", 1)[1].split(" - ")[0]
    for line in output.splitlines():
        if "  WRONG " in line or "  DISAGREE " in line:
            return line.strip()[:160]
    return output.strip().splitlines()[-1][:160] if output.strip() else "(no output)"


def check_copy(repo: Path, suites: set[str]) -> list[str]:
    """What is wrong with the unmutated copy (nothing: empty), so that a kill means the mutation."""
    problems = []
    code, out = _run([sys.executable, "-c", "import evalkit; print(evalkit.__file__)"], repo)
    if code != 0 or not out.strip().startswith(str(repo)):
        problems.append(f"the copy's evalkit is not the one imported: {out.strip()[:200]}")
    for suite in sorted(suites):
        for name, run in (("selftest", selftest), ("tests", suite_tests)):
            code, out = run(repo, suite)
            if code != 0:
                problems.append(f"{suite}: unmutated {name} fails: {_first_failure(out)}")
    return problems


def apply(repo: Path, m: Mutation) -> str:
    """Put the bug into the copy; returns the file's original text (to restore)."""
    path = repo / m.file
    text = path.read_text(encoding="utf-8")
    if text.count(m.old) != 1:
        raise SystemExit(
            f"mutation {m.id}: its text occurs {text.count(m.old)} times in {m.file}, not once "
            f"(the code changed: update the mutation)"
        )
    path.write_text(text.replace(m.old, m.new), encoding="utf-8")
    return text


def measure(repo: Path, m: Mutation, both: bool) -> Outcome:
    t0 = time.perf_counter()
    original = apply(repo, m)
    killed_by = []
    try:
        code, out = selftest(repo, m.suite)
        if code != 0:
            killed_by.append(f"selftest ({_first_failure(out)})")
        if both or not killed_by:
            code, out = suite_tests(repo, m.suite)
            if code != 0:
                killed_by.append(f"tests ({_first_failure(out)})")
    finally:
        (repo / m.file).write_text(original, encoding="utf-8")
    return Outcome(m, killed_by, time.perf_counter() - t0)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", nargs="+", metavar="ID", help="run these mutations only")
    parser.add_argument("--both", action="store_true", help="run the tests even when selftest killed it")
    parser.add_argument("--list", action="store_true", help="list the mutations and exit")
    args = parser.parse_args(argv)
    chosen = MUTATIONS
    if args.only:
        unknown = sorted(set(args.only) - {m.id for m in MUTATIONS})
        if unknown:
            print(f"unknown mutation {', '.join(unknown)}; choose from {', '.join(m.id for m in MUTATIONS)}")
            return 2
        chosen = [m for m in MUTATIONS if m.id in args.only]
    if args.list:
        for m in chosen:
            print(f"{m.id:34} {m.suite:12} {m.file}: {m.what}")
        return 0
    with tempfile.TemporaryDirectory(prefix="evalkit-mutants-") as tmp:
        repo = _copy(Path(tmp))
        t0 = time.perf_counter()
        problems = check_copy(repo, {m.suite for m in chosen})
        if problems:
            print("the unmutated copy does not pass; nothing measured:\n  " + "\n  ".join(problems))
            return 2
        print(f"unmutated copy: selftest and tests pass ({time.perf_counter() - t0:.0f} s)")
        results = []
        for m in chosen:
            r = measure(repo, m, args.both)
            results.append(r)
            verdict = "KILLED  " if r.killed else "SURVIVED"
            print(
                f"{verdict} {m.id:34} {m.what} [{r.seconds:.0f} s]"
                + (f"\n         by {'; '.join(r.killed_by)}" if r.killed else ""),
                flush=True,
            )
    killed = sum(r.killed for r in results)
    print(
        f"mutation score: {killed}/{len(results)} killed ({killed / len(results):.0%}); "
        f"{sum(any(k.startswith('selftest') for k in r.killed_by) for r in results)} by selftest"
        + (", the rest by the suites' tests" if not args.both else "")
    )
    return 0 if killed == len(results) else 1


if __name__ == "__main__":
    sys.exit(main())
