"""`evalkit merge`: the shards of one run (`--shard I/N`) back into one Report, with the
verdicts an unsharded run gives: cases in their suite's order, checks across cases computed
here over every case, suite and run verdicts from the same gates, usage summed."""

from __future__ import annotations

from pathlib import Path

from pydantic import ValidationError

from evalkit.errors import UsageError
from evalkit.llm.usage import Usage
from evalkit.results.gates import suite_verdict, worst
from evalkit.results.report import CaseResult, ModelUse, RateLimitUse, Report, SuiteResult
from evalkit.run.sharding import parse_shard
from evalkit.scoring.items import compare_cases
from evalkit.suite.model import Suite


def check_complete(reports: list[tuple[str, Report]]) -> None:
    """Every shard 1..N of one N exactly once, or a one-line error naming what is wrong."""
    seen: dict[int, str] = {}
    counts = set()
    for name, report in reports:
        if not report.shard:
            raise UsageError(f"{name} is not the results of a sharded run (run with --shard I/N)")
        shard = parse_shard(report.shard)
        counts.add(shard.count)
        if shard.index in seen:
            raise UsageError(f"shard {shard} is given twice: {seen[shard.index]} and {name}")
        seen[shard.index] = name
    if len(counts) > 1:
        raise UsageError(
            f"the results come from runs split differently ({', '.join(f'N={n}' for n in sorted(counts))})"
        )
    count = counts.pop()
    missing = [f"{i}/{count}" for i in range(1, count + 1) if i not in seen]
    if missing:
        raise UsageError(f"shard {', '.join(missing)} missing: merge needs the results of every shard")


def suite_paths(reports: list[Report]) -> list[str]:
    """The suite files the shards ran, in the first shard's order."""
    paths: list[str] = []
    for report in reports:
        paths += [s.path for s in report.suites if s.path not in paths]
    return paths


def merge_reports(reports: list[Report], suites: list[Suite]) -> Report:
    """One Report from the shards' Reports; `suites` are the suite files they ran (for case order
    and the checks across cases)."""
    by_path = {str(s.path): s for s in suites}
    merged_suites = [
        _merge_suite([s for r in reports for s in r.suites if s.path == path], by_path.get(path))
        for path in suite_paths(reports)
    ]
    first = reports[0]
    usage = Usage()
    for r in reports:
        usage.add(r.usage)
    return Report(
        verdict=worst([s.verdict for s in merged_suites]),
        suites=merged_suites,
        usage=usage,
        models=_merge_models(reports),
        warnings=list(dict.fromkeys(w for r in reports for w in r.warnings)),
        started_at=min((r.started_at for r in reports if r.started_at), default=""),
        wall_seconds=max(r.wall_seconds for r in reports),
        demo=any(r.demo for r in reports),
        run_url=first.run_url,
        results_path=None,
        provenance=first.provenance,
        rate_limit=RateLimitUse(
            rejected=sum(r.rate_limit.rejected for r in reports),
            paused_seconds=sum(r.rate_limit.paused_seconds for r in reports),
            paced=any(r.rate_limit.paced for r in reports),
        ),
    )


def _merge_suite(parts: list[SuiteResult], suite: Suite | None) -> SuiteResult:
    if suite is None:
        raise UsageError(f"suite file {parts[0].path} is not loaded: merge where the shards ran (same checkout)")
    order = {c.id: k for k, c in enumerate(suite.cases)}
    cases: list[CaseResult] = sorted((c for p in parts for c in p.cases), key=lambda c: order.get(c.id, len(order)))
    base = next((p for p in parts if p.target), parts[0])
    result = base.model_copy(
        update={
            "cases": cases,
            "error": next((p.error for p in parts if p.error), None),
            "wall_seconds": max(p.wall_seconds for p in parts),
            "usage": Usage(),
            "counts": {},
        }
    )
    for case in cases:
        result.usage.add(case.usage)
        result.counts[case.verdict] = result.counts.get(case.verdict, 0) + 1
    result.comparisons = [] if result.error else compare_cases(suite, cases)
    result.verdict = suite_verdict(result)
    return result


def _merge_models(reports: list[Report]) -> list[ModelUse]:
    merged: dict[str, ModelUse] = {}
    for report in reports:
        for use in report.models:
            have = merged.setdefault(
                use.model, ModelUse(model=use.model, roles=[], usage=Usage(), deprecated=use.deprecated)
            )
            have.roles = sorted(set(have.roles) | set(use.roles))
            have.usage.add(use.usage)
    return [merged[m] for m in sorted(merged)]


def load_shard_reports(paths: list[str]) -> list[tuple[str, Report]]:
    """Read each results file; a file that is not one is a one-line error."""
    out = []
    for path in paths:
        try:
            out.append((path, Report.load(Path(path))))
        except (ValidationError, ValueError, OSError) as exc:
            raise UsageError(f"{path} is not an evalkit results file ({str(exc).splitlines()[0]})") from None
    return out
