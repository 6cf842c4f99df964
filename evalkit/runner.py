"""Async orchestration: every run of every case, bounded by the client's concurrency, each
finished case appended to a JSONL file at once so an interrupted run loses nothing."""

from __future__ import annotations

import asyncio
import fnmatch
import json
import os
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable

from evalkit._fileformat import DEFAULT_JUDGE_MODEL, DEFAULT_TARGET_MODEL, CompareSpec, FieldRef, Thresholds
from evalkit.checks.base import CheckContext, normalize, output_text
from evalkit.client import ModelClient, Usage
from evalkit.conditions import condition_holds
from evalkit.consistency import agreement, consensus
from evalkit.errors import EvalkitError, ProviderError
from evalkit.extract import extract_fields
from evalkit.gates import case_verdict, score_case, suite_verdict, worst
from evalkit.judge import judge
from evalkit.runtime import TIER_ENV
from evalkit.report import CaseResult, ComparisonResult, ItemResult, ModelUse, Report, RunResult, SuiteResult
from evalkit.suite import Case, Item, Suite, Target
from evalkit.targets import TargetFn, TargetResult, resolve_target, target_executor

MAX_STORED_OUTPUT = 20_000  # characters of each output kept in the report


@dataclass
class RunOptions:
    target: str | None = None
    cases: list[str] = field(default_factory=list)  # globs over case ids
    model: str | None = None
    judge_model: str | None = None
    repeat: int | None = None
    rubric_threshold: float | None = None
    agreement_threshold: float | None = None
    jsonl_path: Path | None = None
    on_case: Callable[[SuiteResult, CaseResult], None] | None = None
    demo: bool = False


def select_cases(suite: Suite, globs: list[str]) -> list[Case]:
    if not globs:
        return list(suite.cases)
    return [c for c in suite.cases if any(fnmatch.fnmatchcase(c.id, g) for g in globs)]


def effective_thresholds(suite: Suite, options: RunOptions) -> Thresholds:
    return Thresholds(
        rubric=suite.thresholds.rubric if options.rubric_threshold is None else options.rubric_threshold,
        agreement=suite.thresholds.agreement if options.agreement_threshold is None else options.agreement_threshold)


def _env_tier(tier: str) -> str | None:
    return os.environ.get(TIER_ENV[tier], "").strip() or None


def target_model(suite: Suite, options: RunOptions) -> str:
    """--model, else the suite's model, its `high` tier, SYSTEM_AGENT_MODELS_HIGH, the default."""
    return (options.model or suite.model or suite.tiers.get("high") or _env_tier("high")
            or DEFAULT_TARGET_MODEL)


def judge_model(suite: Suite, options: RunOptions) -> str:
    """--judge-model, else the suite's judge_model, its `low` tier, SYSTEM_AGENT_MODELS_LOW, the default."""
    return (options.judge_model or suite.judge_model or suite.tiers.get("low") or _env_tier("low")
            or DEFAULT_JUDGE_MODEL)


class Runner:
    """Runs suites against one ModelClient; `run()` returns the Report."""

    def __init__(self, client: ModelClient, options: RunOptions | None = None):
        self.client = client
        self.options = options or RunOptions()
        self._jsonl = None

    async def run(self, suites: list[Suite]) -> Report:
        started, t0 = datetime.now(timezone.utc), time.perf_counter()
        # Synchronous targets run in threads of their own pool, as many as model calls in flight.
        pool = ThreadPoolExecutor(max_workers=self.client.concurrency + 4, thread_name_prefix="evalkit-target")
        pool_token = target_executor.set(pool)
        if self.options.jsonl_path:
            self.options.jsonl_path.parent.mkdir(parents=True, exist_ok=True)
            self._jsonl = self.options.jsonl_path.open("a", encoding="utf-8")
        try:
            results = await asyncio.gather(*(self.run_suite(s) for s in suites))
        finally:
            target_executor.reset(pool_token)
            pool.shutdown(wait=False, cancel_futures=True)
            if self._jsonl:
                self._jsonl.close()
        return self._report(list(results), started, time.perf_counter() - t0)

    def _report(self, results: list[SuiteResult], started: datetime, wall: float) -> Report:
        deprecated = self.client.deprecations()
        models = [ModelUse(model=m, roles=sorted(roles), usage=self.client.per_model.get(m, Usage()),
                           deprecated=deprecated.get(m)) for m, roles in sorted(self.client.models_used.items())]
        return Report(verdict=worst([r.verdict for r in results]), suites=results, usage=self.client.usage,
                      models=models, warnings=list(self.client.warnings),
                      started_at=started.isoformat(timespec="seconds"), wall_seconds=round(wall, 3),
                      demo=self.options.demo,
                      results_path=str(self.options.jsonl_path) if self.options.jsonl_path else None)

    async def run_suite(self, suite: Suite) -> SuiteResult:
        t0 = time.perf_counter()
        opts = self.options
        model = target_model(suite, opts)
        judge = judge_model(suite, opts)
        thresholds = effective_thresholds(suite, opts)
        result = SuiteResult(name=suite.name, path=str(suite.path), verdict="pass", thresholds=thresholds,
                             description=suite.description,
                             models={"target": model, "judge": judge})
        target_name = opts.target or (suite.target.function if suite.target and suite.target.function else None)
        try:
            if opts.target:
                fn = resolve_target(Target(function=opts.target), suite.dir)
            elif suite.target is None:
                raise EvalkitError("this suite names no target; pass --target module:function")
            else:
                fn = resolve_target(suite.target, suite.dir)
            result.target = target_name or suite.target.describe()  # type: ignore[union-attr]
        except EvalkitError as exc:
            result.error = str(exc)
            result.verdict = "error"
            return result
        tiers = {"high": model, "low": judge}
        if opts.model is None:
            tiers.update(suite.tiers)
        cases = select_cases(suite, opts.cases)
        done = await asyncio.gather(*(self._run_case(suite, case, fn, model, judge, tiers, thresholds,
                                                     result) for case in cases))
        result.cases = list(done)
        result.comparisons = [compare(c, suite, result.cases) for c in suite.comparisons
                              if _compared_cases_ran(c, result.cases)]
        for case in result.cases:
            result.usage.add(case.usage)
        result.verdict = suite_verdict(result)
        result.wall_seconds = round(time.perf_counter() - t0, 3)
        return result

    async def _run_case(self, suite: Suite, case: Case, fn: TargetFn, model: str, judge_model: str,
                        tiers: dict[str, str], thresholds: Thresholds, suite_result: SuiteResult) -> CaseResult:
        t0 = time.perf_counter()
        result = CaseResult(id=case.id, verdict="pass", line=case.line, description=case.description,
                            file=str(case.file) if case.file else None)
        if case.skip:
            result.verdict, result.reasons = "skipped", [case.skip]
        else:
            repeats = self.options.repeat or case.repeats
            runs = await asyncio.gather(*(self._run_once(suite, case, fn, r, model, judge_model, tiers,
                                                         result.usage) for r in range(repeats)))
            result.runs = list(runs)
            fields = {n: suite.fields[n] for n in case.fields}
            extracted = [r.fields for r in result.runs]
            if len(result.runs) > 1 and fields and all(f is not None for f in extracted):
                result.agreement, result.field_agreement = agreement(extracted, fields, suite.tolerance)  # type: ignore[arg-type]
            score_case(result)
            result.verdict, result.reasons = case_verdict(result, thresholds)
        result.wall_seconds = round(time.perf_counter() - t0, 3)
        self._emit(suite_result, result)
        return result

    def _emit(self, suite_result: SuiteResult, case: CaseResult) -> None:
        if self._jsonl is not None:
            line = {"suite": suite_result.name, "path": suite_result.path, "case": case.model_dump(mode="json")}
            self._jsonl.write(json.dumps(line) + "\n")
            self._jsonl.flush()
        if self.options.on_case:
            self.options.on_case(suite_result, case)

    async def _run_once(self, suite: Suite, case: Case, fn: TargetFn, repeat: int, model: str,
                        judge_model: str, tiers: dict[str, str], case_usage: Usage) -> RunResult:
        t0 = time.perf_counter()
        run = RunResult(repeat=repeat)
        client = self.client.bind(model=model, repeat=repeat, scopes=(case_usage,), max_tokens=suite.max_tokens,
                                  temperature=suite.temperature, tiers=tiers)
        try:
            produced = await fn(case.input, client)
        except ProviderError as exc:
            run.error = f"target's model call failed: {exc}"
        except Exception as exc:  # the system under test may raise anything: that is an error row
            run.error = f"target raised {type(exc).__name__}: {_one_line(exc)}"
        if run.error:
            run.wall_seconds = round(time.perf_counter() - t0, 3)
            return run
        facts: dict[str, Any] = {}
        if isinstance(produced, TargetResult):
            produced, facts = produced.output, dict(produced.facts)
        text = output_text(produced)
        run.output_chars = len(text)
        run.output = text if len(text) <= MAX_STORED_OUTPUT else (
            text[:MAX_STORED_OUTPUT] + f"\n[... {len(text) - MAX_STORED_OUTPUT} more characters not stored ...]")
        run.facts = _jsonable(facts)
        applicable, run.items = self._applicability(case, facts)
        judged = [it for it in applicable if it.judge is not None]
        fields_spec = {n: suite.fields[n] for n in case.fields}
        judge_task = judge(client, judge_model, text, {it.id: it.judge for it in judged},  # type: ignore[misc]
                           case_input=case.input, facts=facts) if judged else None
        extract_task = extract_fields(client, judge_model, text, fields_spec) if fields_spec else None
        verdicts, (fields, extract_error) = await asyncio.gather(
            judge_task if judge_task else _none(), extract_task if extract_task else _pair_none())
        run.fields, run.extraction_error = fields, extract_error
        ctx = CheckContext(output=produced, input=case.input, fields=fields, facts=facts, case_id=case.id,
                           suite_dir=suite.dir)
        decided = {r.id: r for r in run.items}
        for it in applicable:
            if it.judge is not None:
                decided[it.id] = judged_item(it, verdicts)
            elif it.check is not None and it.check.needs_fields and fields is None:
                decided[it.id] = _item(it, "error", extract_error or "no fields were extracted")
            else:
                decided[it.id] = decide_item(it, ctx)
        run.items = [decided[it.id] for it in case.items]
        run.wall_seconds = round(time.perf_counter() - t0, 3)
        return run

    def _applicability(self, case: Case, facts: dict[str, Any]) -> tuple[list[Item], list[ItemResult]]:
        """Items whose `when` holds; the others are recorded as not applicable (or error)."""
        applicable, recorded = [], []
        for it in case.items:
            if it.when is None:
                applicable.append(it)
                continue
            try:
                holds = condition_holds(it.when, input=case.input, facts=facts)
            except ValueError as exc:
                recorded.append(_item(it, "error", str(exc)))
                continue
            if holds:
                applicable.append(it)
            else:
                recorded.append(_item(it, "n/a", f"not applicable: {it.when}"))
        return applicable, recorded


async def _none() -> None:
    return None


async def _pair_none() -> tuple[None, None]:
    return None, None


def _item(it: Item, status: str, reason: str) -> ItemResult:
    return ItemResult(id=it.id, text=it.text, status=status, reason=reason,  # type: ignore[arg-type]
                      decided_by=it.decided_by, critical=it.critical, required=it.required)  # type: ignore[arg-type]


def judged_item(it: Item, outcome: Any) -> ItemResult:
    """The item's result from the judge's outcome (a JudgeOutcome, or None if never called)."""
    if outcome is None or outcome.error:
        return _item(it, "error", outcome.error if outcome else "judge not called")
    v = outcome.verdicts[it.id]
    return _item(it, v.verdict, v.reason)


def decide_item(it: Item, ctx: CheckContext) -> ItemResult:
    """Decide a code item; a check that raises is an error row, never a pass."""
    try:
        outcome = normalize(it.check.evaluate(ctx))  # type: ignore[union-attr]
    except Exception as exc:  # the check's own bug, or an output it cannot read
        return _item(it, "error", f"check raised {type(exc).__name__}: {_one_line(exc)}")
    status = "n/a" if outcome.passed is None else ("pass" if outcome.passed else "fail")
    return _item(it, status, outcome.reason)


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return text[:300] + ("…" if len(text) > 300 else "")


def _jsonable(value: Any) -> Any:
    return json.loads(json.dumps(value, default=str))


def _compared_cases_ran(cmp: CompareSpec, cases: list[CaseResult]) -> bool:
    ran = {c.id for c in cases}
    return all(ref.case is None or ref.case in ran for ref in (cmp.left, cmp.right))


_OPS: dict[str, Callable[[Any, Any], bool]] = {
    "<": lambda a, b: a < b, "<=": lambda a, b: a <= b, ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b, "==": lambda a, b: a == b, "!=": lambda a, b: a != b,
}


def compare(cmp: CompareSpec, suite: Suite, cases: list[CaseResult]) -> ComparisonResult:
    """Evaluate a check across cases on extracted fields (consensus over a case's runs)."""
    by_id = {c.id: c for c in cases}
    text = cmp.text or f"{_ref_name(cmp.left)} {cmp.op} {_ref_name(cmp.right)}"
    try:
        left, right = _ref_value(cmp.left, by_id), _ref_value(cmp.right, by_id)
    except LookupError as exc:
        return ComparisonResult(id=cmp.id, text=text, status="error", reason=str(exc))
    if left is None or right is None:
        missing = _ref_name(cmp.left) if left is None else _ref_name(cmp.right)
        return ComparisonResult(id=cmp.id, text=text, status="fail", reason=f"{missing} is not stated")
    try:
        if cmp.op == "within":
            ok = abs(left - right) <= cmp.tolerance * abs(right)
            detail = f"{left:g} vs {right:g} (±{cmp.tolerance:.0%})"
        else:
            ok = _OPS[cmp.op](left, right)
            detail = f"{left!r} {cmp.op} {right!r}"
    except TypeError:
        return ComparisonResult(id=cmp.id, text=text, status="error",
                                reason=f"cannot compare {left!r} with {right!r}")
    return ComparisonResult(id=cmp.id, text=text, status="pass" if ok else "fail", reason=detail)


def _ref_name(ref: FieldRef) -> str:
    if ref.case is None:
        return repr(ref.value)
    return f"{ref.case}.{ref.field or 'facts.' + str(ref.fact)}"


def _ref_value(ref: FieldRef, cases: dict[str, CaseResult]) -> Any:
    if ref.case is None:
        return ref.value
    case = cases[ref.case]
    runs = [r for r in case.runs if r.error is None]
    if not runs:
        raise LookupError(f"case {ref.case} has no successful run")
    if ref.fact is not None:
        if ref.fact not in runs[0].facts:
            raise LookupError(f"case {ref.case} has no fact {ref.fact!r}")
        return runs[0].facts[ref.fact]
    values = [r.fields.get(ref.field) for r in runs if r.fields is not None]  # type: ignore[arg-type]
    if not values:
        raise LookupError(f"case {ref.case}: field {ref.field} was not extracted")
    return consensus(values)
