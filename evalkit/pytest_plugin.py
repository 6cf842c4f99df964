"""evalkit's pytest plugin (loaded through the `pytest11` entry point when evalkit is installed).

The `eval` marker
    `@pytest.mark.eval` marks a test that calls a real model. `@pytest.mark.eval(models={"high":
    ..., "low": ...})` (or a module's `pytestmark`) overrides the model tiers for those tests.

Which eval tests run — ini option `evalkit_evals`, flag `--evalkit-evals`:
    auto (default)  Eval tests are deselected unless asked for. You ask for them when your `-m`
                    expression names `eval` (`-m eval`, `-m "eval and not slow"`; `-m "not eval"`
                    then deselects them — `-m` alone decides), or when a command-line argument
                    names them: a node id (`test_x.py::test_y[case]`) or a file or folder whose
                    collected tests are all evals (`pytest tests/llm_eval/`). `pytest` alone, or a
                    folder that mixes unit tests and evals, runs the unit tests only.
    deselect        Eval tests run only when the `-m` expression names `eval`.
    keep            Eval tests are never deselected.

Skipping
    An eval test skips, with the reason, when no model can be called: ANTHROPIC_API_KEY is not
    set (and no provider was configured with `evalkit.runtime.configure`), or
    SYSTEM_AGENT_MODELS_HIGH / SYSTEM_AGENT_MODELS_LOW is set but empty.

Suite files as tests
    `suite.yml`, `suite.yaml`, `*.suite.yml` and `*.suite.yaml` found while collecting, and any
    YAML suite or fixture list named on the command line, become eval tests: one per case, named
    with the case id (and, for a case with repeats, one per run plus one for the case's verdict).
    They run through the same engine as `evalkit run`, one engine run per file, so the verdicts
    match the CLI's. `--evalkit-target module:function` gives a target to fixture lists that
    name none; `--evalkit-no-cache` bypasses the response cache.

Imports stay light: this module imports nothing heavier than pytest; anthropic, jinja2 and the
engine are imported only when an eval runs.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterator

import pytest

if TYPE_CHECKING:
    from evalkit.report import CaseResult, Report

SUITE_SUFFIXES = (".suite.yml", ".suite.yaml")
SUITE_NAMES = ("suite.yml", "suite.yaml")
MODES = ("auto", "deselect", "keep")
_MENTIONS_EVAL = re.compile(r"(?<![\w.])eval(?![\w.])")

_deselected_key = pytest.StashKey[int]()
_explicit_key = pytest.StashKey["set[Path]"]()
_usage_key = pytest.StashKey[list]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("evalkit", "evalkit LLM evaluations")
    group.addoption("--evalkit-evals", choices=MODES, default=None,
                    help="Which eval tests run: auto (default: when asked for by -m eval or by "
                         "naming them), deselect (only with -m eval), keep (always).")
    group.addoption("--evalkit-target", default=None, metavar="MODULE:FUNCTION",
                    help="Target for collected fixture lists that name none.")
    group.addoption("--evalkit-no-cache", action="store_true", default=False,
                    help="Call the model even when a cached reply exists (suite files).")
    parser.addini("evalkit_evals", "Which eval tests run: auto, deselect or keep (see --evalkit-evals).",
                  default="auto")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "eval: an LLM evaluation (deselected unless asked for: -m eval, or name its folder; "
                   "skipped without a model key)")
    config.stash[_deselected_key] = 0
    config.stash[_usage_key] = []


def pytest_unconfigure(config: pytest.Config) -> None:
    runtime = sys.modules.get("evalkit.runtime")
    if runtime is not None:
        runtime.shutdown()


def _mode(config: pytest.Config) -> str:
    mode = config.getoption("evalkit_evals") or config.getini("evalkit_evals") or "auto"
    if mode not in MODES:
        raise pytest.UsageError(f"evalkit_evals = {mode!r}; choose one of {', '.join(MODES)}")
    return mode


def _command_line_args(config: pytest.Config) -> list[str]:
    # Arguments the user typed; `testpaths` from the ini file are not a request for evals.
    return list(config.args) if config.args_source == pytest.Config.ArgsSource.ARGS else []


def _arg_path(config: pytest.Config, arg: str) -> Path:
    return (config.invocation_params.dir / arg.split("::", 1)[0]).resolve()


def _explicit_files(config: pytest.Config) -> set[Path]:
    if _explicit_key not in config.stash:
        config.stash[_explicit_key] = {_arg_path(config, a) for a in _command_line_args(config)}
    return config.stash[_explicit_key]


# -- selection ----------------------------------------------------------------------------------

def _is_eval(item: pytest.Item) -> bool:
    return item.get_closest_marker("eval") is not None


def _asked_for(config: pytest.Config, items: list[pytest.Item]) -> set[str]:
    """Node ids of the eval items a command-line argument names (auto mode)."""
    asked: set[str] = set()
    for arg in _command_line_args(config):
        path = _arg_path(config, arg)
        if "::" in arg:
            rest = "::" + arg.split("::", 1)[1]
            asked.update(i.nodeid for i in items if i.path == path and rest in i.nodeid)
            continue
        under = [i for i in items if i.path == path or path in i.path.parents]
        if under and all(_is_eval(i) for i in under):
            asked.update(i.nodeid for i in under)
    return asked


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config,
                                  items: list[pytest.Item]) -> None:
    mode = _mode(config)
    if mode == "keep" or _MENTIONS_EVAL.search(config.option.markexpr or ""):
        return
    asked = _asked_for(config, items) if mode == "auto" else set()
    kept = [i for i in items if not _is_eval(i) or i.nodeid in asked]
    if len(kept) == len(items):
        return
    deselected = [i for i in items if i not in kept]
    config.hook.pytest_deselected(items=deselected)
    items[:] = kept
    config.stash[_deselected_key] += len(deselected)


# -- skipping and per-suite model tiers ----------------------------------------------------------

def pytest_runtest_setup(item: pytest.Item) -> None:
    if not _is_eval(item):
        return
    from evalkit import runtime

    reason = runtime.unavailable_reason()
    if reason:
        pytest.skip(f"evalkit: {reason}")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    models: dict[str, str] = {}
    for marker in reversed(list(item.iter_markers("eval"))):  # the closest marker wins
        models.update(marker.kwargs.get("models") or {})
    if not models:
        return (yield)
    from evalkit import runtime

    with runtime.use_models(**models):
        return (yield)


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    n = config.stash.get(_deselected_key, 0)
    if n:
        terminalreporter.write_line(
            f"evalkit: {n} eval test{'s' if n != 1 else ''} deselected; run them with `-m eval` "
            f"(or name their folder or file)")
    usages = list(config.stash.get(_usage_key, []))
    runtime = sys.modules.get("evalkit.runtime")
    if runtime is not None and runtime.usage() is not None:
        usages.append(runtime.usage())
    if usages:
        calls = sum(u.calls for u in usages)
        hits = sum(u.cache_hits for u in usages)
        tokens = sum(u.input_tokens + u.output_tokens for u in usages)
        cost = sum(u.cost_usd for u in usages)
        terminalreporter.write_line(f"evalkit: {calls} model calls, {hits} cache hits, {tokens:,} tokens, "
                                    f"${cost:.4f}")


# -- suite files as tests -----------------------------------------------------------------------

def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    name = file_path.name
    if not name.endswith((".yml", ".yaml")):
        return None
    if name in SUITE_NAMES or name.endswith(SUITE_SUFFIXES) or \
            file_path.resolve() in _explicit_files(parent.config):
        return EvalSuiteFile.from_parent(parent, path=file_path)
    return None


class EvalFailed(Exception):
    """A case's verdict was fail or error; the message lists every failing item."""


class EvalSuiteFile(pytest.File):
    """A suite file (or fixture list): one test per case, all run in one engine run."""

    suite: Any = None
    _report: Report | None = None
    _error: str | None = None

    def collect(self) -> Iterator[pytest.Item]:
        from evalkit.errors import SuiteError
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

        from evalkit import runtime
        from evalkit.engine import make_client, run
        from evalkit.errors import EvalkitError
        from evalkit.runner import RunOptions

        config = self.config
        mine = [i for i in self.session.items if i.parent is self and isinstance(i, EvalCaseItem)]
        case_ids = sorted({i.case_id for i in mine if not isinstance(i, EvalCompareItem)})
        if not case_ids:  # only comparisons were selected: they need every case
            case_ids = [c.id for c in self.suite.cases]
        settings = runtime.client_settings()
        if config.getoption("evalkit_no_cache"):
            settings["no_cache"] = True
        target = config.getoption("evalkit_target")
        options = RunOptions(target=target if target and self.suite.target is None else None,
                             cases=[escape(cid) for cid in case_ids])
        try:
            client = make_client(runtime.provider(), **settings)
            report = run([self.suite], client, options)
        except EvalkitError as exc:
            return None, f"evalkit: {exc}"
        config.stash[_usage_key].append(report.usage)
        suite_result = report.suites[0]
        if suite_result.error:
            hint = "" if target or self.suite.target else (
                "; give this fixture list a target with --evalkit-target module:function, "
                "or run a *.suite.yml that names it in `cases:`")
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
        from evalkit.helpers import format_failures

        case = self._case()
        if case.verdict == "skipped":
            pytest.skip("; ".join(case.reasons) or "skipped by the suite")
        if self.repeat is not None:
            run = case.runs[self.repeat]
            failing = [i for i in run.items if i.status == "error" or (
                i.status == "fail" and (i.required or i.critical))]
            errors = run.run_errors()
            if failing or errors:
                header = f"run {self.repeat + 1} of case {case.id} failed" + \
                         "".join(f"\n  ERROR {e}" for e in errors)
                raise EvalFailed(format_failures(failing, len(run.items), run.output, header=header)
                                 if failing else header)
            return
        if case.verdict == "pass":
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
