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
    set (and no provider was configured with `evalkit.engine.agent_client.configure`), or
    SYSTEM_AGENT_MODELS_HIGH / SYSTEM_AGENT_MODELS_LOW is set but empty.

Suite files as tests
    `suite.yml`, `suite.yaml`, `*.suite.yml` and `*.suite.yaml` found while collecting, and any
    YAML suite or fixture list named on the command line, become eval tests: one per case, named
    with the case id (and, for a case with repeats, one per run plus one for the case's verdict).
    They run through the same engine as `evalkit run`, one engine run per file, so the verdicts
    match the CLI's. `--evalkit-target module:function` gives a target to fixture lists that
    name none; `--evalkit-no-cache` bypasses the response cache.

Secrets
    An eval test's report — its failure text, captured output and properties, what the terminal
    and `--junitxml` show — has the values of `ANTHROPIC_API_KEY` and of every `*_TOKEN`, `*_KEY`,
    `*_SECRET`, `*PASSWORD*` variable of the session's environment (8 characters or more) replaced
    by `[redacted NAME]`, as the `evalkit` command's outputs do.

Imports stay light: this module imports nothing heavier than pytest; anthropic, jinja2 and the
engine are imported only when an eval runs.
"""

from __future__ import annotations

# What other rooms use of the plugin (evalkit re-exports them). Only `__getattr__` is lazy here: pytest
# finds the plugin's hooks with dir() on this module, which must list them.
__all__ = ["llm_judge", "load_fixtures", "run_checks"]

import os
import sys
from pathlib import Path
from typing import Any, Iterator

import pytest

from evalkit._runtime.redaction import labelled, redact_text
from evalkit.pytest_plugin.items import EvalSuiteFile, usage_key
from evalkit.pytest_plugin.selection import MODES, deselect_unasked, deselected_key, explicit_files, is_eval
from evalkit.suite.files import is_suite_file

# The helpers (`load_fixtures`, `llm_judge`, `run_checks`) live in `evalkit.pytest_plugin.helpers`
# and are imported from `evalkit`; importing them here would load pydantic into every pytest run:
# `__getattr__` loads them on first use.


def __getattr__(name: str) -> object:
    if name in __all__:
        from evalkit.pytest_plugin import helpers

        return getattr(helpers, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("evalkit", "evalkit LLM evaluations")
    group.addoption(
        "--evalkit-evals",
        choices=MODES,
        default=None,
        help="Which eval tests run: auto (default: when asked for by -m eval or by "
        "naming them), deselect (only with -m eval), keep (always).",
    )
    group.addoption(
        "--evalkit-target",
        default=None,
        metavar="MODULE:FUNCTION",
        help="Target for collected fixture lists that name none.",
    )
    group.addoption(
        "--evalkit-no-cache",
        action="store_true",
        default=False,
        help="Call the model even when a cached reply exists (suite files).",
    )
    parser.addini(
        "evalkit_evals", "Which eval tests run: auto, deselect or keep (see --evalkit-evals).", default="auto"
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "eval: an LLM evaluation (deselected unless asked for: -m eval, or name its folder; "
        "skipped without a model key)",
    )
    config.stash[deselected_key] = 0
    config.stash[usage_key] = []
    config.stash[secrets_key] = labelled(os.environ)  # as the session started, before any test changed it


secrets_key = pytest.StashKey[dict[str, str]]()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    """An eval test's report with the session's secrets replaced, before the terminal or JUnit XML
    reads it: its failure text, captured output and properties."""
    report: Any = yield
    secrets = item.config.stash.get(secrets_key, {})
    if secrets and (is_eval(item) or isinstance(item.parent, EvalSuiteFile)):
        redact_report(report, secrets)
    return report  # type: ignore[no-any-return]  # pytest's wrapper hands the TestReport back untyped


def redact_report(report: pytest.TestReport, secrets: dict[str, str]) -> None:
    if isinstance(report.longrepr, tuple):  # a skip: (path, line, reason)
        path, line, reason = report.longrepr
        report.longrepr = (path, line, redact_text(reason, secrets))
    elif report.longrepr is not None:
        text = str(report.longrepr)
        clean = redact_text(text, secrets)
        if clean != text:  # a plain string then: the structured form would still hold the secret
            report.longrepr = clean
    report.sections = [(title, redact_text(content, secrets)) for title, content in report.sections]
    report.user_properties = [
        (name, redact_text(value, secrets) if isinstance(value, str) else value)
        for name, value in report.user_properties
    ]


def pytest_unconfigure(config: pytest.Config) -> None:
    agent_client = sys.modules.get("evalkit.engine.agent_client")
    if agent_client is not None:
        agent_client.shutdown()


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
    deselect_unasked(config, items)


def pytest_runtest_setup(item: pytest.Item) -> None:
    if not is_eval(item):
        return
    from evalkit.engine import agent_client  # on use: the plugin loads in every pytest run

    reason = agent_client.unavailable_reason()
    if reason:
        pytest.skip(f"evalkit: {reason}")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    models: dict[str, str] = {}
    for marker in reversed(list(item.iter_markers("eval"))):  # the closest marker wins
        models.update(marker.kwargs.get("models") or {})
    if not models:
        return (yield)
    from evalkit.engine import agent_client  # on use: the plugin loads in every pytest run

    with agent_client.use_models(**models):
        return (yield)


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    n = config.stash.get(deselected_key, 0)
    if n:
        terminalreporter.write_line(
            f"evalkit: {n} eval test{'s' if n != 1 else ''} deselected; run them with `-m eval` "
            f"(or name their folder or file)"
        )
    stored: list[Any] = config.stash.get(usage_key, [])
    usages = list(stored)
    agent_client = sys.modules.get("evalkit.engine.agent_client")
    if agent_client is not None and agent_client.usage() is not None:
        usages.append(agent_client.usage())
    if usages:
        calls = sum(u.calls for u in usages)
        hits = sum(u.cache_hits for u in usages)
        tokens = sum(u.input_tokens + u.output_tokens for u in usages)
        cost = sum(u.cost_usd for u in usages)
        terminalreporter.write_line(f"evalkit: {calls} model calls, {hits} cache hits, {tokens:,} tokens, ${cost:.4f}")


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    name = file_path.name
    if not name.endswith((".yml", ".yaml")):
        return None
    if is_suite_file(file_path) or file_path.resolve() in explicit_files(parent.config):
        return EvalSuiteFile.from_parent(parent, path=file_path)
    return None
