"""`evalkit run --resume RESULTS.jsonl`: go on with a run that stopped. The JSONL's header says
which suite files and options the run began with; the run goes on with those (options given
again must agree), skips every case whose line is in the file, appends to the same file under
the same run id, and writes the results JSON as an uninterrupted run would.

The unit is the case: a case with repeats is finished when all its repeats are (its agreement
needs them all), so a case stopped half-way is run again whole."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any, Callable

from evalkit._runtime.signals import Terminated, exit_code
from evalkit.engine import load_suites
from evalkit.errors import UsageError
from evalkit.render.log import suite_line
from evalkit.results import provenance
from evalkit.results.reader import Scan, scan_results, summary_of
from evalkit.run.options import RunOptions
from evalkit.run.sharding import parse_shard
from evalkit.suite.model import Suite

# The options that shape results: a resumed run keeps the interrupted one's.
RESULT_OPTIONS = (
    "target",
    "cases",
    "model",
    "judge_model",
    "repeat",
    "rubric_threshold",
    "agreement_threshold",
    "shard",
    "inconclusive",
)


def read_run(jsonl: Path) -> Scan:
    """The scanned JSONL of a run that can be resumed; UsageError (exit 2) when it is not one."""
    try:
        scan = scan_results(jsonl)
    except OSError as exc:
        raise UsageError(f"--resume: cannot read {jsonl}: {exc.strerror or exc}") from None
    except ValueError as exc:
        raise UsageError(f"--resume: {jsonl} is not an evalkit results JSONL ({exc})") from None
    if scan.header is None:
        raise UsageError(
            f"--resume: {jsonl} has no header line (written by an evalkit without resumable runs, "
            "or not a run's JSONL): run afresh"
        )
    return scan


def resume_run(
    jsonl: Path, paths: tuple[str, ...], options: RunOptions, output: str | None, *, comparing: bool = False
) -> tuple[list[Suite], RunOptions, Path]:
    """The suites, options and results path that complete the run in `jsonl`."""
    if comparing:
        raise UsageError("--resume completes one run: drop --baseline and the extra --model")
    scan = read_run(jsonl)
    header: dict[str, Any] = scan.header or {}
    recorded: dict[str, Any] = header.get("options") or {}
    began = [str(p) for p in header.get("suites") or []]
    missing = [p for p in began if not Path(p).is_file()]
    if missing:
        raise UsageError(
            f"--resume: the run's suite file {missing[0]} is not there: resume from the folder the run started in"
        )
    suites = load_suites([*(paths or began)])
    if sorted(Path(s.path).resolve() for s in suites) != sorted(Path(p).resolve() for p in began):
        raise UsageError(f"--resume: the run began with {', '.join(began)}; pass the same suite files, or none")
    changed = _changed_files(suites, (header.get("provenance") or {}).get("files") or {})
    if changed:
        raise UsageError(
            f"--resume: {', '.join(changed[:3])} changed since the run began (its finished cases would "
            "mix two versions of the suite): run afresh, without --resume"
        )
    given = {**vars(options), "shard": str(options.shard) if options.shard else None}
    for name in RESULT_OPTIONS:
        if given[name] not in (None, [], ()) and given[name] != recorded.get(name):
            flag = "--" + name.replace("_", "-").removesuffix("s")
            was = recorded.get(name)
            raise UsageError(
                f"--resume: {flag} {given[name]!r} differs from the interrupted run's "
                f"({'not given' if was in (None, []) else repr(was)}); resume with the run's own options"
            )
    kept = {n: recorded.get(n) for n in RESULT_OPTIONS if n not in ("shard", "cases")}
    options = replace(
        options,
        **kept,
        cases=list(recorded.get("cases") or []),
        shard=parse_shard(recorded["shard"]) if recorded.get("shard") else None,
        demo=bool(recorded.get("demo")),
        jsonl_path=jsonl,
        resume=True,
    )
    out = Path(output) if output else jsonl.with_suffix(".json") if jsonl.suffix == ".jsonl" else Path(f"{jsonl}.json")
    return sorted(suites, key=lambda s: began.index(str(s.path)) if str(s.path) in began else 0), options, out


def finished_cases(jsonl: Path) -> int:
    """How many cases the stopped run in `jsonl` had finished (a resumed run's progress counts the rest)."""
    return len(read_run(jsonl).cases)


def _changed_files(suites: list[Suite], recorded: dict[str, str]) -> list[str]:
    now = provenance.collect(suites, {}, []).files
    return sorted(name for name in set(now) | set(recorded) if now.get(name) != recorded.get(name))


def report_stopped(exc: KeyboardInterrupt, jsonl: Path | None, echo: Callable[..., Any]) -> int:
    """After Ctrl-C or SIGTERM: what finished, where it is, how to go on; the exit code (130 / 143)."""
    how = "stopped by SIGTERM" if isinstance(exc, Terminated) else "interrupted"
    if jsonl is None or not jsonl.is_file():
        echo(f"\nevalkit: {how}; no case had finished", err=True)
        return exit_code(exc)
    try:
        summary = summary_of(scan_results(jsonl))
    except (OSError, ValueError) as exc_read:
        echo(f"\nevalkit: {how}; the finished cases are in {jsonl} (unreadable now: {exc_read})", err=True)
        return exit_code(exc)
    echo("", err=True)
    for suite in summary.suites:
        echo("PARTIAL " + suite_line(suite), err=True)
    done = sum(sum(s.counts.values()) for s in summary.suites)
    echo(
        f"evalkit: {how}; {done} finished cases are saved in {jsonl}: `evalkit run --resume {jsonl}` runs the rest",
        err=True,
    )
    return exit_code(exc)
