"""Suite files as pytest items: one test per case (and per run of a repeated case), all cases of
a file run in one engine run, so their verdicts match `evalkit run`."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterator

import pytest

from evalkit.pytest_plugin.gold_tests import GoldItem

if TYPE_CHECKING:
    from evalkit.results.report import CaseResult, Report  # on use: the plugin loads in every pytest run

usage_key = pytest.StashKey[list[Any]]()


class EvalFailed(Exception):
    """A case's verdict was fail or error; the message lists every failing item."""


class EvalSuiteFile(pytest.File):
    """A suite file (or fixture list): one test per case, all run in one engine run."""

    suite: Any = None
    _report: Report | None = None
    _error: str | None = None

    def collect(self) -> Iterator[pytest.Item]:
        from evalkit.errors import SuiteError  # on use: the plugin loads in every pytest run
        from evalkit.suite import load_suite

        try:
            self.suite = load_suite(self.path)
        except SuiteError as exc:
            raise self.CollectError(f"evalkit: {exc}") from None
        for case in self.suite.cases:
            if case.repeats > 1:
                for r in range(case.repeats):
                    yield EvalCaseItem.from_parent(self, name=f"{case.id}[run{r + 1}]", case_id=case.id, repeat=r)
            yield EvalCaseItem.from_parent(self, name=case.id, case_id=case.id, repeat=None)
        for cmp in self.suite.comparisons:
            yield EvalCompareItem.from_parent(self, name=f"compare:{cmp.id}", case_id=cmp.id, repeat=None)
        for gold in self.suite.gold:
            yield GoldItem.from_parent(self, name=f"gold[{gold.where}]", suite=self.suite, gold=gold)

    def run_report(self) -> Report:
        """Run the file's selected cases through the engine, once; later items read the result."""
        if self._report is None and self._error is None:
            self._report, self._error = self._run()
        if self._error is not None:
            raise EvalFailed(self._error)
        assert self._report is not None
        return self._report

    def _run(self) -> tuple[Report | None, str | None]:
        from glob import escape  # case ids are passed to the runner as globs

        from evalkit.engine import (
            agent_client,  # on use: the plugin loads in every pytest run
            make_client,
            run,
        )
        from evalkit.errors import EvalkitError
        from evalkit.run.options import RunOptions

        config = self.config
        mine = [i for i in self.session.items if i.parent is self and isinstance(i, EvalCaseItem)]
        case_ids = sorted({i.case_id for i in mine if not isinstance(i, EvalCompareItem)})
        if not case_ids:  # only comparisons were selected: they need every case
            case_ids = [c.id for c in self.suite.cases]
        settings = agent_client.client_settings()
        if config.getoption("evalkit_no_cache"):
            settings["no_cache"] = True
        target = config.getoption("evalkit_target")
        options = RunOptions(
            target=target if target and self.suite.target is None else None, cases=[escape(cid) for cid in case_ids]
        )
        try:
            client = make_client(agent_client.provider(), **settings)
            report = run([self.suite], client, options)
        except EvalkitError as exc:
            return None, f"evalkit: {exc}"
        config.stash[usage_key].append(report.usage)
        suite_result = report.suites[0]
        if suite_result.error:
            hint = (
                ""
                if target or self.suite.target
                else (
                    "; give this fixture list a target with --evalkit-target module:function, "
                    "or run a *.suite.yml that names it in `cases:`"
                )
            )
            return None, f"evalkit: {suite_result.error}{hint}"
        return report, None


class EvalCaseItem(pytest.Item):
    """One case of a suite file (or one run of a repeated case)."""

    def __init__(self, *, case_id: str, repeat: int | None, **kwargs: Any):
        super().__init__(**kwargs)
        self.case_id = case_id
        self.repeat = repeat
        self.add_marker("eval")

    @property
    def suite_file(self) -> EvalSuiteFile:
        assert isinstance(self.parent, EvalSuiteFile)
        return self.parent

    def _case(self) -> CaseResult:
        report = self.suite_file.run_report()
        for case in report.suites[0].cases:
            if case.id == self.case_id:
                return case
        raise EvalFailed(f"case {self.case_id} did not run")

    def runtest(self) -> None:
        from evalkit.pytest_plugin.helpers import format_failures  # on use: the plugin loads in every pytest run

        case = self._case()
        if case.verdict == "skipped":
            pytest.skip("; ".join(case.reasons) or "skipped by the suite")
        if case.verdict == "not_run":  # the run's budget stopped it first: never a pass
            raise EvalFailed(f"case {case.id}: " + "; ".join(case.reasons))
        if self.repeat is not None:
            run = case.runs[self.repeat]
            failing = [
                i for i in run.items if i.status == "error" or (i.status == "fail" and (i.required or i.critical))
            ]
            errors = run.run_errors()
            # The runner's own verdict of this run (the case's gates applied to it alone, rubric threshold
            # included); results older than it: the checks, critical items and errors.
            passed = run.passed if run.passed is not None else not (failing or errors)
            if not passed:
                if not (failing or errors):  # the rubric's pass rate fell below the threshold
                    failing = [i for i in run.items if i.status == "fail"]
                header = f"run {self.repeat + 1} of case {case.id} failed" + "".join(f"\n  ERROR {e}" for e in errors)
                raise EvalFailed(
                    format_failures(failing, len(run.items), run.output, header=header) if failing else header
                )
            return
        if case.verdict == "pass" or (
            case.verdict == "inconclusive" and self.suite_file.run_report().suites[0].inconclusive != "fail"
        ):
            return
        failing = []
        for repeat, item in case.failing_items():
            label = f"run{repeat + 1} {item.id}" if len(case.runs) > 1 else item.id
            failing.append(item.model_copy(update={"id": label}))
        output = next((r.output for r in case.runs if r.error is None), None)
        header = f"{case.verdict.upper()}: case {case.id}: " + "; ".join(case.reasons)
        run_errors = [e for r in case.runs for e in r.run_errors()]
        header += "".join(f"\n  ERROR {e}" for e in run_errors)
        raise EvalFailed(format_failures(failing, sum(len(r.items) for r in case.runs), output, header=header))

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        if isinstance(excinfo.value, EvalFailed):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style=style)

    def reportinfo(self) -> tuple[Path, int | None, str]:
        line = None
        if self.suite_file.suite is not None:
            case = next((c for c in self.suite_file.suite.cases if c.id == self.case_id), None)
            line = (case.line - 1) if case is not None and case.line else None
        return self.path, line, self.name


class EvalCompareItem(EvalCaseItem):
    """A suite's `compare:` check across cases."""

    def runtest(self) -> None:
        report = self.suite_file.run_report()
        found = next((c for c in report.suites[0].comparisons if c.id == self.case_id), None)
        if found is None:
            pytest.skip("the cases it compares were not selected")
        if found.status == "n/a":
            pytest.skip(found.reason)
        if found.status != "pass":
            raise EvalFailed(f"{found.status.upper()}: compare {found.id} ({found.text}): {found.reason}")
