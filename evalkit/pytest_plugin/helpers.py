"""Helpers for pytest-native evals (seed 003's pattern): `load_fixtures`, `llm_judge`, `run_checks`.

They use the engine's own pieces — the suite loader validates fixture files, checks come from
the same registry, judge criteria go through the same judge call — so a case scores the same
here as under `evalkit run`.
"""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any, Iterable

from evalkit.checks.base import CheckContext, output_text
from evalkit.checks.registry import CheckRegistry
from evalkit.engine import agent_client
from evalkit.errors import JudgeError, SuiteError
from evalkit.results.report import ItemResult
from evalkit.scoring.items import decide_item, judged_item
from evalkit.scoring.judge import judge
from evalkit.scoring.judge_input import JudgeInput, JudgeSettings
from evalkit.suite.loader import checks_item, load_suite
from evalkit.suite.yaml_reader import read_yaml

MAX_SHOWN_OUTPUT = 1500  # characters of the output quoted in a failure message


def load_fixtures(filename: str | Path, *, base: str | Path | None = None) -> list[dict[str, Any]]:
    """The cases of a fixture list (or a suite file) as dicts, for `pytest.mark.parametrize`.

    A relative name is looked up from the caller's folder upwards, in each folder and its
    `fixtures/` subfolder. The file is validated by the suite loader first, so a typo in a
    check fails collection with its line number.
    """

    path = _find_fixture_file(Path(filename), Path(base) if base else _caller_dir())
    suite = load_suite(path)  # raises SuiteError listing every problem of the file
    data = read_yaml(path).data
    if isinstance(data, dict):  # a suite file: its cases, inline or from the fixture list it names
        cases_file = suite.cases[0].file if suite.cases and suite.cases[0].file else path
        data = data["cases"] if isinstance(data.get("cases"), list) else read_yaml(Path(cases_file)).data
    return [dict(case) for case in data]


def _caller_dir() -> Path:
    for frame in inspect.stack(0)[2:]:
        if frame.filename != __file__ and not frame.filename.startswith("<"):
            return Path(frame.filename).resolve().parent
    return Path.cwd()


def _find_fixture_file(name: Path, start: Path) -> Path:
    if name.is_absolute():
        if name.is_file():
            return name
        raise FileNotFoundError(f"fixture file {name} does not exist")
    tried = []
    for folder in (start, *start.parents):
        for candidate in (folder / name, folder / "fixtures" / name):
            tried.append(candidate)
            if candidate.is_file():
                return candidate
        if (folder / "pyproject.toml").is_file() or (folder / ".git").exists():
            break  # do not wander out of the project
    shown = ", ".join(str(t.parent) for t in tried[:6]) + (" …" if len(tried) > 6 else "")
    raise FileNotFoundError(f"fixture file {name} not found (looked in {shown})")


def llm_judge(output: Any, criteria: str, *, case_input: Any = None) -> tuple[bool, str]:
    """Ask the "low" tier judge whether `output` meets `criteria`: `(passed, reason)`.

    Raises EvalkitError when the judge cannot be reached or keeps answering malformed verdicts.
    """
    outcome = _judge({"criterion": criteria}, output, case_input)
    if outcome.error:
        raise JudgeError(outcome.error)
    verdict = outcome.verdicts["criterion"]
    return verdict.verdict == "pass", verdict.reason


def _judge(criteria: dict[str, str], output: Any, case_input: Any) -> Any:
    """One judge call for several criteria: the JudgeOutcome."""

    client = agent_client.get_client()
    model = client.resolve_model("low")
    return agent_client.run_with_client(
        lambda view: judge(
            view, JudgeInput(output_text(output), criteria=criteria, case_input=case_input), JudgeSettings(model)
        ),
        client,
    )


def run_checks(
    result: Any, checks: Iterable[dict[str, Any]], *, case_input: Any = None, suite_dir: str | Path | None = None
) -> list[ItemResult]:
    """Decide every check of a case on `result`; raise one AssertionError listing every failure.

    `checks` is a case's `checks:` list as written in YAML (`{"type": ..., **arguments}`).
    Programmatic checks run here; all `llm_judge` criteria share one judge call, as in a run.
    Returns the decided items when all pass.
    """

    registry = CheckRegistry()
    problems, case_items = [], []
    for i, spec in enumerate(checks, 1):
        args = dict(spec)
        kind = str(args.pop("type", None))
        try:
            case_items.append(checks_item(f"check{i}:{kind}", registry.build(kind, args)))
        except KeyError:
            problems.append(f"check #{i}: unknown check type {kind!r}; valid types: {registry.valid_types()}")
        except ValueError as exc:  # pydantic's ValidationError: the check's arguments
            problems.append(f"check #{i} ({kind}): {' '.join(str(exc).split())}")
    if problems:
        raise SuiteError("run_checks", problems)
    ctx = CheckContext(output=result, input=case_input, case_id="", suite_dir=Path(suite_dir) if suite_dir else None)
    # The same items and the same deciding functions as a run, so verdicts match the CLI's.
    judged = {it.id: it.judge for it in case_items if it.judge is not None}
    outcome = _judge(judged, result, case_input) if judged else None
    items = [judged_item(it, outcome) if it.judge is not None else decide_item(it, ctx) for it in case_items]
    failed = [it for it in items if it.status in ("fail", "error")]
    if failed:
        raise AssertionError(format_failures(failed, len(items), output_text(result)))
    return items


def format_failures(failed: list[ItemResult], total: int, output: str | None = None, header: str | None = None) -> str:
    """Every failing item on its own line, then the start of the output."""
    lines = [header or f"{len(failed)} of {total} checks failed:"]
    for it in failed:
        label = it.text if it.decided_by == "judge" else it.id
        lines.append(
            f"  {it.status.upper():5} {it.id}"
            + (f" ({label})" if label != it.id else "")
            + f": {it.reason or '(no reason given)'}"
        )
    if output is not None:
        shown = output if len(output) <= MAX_SHOWN_OUTPUT else output[:MAX_SHOWN_OUTPUT] + " […]"
        lines.append("output:")
        lines.extend("  | " + line for line in (shown.splitlines() or [""]))
    return "\n".join(lines)
