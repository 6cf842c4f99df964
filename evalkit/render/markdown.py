"""A Report as markdown, through a Jinja template (the bundled one, or a user's)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from evalkit.errors import UsageError
from evalkit.render.log import absorbed, tail
from evalkit.render.trajectory import tool_line
from evalkit.results.consistency import consistency
from evalkit.results.report import CaseResult, ItemResult, Report

DEFAULT_TEMPLATE = "report.md.j2"
EXCERPT_CHARS = 280  # of a failing answer quoted in the report: enough to recognise it, results.json has it all
ICONS = {"pass": "✅", "fail": "❌", "error": "⚠️", "skipped": "⏭️", "n/a": "➖", "inconclusive": "❔", "not_run": "⛔"}


def _environment(template_dir: Path | None) -> Any:
    # jinja2 loads only when a template is used
    from jinja2 import BaseLoader, ChoiceLoader, FileSystemLoader, PackageLoader, StrictUndefined
    from jinja2.sandbox import SandboxedEnvironment

    loaders: list[BaseLoader] = [PackageLoader("evalkit.render", "templates")]
    if template_dir is not None:
        loaders.insert(0, FileSystemLoader(str(template_dir)))
    # Sandboxed: a user's template from a PR must not reach Python internals.
    env = SandboxedEnvironment(
        loader=ChoiceLoader(loaders),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters["pct"] = lambda v: "—" if v is None else f"{v:.0%}"
    env.filters["usd"] = lambda v: f"${v:.4f}" if v < 1 else f"${v:.2f}"
    env.filters["icon"] = lambda v: ICONS.get(v, v)
    env.filters["cell"] = _cell
    env.filters["clean"] = lambda v: str(v)
    env.filters["seconds"] = lambda v: f"{v:.1f} s" if v < 120 else f"{v / 60:.1f} min"
    env.filters["thousands"] = lambda v: f"{v:,}"
    env.filters["mermaid_label"] = mermaid_label
    env.filters["absorbed"] = absorbed
    env.filters["codeblock"] = codeblock
    env.globals["failures"] = failures
    env.globals["failing_answer"] = failing_answer
    env.globals["consistency"] = consistency
    env.globals["tool_line"] = tool_line
    env.filters["consistency"] = consistency
    # Where a block that may be left out to fit a size limit starts and ends (render/comment.py
    # gives these meaning; everywhere else they print nothing).
    env.globals["block"] = lambda kind: ""
    env.globals["end_block"] = lambda: ""
    return env


def failures(case: CaseResult) -> list[dict[str, Any]]:
    """The case's failing items, each once however many runs it failed on: the item (from its
    first failing run), `runs` (the 1-based runs it failed on) and `of` (the case's runs)."""
    found: dict[str, dict[str, Any]] = {}
    for repeat, item in case.failing_items():
        entry = found.setdefault(item.id, {"item": item, "runs": []})
        entry["runs"].append(repeat + 1)
    return [dict(entry, of=len(case.runs)) for entry in found.values()]


def failing_answer(case: CaseResult, limit: int = EXCERPT_CHARS) -> dict[str, Any] | None:
    """A short excerpt of an answer that failed, with the item it failed (a critical one first):
    what a reviewer needs to see the failure without opening results.json. None without one."""
    best: tuple[int, int, ItemResult, str] | None = None
    for run in case.runs:
        text = " ".join(run.output.split())
        for item in run.items:
            if item.status not in ("fail", "error") or not text:
                continue
            rank = 0 if item.critical else 1
            if best is None or rank < best[0]:
                best = (rank, run.repeat, item, text)
    if best is None:
        return None
    _, repeat, item, text = best
    excerpt = text if len(text) <= limit else text[:limit].rsplit(" ", 1)[0] + " …"
    return {"item": item, "run": repeat + 1, "of": len(case.runs), "excerpt": excerpt}


def codeblock(text: str) -> str:
    """A traceback's end as a fenced block whose fence no backtick run inside it can close."""
    text = tail(str(text))
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}text\n{text}\n{fence}"


def mermaid_label(value: Any) -> str:
    """Text safe inside a quoted Mermaid label: letters, digits and a little punctuation, ≤ 40 chars."""
    return re.sub(r"[^\w .:/()+-]", "_", " ".join(str(value).split()))[:40]


def _cell(value: Any) -> str:
    """Text safe inside one markdown table cell."""
    return " ".join(str(value).split()).replace("|", "\\|")


def render_markdown(
    report: Report, *, template: str | Path | None = None, clean: Any = None, extra: dict[str, Any] | None = None
) -> str:
    """Markdown for `report`; `template` is a user's file, `clean` neutralises untrusted text."""
    from jinja2 import TemplateError  # jinja2 loads only when a template is used

    path = Path(template) if template else None
    env = _environment(path.parent if path else None)
    if clean is not None:
        env.filters["clean"] = clean
    try:
        tmpl = env.get_template(path.name if path else DEFAULT_TEMPLATE)
        return str(tmpl.render(report=report, **(extra or {})))
    except TemplateError as exc:
        where = f" ({path})" if path else ""
        raise UsageError(f"report template{where}: {exc}") from None
