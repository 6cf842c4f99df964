"""Model against model: the same suites run once per model, each with a client of its own (so
usage is counted per model) over one provider and one response cache. The judge is not touched:
`--model` sets the target's tier only."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path
from typing import Callable

from evalkit._runtime.asyncio_run import run_blocking
from evalkit.engine.preflight import preflight
from evalkit.errors import UsageError
from evalkit.llm import model_lifecycle
from evalkit.llm.client import ModelClient
from evalkit.results.report import Report
from evalkit.run.options import RunOptions
from evalkit.run.runner import Runner
from evalkit.suite.model import Suite


def models_to_compare(suites: list[Suite], cli_models: list[str]) -> list[str]:
    """Two or more models from the command line, else the suites' `compare_models` (one list)."""
    if len(cli_models) > 1:
        return list(dict.fromkeys(cli_models))
    lists = {tuple(s.compare_models) for s in suites if s.compare_models}
    if len(lists) > 1:
        raise UsageError(
            "the suites name different compare_models lists: run them apart, or pass --model twice to choose"
        )
    if lists and cli_models:
        raise UsageError(
            "one model named (--model, or the Action's model input) for suites that set "
            "compare_models: name every model to compare, or none"
        )
    return list(lists.pop()) if lists else []


def run_per_model(
    suites: list[Suite], models: list[str], make_client: Callable[[], ModelClient], options: RunOptions
) -> list[tuple[str, Report]]:
    """A Report per model, in order. A retired model among them stops all before any call."""
    if len(models) < 2:
        raise UsageError("a model comparison needs at least two models")
    preflight(suites, target=options.target, cases=options.cases, need_target=True)  # what a run checks first
    clients = [make_client() for _ in models]
    deprecated = clients[0].deprecations()
    for model in models:
        model_lifecycle.refuse_retired(
            model_lifecycle.suite_models(suites, model, options.judge_model),
            deprecated,
            judge_only=model_lifecycle.judge_only_models(suites, model, options.judge_model),
        )
    return run_blocking(_run_all(suites, models, clients, options))


async def _run_all(
    suites: list[Suite], models: list[str], clients: list[ModelClient], options: RunOptions
) -> list[tuple[str, Report]]:
    reports = []
    try:
        for model, client in zip(models, clients):
            jsonl = _per_model_path(options.jsonl_path, model) if options.jsonl_path else None
            report = await Runner(client, replace(options, model=model, jsonl_path=jsonl)).run(suites)
            reports.append((model, report))
    finally:
        await clients[0].provider.aclose()
    return reports


def _per_model_path(path: Path, model: str) -> Path:
    return path.with_name(f"{path.name.split('.')[0]}.{file_part(model)}{''.join(path.suffixes)}")


def model_path(path: Path, model: str) -> Path:
    """Where one model's Report of a model-against-model run goes: `results.<model>.json` beside `path`."""
    return path.with_name(f"{path.stem}.{file_part(model)}{path.suffix}")


def file_part(model: str) -> str:
    """`model` as a safe piece of a file name (a model id is user input: no `/` or `..`)."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", model).strip("-.") or "model"
