"""Which eval tests run: the `evalkit_evals` mode and the auto rule (see the package docstring)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

MODES = ("auto", "deselect", "keep")
_MENTIONS_EVAL = re.compile(r"(?<![\w.])eval(?![\w.])")

deselected_key = pytest.StashKey[int]()
_explicit_key = pytest.StashKey["set[Path]"]()


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


def explicit_files(config: pytest.Config) -> set[Path]:
    if _explicit_key not in config.stash:
        config.stash[_explicit_key] = {_arg_path(config, a) for a in _command_line_args(config)}
    return config.stash[_explicit_key]


def is_eval(item: pytest.Item) -> bool:
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
        under = [i for i in under if not getattr(i, "evalkit_selftest", False)]  # a suite's gold checks
        if under and all(is_eval(i) for i in under):
            asked.update(i.nodeid for i in under)
    return asked


def deselect_unasked(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Deselect the eval items the mode and the command line do not ask for (in place)."""
    mode = _mode(config)
    if mode == "keep" or _MENTIONS_EVAL.search(config.option.markexpr or ""):
        return
    asked = _asked_for(config, items) if mode == "auto" else set()
    kept = [i for i in items if not is_eval(i) or i.nodeid in asked]
    if len(kept) == len(items):
        return
    deselected = [i for i in items if i not in kept]
    config.hook.pytest_deselected(items=deselected)
    items[:] = kept
    config.stash[deselected_key] += len(deselected)
