"""Async orchestration: every run of every case, bounded by the client's concurrency, each
finished case appended to a JSONL file at once so an interrupted run loses nothing."""

from __future__ import annotations

import asyncio
import json
import tempfile
import time
from dataclasses import replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from evalkit._runtime import gc_pause, queue_time
from evalkit._runtime.user_calls import user_traceback
from evalkit.errors import EvalkitError, IncompleteRun
from evalkit.llm import model_lifecycle
from evalkit.llm.budget import Budget
from evalkit.llm.client import ModelClient
from evalkit.llm.paid import PaidLedger
from evalkit.llm.usage import Usage
from evalkit.results import provenance
from evalkit.results.agreement import agreement
from evalkit.results.consistency import run_passes
from evalkit.results.gates import case_scores, case_verdict, suite_verdict, worst
from evalkit.results.reader import Scan, carry_over, load_report, prior_totals, scan_results
from evalkit.results.report import (
    NOT_RUN_BUDGET,
    BudgetUse,
    CaseResult,
    ModelUse,
    RateLimitUse,
    Report,
    RunResult,
    SuiteResult,
)
from evalkit.results.stream import ResultsWriter, RunLock, SessionTotals, SuiteTally, new_run_id, tally_for
from evalkit.run.case_ends import ended_words, jsonable, stopping
from evalkit.run.case_queue import run_windowed, window_for
from evalkit.run.model_fit import refuse_unfit
from evalkit.run.options import RunOptions, effective_thresholds, run_budget
from evalkit.run.scored_run import RunScorer
from evalkit.run.sharding import shard_members
from evalkit.run.stored import stored_traceback
from evalkit.run.targets import CaseTarget, resolve_target
from evalkit.run.user_code import UserCode, WorkerTarget
from evalkit.scoring.items import compare_cases
from evalkit.suite.calibration import calibration_note
from evalkit.suite.model import Case, Suite, Target
from evalkit.suite.spec import Thresholds


class Runner:
    """Runs suites against one ModelClient; `run()` returns the Report."""

    def __init__(self, client: ModelClient, options: RunOptions | None = None):
        self.client = client
        self.options = options or RunOptions()
        self._out: ResultsWriter | None = None
        self._prior: Scan | None = None  # what an interrupted run had finished (--resume)
        self._tallies: dict[int, SuiteTally] = {}
        self._window = window_for(self.client.concurrency, batched=client.batcher is not None)
        self._shard_members: set[tuple[str, str]] | None = None
        self._user: UserCode = UserCode(threads=1)  # replaced by each run's (see _stream)
        self._scorer = RunScorer(self._user, target_overridden=False)  # likewise
        self._lock: RunLock | None = None
        self._planned: dict[int, tuple[str, int]] = {}  # id(SuiteResult) -> (suite, cases it must have)

    @property
    def _writer(self) -> ResultsWriter:
        assert self._out is not None, "the results stream is opened before the suites run"
        return self._out

    async def run(self, suites: list[Suite]) -> Report:
        """The whole Report, every case read back from the JSONL (a spool file when none is asked for)."""
        if self.options.jsonl_path is not None:
            await self.run_summary(suites)
            return load_report(self.options.jsonl_path)
        with tempfile.TemporaryDirectory(prefix="evalkit-run-") as spool:
            self.options = replace(self.options, jsonl_path=Path(spool) / "results.jsonl")
            try:
                await self.run_summary(suites)
                report = load_report(Path(spool) / "results.jsonl")
            finally:
                self.options = replace(self.options, jsonl_path=None)
        return report.model_copy(update={"results_path": None})

    async def run_summary(self, suites: list[Suite]) -> Report:
        """Run, streaming each finished case to the JSONL and keeping only a tally per suite: the
        Report returned has no cases (`results_reader` reads them back)."""
        with gc_pause.run_heap():
            return await self._stream(suites)

    async def _stream(self, suites: list[Suite]) -> Report:
        assert self.options.jsonl_path is not None, "run_summary streams to options.jsonl_path"
        # A retired model fails the whole run here, before any call (exit 2 at the front door).
        model, judge_model = self.options.model, self.options.judge_model
        model_lifecycle.refuse_retired(
            model_lifecycle.suite_models(suites, model, judge_model),
            self.client.deprecations(),
            judge_only=model_lifecycle.judge_only_models(suites, model, judge_model),
        )
        # So does a setting a model refuses, or a judge model evalkit cannot ask (evalkit/run/model_fit.py).
        refuse_unfit(suites, model, judge_model, self.client.capabilities.of)
        started, t0 = datetime.now(timezone.utc), time.perf_counter()
        if self.options.shard:
            self._shard_members = shard_members(suites, self.options.shard, self.options.cases, self.options.repeat)
        # Callable targets and plugins' checks run in worker processes (evalkit/run/user_code.py): what
        # they do to their process cannot end this one. Synchronous targets get as many threads
        # there as model calls in flight.
        self._user = UserCode(threads=self.client.concurrency + 4, warn=self.client.warn)
        self._scorer = RunScorer(self._user, target_overridden=bool(self.options.target))
        limit = run_budget(suites, self.options)
        if limit is not None and self.client.budget is None:
            self.client.budget = Budget(limit)  # asked by the client before every call it sends
        self._open_stream(suites, started)
        summary = None
        try:
            results = await asyncio.gather(*(self.run_suite(s) for s in suites))
            if self.client.stopped is not None:  # not a verdict: the front door says why, in one line
                raise self.client.stopped.error()
            self._check_count(list(results))
            summary = self._with_prior(self._report(list(results), started, time.perf_counter() - t0, suites))
            self._writer.end(summary)
        finally:
            await self._user.close()
            if summary is None:  # stopped (Ctrl-C, SIGTERM, an error): what this session spent
                self._writer.event(
                    stopped=self._session(self._report([], started, time.perf_counter() - t0, suites)).to_json()
                )
            self._writer.close()
            self.client.track_paid(None)  # this session's totals are in the JSONL now
            if self._lock is not None:
                self._lock.release()
        return summary

    def _open_stream(self, suites: list[Suite], started: datetime) -> None:
        path = self.options.jsonl_path
        assert path is not None
        self._lock = RunLock.take(path)  # a second run on the same output is refused (exit 2), never mixed in
        self.client.track_paid(PaidLedger(path), resume=self.options.resume)
        if self.options.resume:
            self._prior = scan_results(path)
            self._out = ResultsWriter(path, str(self._prior.run_id), keep_bytes=self._prior.size)
            self._writer.event(resumed={"started_at": started.isoformat(timespec="seconds")})
            return
        self._out = ResultsWriter(path, new_run_id())
        o = self.options
        options = {
            **self._recorded_options(),
            "shard": str(o.shard) if o.shard else None,
            "inconclusive": o.inconclusive,
            "demo": o.demo,
        }
        self._writer.header(
            started.isoformat(timespec="seconds"),
            [str(s.path) for s in suites],
            options,
            provenance.collect(suites, self._recorded_options(), []).model_dump(mode="json"),
        )

    @staticmethod
    def _session(report: Report) -> SessionTotals:
        return SessionTotals(
            usage=report.usage,
            models=report.models,
            rate_limit=report.rate_limit,
            warnings=report.warnings,
            wall_seconds=report.wall_seconds,
        )

    def _with_prior(self, summary: Report) -> Report:
        """The run's summary with what earlier sessions of a resumed run spent added."""
        summary.run_id = self._out.run_id if self._out else None
        if self._prior is None:
            return summary
        total = prior_totals(self._prior)
        total.add(self._session(summary))
        started = (self._prior.header or {}).get("started_at") or summary.started_at
        return summary.model_copy(
            update={
                "usage": total.usage,
                "models": total.models,
                "warnings": total.warnings,
                "rate_limit": total.rate_limit,
                "started_at": started,
                "wall_seconds": round(total.wall_seconds, 3),
            }
        )

    def _report(self, results: list[SuiteResult], started: datetime, wall: float, suites: list[Suite]) -> Report:
        deprecated = self.client.deprecations()
        models = [
            ModelUse(
                model=m, roles=sorted(roles), usage=self.client.per_model.get(m, Usage()), deprecated=deprecated.get(m)
            )
            for m, roles in sorted(self.client.models_used.items())
        ]
        return Report(
            verdict=worst([r.verdict for r in results]),
            suites=results,
            usage=self.client.usage,
            models=models,
            warnings=list(self.client.warnings),
            started_at=started.isoformat(timespec="seconds"),
            wall_seconds=round(wall, 3),
            demo=self.options.demo,
            results_path=str(self.options.jsonl_path) if self.options.jsonl_path else None,
            provenance=provenance.collect(suites, self._recorded_options(), self.client.models_used),
            shard=str(self.options.shard) if self.options.shard else None,
            rate_limit=RateLimitUse(**vars(self.client.limiter.stats)),
            budget=self._budget_use(results),
        )

    def _budget_use(self, results: list[SuiteResult]) -> BudgetUse | None:
        budget = self.client.budget
        if budget is None:
            return None
        return BudgetUse(
            limit_usd=budget.limit,
            spent_usd=round(budget.spent, 6),
            stopped=budget.stopped,
            not_run=sum(r.count("not_run") for r in results),
        )

    def _recorded_options(self) -> dict[str, Any]:
        o = self.options
        return {
            "target": o.target,
            "cases": o.cases,
            "model": o.model,
            "judge_model": o.judge_model,
            "repeat": o.repeat,
            "rubric_threshold": o.rubric_threshold,
            "agreement_threshold": o.agreement_threshold,
            "concurrency": self.client.concurrency,
        }

    async def run_suite(self, suite: Suite) -> SuiteResult:
        t0 = time.perf_counter()
        opts = self.options
        tiers = suite.tier_models(opts.model, opts.judge_model)
        model, judge = tiers["high"], tiers["low"]
        thresholds = effective_thresholds(suite, opts)
        result = SuiteResult(
            name=suite.name,
            path=str(suite.path),
            verdict="pass",
            thresholds=thresholds,
            description=suite.description,
            calibration=calibration_note(suite),
            inconclusive=opts.inconclusive or suite.inconclusive,
            models={"target": model, "judge": judge},
        )
        target_name = opts.target or (suite.target.function if suite.target and suite.target.function else None)
        try:
            if opts.target:
                target = resolve_target(Target(function=opts.target), suite.dir)
            elif suite.target is None:
                raise EvalkitError("this suite names no target; pass --target module:function")
            else:
                target = resolve_target(suite.target, suite.dir)
            if target_name:  # user code: called in a worker process (resolved here too, for a clear error)
                target = WorkerTarget(target_name, suite.dir, self._user, takes_messages=target.takes_messages)
            if opts.wrap_target is not None:
                target = opts.wrap_target(suite, target)
            result.target = target.name
        except EvalkitError as exc:
            result.error = str(exc)
            result.verdict = "error"
            self._writer.event(suite_start=json.loads(result.model_dump_json()), planned=0)
            return result
        cases = suite.select(opts.cases)
        if self._shard_members is not None:
            cases = [c for c in cases if (str(suite.path), c.id) in self._shard_members]
        self._writer.event(suite_start=json.loads(result.model_dump_json()), planned=len(cases))
        tally = self._tallies[id(result)] = tally_for(suite)
        if self._prior is not None:
            carry_over(self._prior, str(suite.path), tally)
        await run_windowed(
            [c for c in cases if c.id not in tally.finished],
            lambda case: self._guarded_case(
                suite, case, target, model, judge_model=judge, tiers=tiers, thresholds=thresholds, suite_result=result
            ),
            self._window,
        )
        self._planned[id(result)] = (result.name, len(cases))
        # A shard may lack cases a check across cases needs: `evalkit merge` computes them all.
        result.comparisons = [] if opts.shard else compare_cases(suite, list(tally.kept.values()))
        tally.close(result)
        result.verdict = suite_verdict(result)
        result.wall_seconds = round(time.perf_counter() - t0, 3)
        return result

    async def _guarded_case(
        self,
        suite: Suite,
        case: Case,
        target: CaseTarget,
        model: str,
        *,
        judge_model: str,
        tiers: dict[str, str],
        thresholds: Thresholds,
        suite_result: SuiteResult,
    ) -> None:
        """`_run_case`, whose task never ends without the case's row: a cancellation raised inside it
        (not the run's stop) or another BaseException is an error row naming it."""
        t0 = time.perf_counter()
        try:
            await self._run_case(
                suite,
                case,
                target,
                model,
                judge_model=judge_model,
                tiers=tiers,
                thresholds=thresholds,
                suite_result=suite_result,
            )
        except BaseException as exc:
            if isinstance(exc, (Exception, KeyboardInterrupt, SystemExit)) or stopping():
                raise
            if case.id in self._tallies[id(suite_result)].finished:
                return  # its row is written: what ended the task came after
            self._emit(
                suite_result,
                CaseResult(
                    id=case.id,
                    line=case.line,
                    description=case.description,
                    file=str(case.file) if case.file else None,
                    input=jsonable(case.input),
                    verdict="error",
                    wall_seconds=round(time.perf_counter() - t0, 3),
                    reasons=[ended_words(f"case {case.id}", exc)],
                ),
            )

    def _check_count(self, results: list[SuiteResult]) -> None:
        """Every planned case has its row, or the run is evalkit's fault (exit 3), never a verdict."""
        for result in results:
            name, planned = self._planned.get(id(result), (result.name, 0))
            tally = self._tallies.get(id(result))
            done = len(tally.finished) if tally is not None else 0
            if done < planned:
                raise IncompleteRun(
                    f"suite {name}: {done} of its {planned} planned cases have a result; the run is not a verdict"
                )

    async def _run_case(
        self,
        suite: Suite,
        case: Case,
        target: CaseTarget,
        model: str,
        *,
        judge_model: str,
        tiers: dict[str, str],
        thresholds: Thresholds,
        suite_result: SuiteResult,
    ) -> CaseResult:
        t0 = time.perf_counter()
        clock = queue_time.CaseClock()
        clock_token = queue_time.current.set(clock)  # the case's calls count their waits for a slot on it
        usage = Usage()
        # The result is built once its values are known: a pydantic field assigned afterwards costs
        # ten times a value passed to the constructor, and a case's result has a dozen of them.
        scored: dict[str, Any] = {"verdict": "pass"}
        budget = self.client.budget
        refused: list[int] = []  # repeats whose calls the budget refused
        if case.skip:
            scored.update(verdict="skipped", reasons=[case.skip])
        elif budget is not None and budget.stopped:  # the budget stopped the run before this case started
            scored.update(verdict="not_run", reasons=[f"{NOT_RUN_BUDGET}: {budget.stopped}"])
        elif self.client.stopped is not None:  # a refusal every case would meet stopped the run
            scored.update(verdict="not_run", reasons=["not run: the run stopped at a refusal before this case"])
        else:
            repeats = self.options.repeat or case.repeats
            pending = [
                self._run_once(
                    suite,
                    case,
                    target,
                    r,
                    model=model,
                    judge_model=judge_model,
                    tiers=tiers,
                    case_usage=usage,
                    refused=refused,
                )
                for r in range(repeats)
            ]
            runs = [await pending[0]] if repeats == 1 else list(await asyncio.gather(*pending))
            for run in runs:  # each run's own verdict: pass@k and pass^k are read from these
                run.passed = run_passes(run, thresholds)
            scored.update(case_scores(runs), runs=runs)
            if refused:  # started, but a call it needed was not sent (a refusal or the budget stopped the run)
                scored.update(
                    verdict="not_run",
                    reasons=[
                        "not run: the run stopped at a refusal during this case"
                        if self.client.stopped is not None
                        else f"{NOT_RUN_BUDGET}: the budget stopped "
                        f"the run during this case ({budget.stopped if budget else ''})"
                    ],
                )
            fields = case.field_specs(suite.fields)  # a conversation's turns' too, as `turn N.<field>`
            extracted = [r.fields for r in runs if r.fields is not None]
            if len(runs) > 1 and fields and len(extracted) == len(runs):
                scored["agreement"], scored["field_agreement"] = agreement(
                    extracted, fields, suite.tolerance, suite.missing
                )
        queue_time.current.reset(clock_token)
        # The case's own time; the queue wait is reported apart (it grows with the run, not the case).
        result = CaseResult(
            id=case.id,
            line=case.line,
            description=case.description,
            file=str(case.file) if case.file else None,
            input=jsonable(case.input),
            usage=usage,
            queue_seconds=round(clock.queued, 3),
            wall_seconds=round(max(time.perf_counter() - t0 - clock.queued, 0.0), 3),
            **scored,
        )
        if scored["verdict"] == "pass":  # not skipped, nor stopped by the budget: the gates decide
            result.verdict, result.reasons = case_verdict(result, thresholds, case.pass_all)
        self._emit(suite_result, result)
        return result

    def _emit(self, suite_result: SuiteResult, case: CaseResult) -> None:
        tally = self._tallies[id(suite_result)]
        case = self._writer.case(suite_result, tally.order[case.id], case)
        tally.add(case)
        if self.options.on_case:
            self.options.on_case(suite_result, case)

    async def _run_once(
        self,
        suite: Suite,
        case: Case,
        target: CaseTarget,
        repeat: int,
        *,
        model: str,
        judge_model: str,
        tiers: dict[str, str],
        case_usage: Usage,
        refused: list[int] | None = None,
    ) -> RunResult:
        t0 = time.perf_counter()
        client = self.client.bind(
            model=model,
            repeat=repeat,
            scopes=(case_usage,),
            max_tokens=suite.max_tokens,
            temperature=suite.temperature,
            tiers=tiers,
        )
        stage = ["the target"]  # what the run was doing, for a cancellation's error row
        try:
            return await self._scorer.run(
                suite, case, target, repeat, judge_model=judge_model, client=client, t0=t0, stage=stage
            )
        except BaseException as exc:
            if isinstance(exc, (Exception, KeyboardInterrupt, SystemExit)) or stopping():
                raise  # evalkit's own bug (exit 3), or Ctrl-C / SIGTERM: `--resume` runs the case again
            # A cancellation (or another BaseException) raised inside the run, by agent code's own task
            # or a validator: an error row naming it, never a case that silently vanishes.
            return RunResult(
                repeat=repeat,
                target_requests=client.target_requests,
                wall_seconds=round(time.perf_counter() - t0, 3),
                error=ended_words(f"case {case.id}'s run, in {stage[0]},", exc),
                traceback=stored_traceback(user_traceback(exc)),
            )
        finally:
            if client.refused and refused is not None:
                refused.append(repeat)
