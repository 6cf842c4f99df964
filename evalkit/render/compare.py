"""A Comparison (base against head) or a ModelComparison as markdown (Jinja, replaceable like the
report's template) or a terminal table."""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evalkit.compare.comparison import CHANGES, Comparison, SideStats
from evalkit.compare.model_vs_model import ModelComparison
from evalkit.compare.trajectory_diff import TrajectoryDiff
from evalkit.errors import UsageError
from evalkit.render.markdown import _environment
from evalkit.render.sanitize import strip_invisible
from evalkit.results.report import CaseResult, Report

DEFAULT_TEMPLATE = "compare.md.j2"
MAX_TRAJECTORY_LINES = 20  # change lines of the "Trajectory changes" section; the JSON keeps them all
# A case of these changes whose items or fields changed gets its own details block in the comparison
# (the report that follows leaves its own block out: a failing case is explained once).
DETAILED_CHANGES = ("regressed", "flaky on main", "fixed", "too few runs to tell", "within noise")
MAX_CASE_TRAJECTORY_LINES = 8  # tool-call changes inside one case's details block
CHANGE_ICONS = {
    "regressed": "❌",
    "flaky on main": "🎲",
    "fixed": "✅",
    "too few runs to tell": "❔",
    "within noise": "〰️",
    "still failing": "⚠️",
    "still passing": "✔️",
    "new": "🆕",
    "removed": "➖",
    "not comparable": "🚫",
}


def _fmt(stats: SideStats | None, what: str) -> str:
    if stats is None:
        return "—"
    if what == "pass_rate" or what == "agreement":
        value = getattr(stats, what)
        return "—" if value is None else f"{value:.0%}"
    if what == "tokens":
        return f"{stats.input_tokens + stats.output_tokens:,}"
    if what == "cost_usd":  # like with like: every call at list price, a cache hit's too (counted apart)
        return f"${stats.cost_usd + stats.cached_cost_usd:.4f}"
    if what == "latency":
        if stats.latency_median is None:
            return "—"
        return f"{stats.latency_median:.2f} / {stats.latency_p95:.2f} s"
    return str(getattr(stats, what))


@dataclass
class TrajectoryCase:
    """One case's trajectory changes as a view lists them: (icon, plain text) a change."""

    case: str
    changes: list[tuple[str, str]]
    model: str | None = None  # model against model: the model compared with the first
    change: str | None = None  # base against head: the case's change (regressed, fixed, …)


@dataclass
class TrajectorySection:
    cases: list[TrajectoryCase] = field(default_factory=list)
    more: int = 0  # change lines left out to keep the section short


def _capped(found: list[tuple[TrajectoryCase, TrajectoryDiff]], limit: int) -> TrajectorySection:
    section, room = TrajectorySection(), limit
    for entry, diff in found:
        changes = diff.changes()
        entry.changes = changes[: max(room, 0)]
        if entry.changes:
            section.cases.append(entry)
        section.more += len(changes) - len(entry.changes)
        room -= len(entry.changes)
    return section


def detailed_cases(cmp: Comparison) -> list[str]:
    """`suite/case` of each case the comparison explains in a details block of its own."""
    return [f"{c.suite}/{c.id}" for c in cmp.cases() if c.change in DETAILED_CHANGES and (c.flips or c.fields)]


def trajectory_section(
    cmp: Comparison, limit: int = MAX_TRAJECTORY_LINES, skip: Collection[str] = ()
) -> TrajectorySection:
    """The cases whose tool calls changed between base and head (but those in `skip`, whose
    details block lists them), at most `limit` change lines (changed cases first, in the order of
    CHANGES) and how many more there are."""
    found = [
        (TrajectoryCase(f"{c.suite}/{c.id}", [], change=c.change), c.trajectory)
        for change in CHANGES
        for c in cmp.cases(change)
        if c.trajectory is not None and f"{c.suite}/{c.id}" not in skip
    ]
    return _capped(found, limit)


def _case_lookup(report: Report | None) -> Callable[[Any], CaseResult | None]:
    """`suite/case` of a CaseDiff to the Report's CaseResult (None: not in it, or no Report)."""
    cases = {f"{s.name}/{c.id}": c for s in report.suites for c in s.cases} if report is not None else {}
    return lambda diff: cases.get(f"{diff.suite}/{diff.id}")


def model_trajectory_section(mc: ModelComparison, limit: int = MAX_TRAJECTORY_LINES) -> TrajectorySection:
    """The cases whose tool calls differ from the first model's, model by model, capped like
    `trajectory_section`."""
    found = [
        (TrajectoryCase(f"{r.suite}/{r.id}", [], model=m), r.trajectories[m])
        for r in mc.rows
        for m in mc.models[1:]
        if m in r.trajectories
    ]
    return _capped(found, limit)


def side(holder: Any, what: str) -> str:
    """`base → head` of one figure (a suite's or the run's)."""
    return f"{_fmt(holder.base, what)} → {_fmt(holder.head, what)}"


def render_comparison(
    cmp: Comparison,
    *,
    template: str | Path | None = None,
    clean: Any = None,
    extra: dict[str, Any] | None = None,
    gate_failed: bool | None = None,
    head: Report | None = None,
) -> str:
    """Markdown for `cmp`; `template` is a user's file, `clean` neutralises untrusted text;
    `gate_failed` (the Action's gate, when known) makes the headline ❌; `head` (the head's Report)
    quotes each failing case's answer in its details block."""
    from jinja2 import TemplateError  # jinja2 loads only when a template is used

    path = Path(template) if template else None
    env = _environment(path.parent if path else None)
    if clean is not None:
        env.filters["clean"] = clean
    try:
        tmpl = env.get_template(path.name if path else DEFAULT_TEMPLATE)
        detailed = detailed_cases(cmp)
        return str(
            tmpl.render(
                cmp=cmp,
                side=side,
                change_icons=CHANGE_ICONS,
                icon=cmp.icon(gate_failed),
                detailed=detailed,
                head_case=_case_lookup(head),
                case_trajectory_lines=MAX_CASE_TRAJECTORY_LINES,
                trajectories=trajectory_section(cmp, skip=detailed),
                **(extra or {}),
            )
        )
    except TemplateError as exc:
        where = f" ({path})" if path else ""
        raise UsageError(f"comparison template{where}: {exc}") from None


def comparison_table(cmp: Comparison) -> str:
    """Plain text for a terminal: the sentence, one row per case that changed, the totals."""
    lines = [cmp.sentence(), ""]
    rows = [("change", "case", "base", "head", "items")]
    for change in CHANGES:
        for case in cmp.cases(change):
            if change == "still passing" and not case.flips:
                continue
            items = ", ".join(f.short for f in case.flips)
            rows.append(
                (
                    change,
                    f"{case.suite}/{case.id}",
                    case.base_verdict or "-",
                    case.head_verdict or "-",
                    items or case.note or "; ".join(case.head_reasons),
                )
            )
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    for row in rows:
        lines.append("  ".join(cell.ljust(w) for cell, w in zip(row[:4], widths)) + "  " + row[4])
    lines += _trajectory_lines(trajectory_section(cmp), "")
    lines.append("")
    lines.append(f"{'':14}{cmp.base_label:>24} → {cmp.head_label}")
    for label, what in (
        ("pass rate", "pass_rate"),
        ("critical", "critical_failures"),
        ("agreement", "agreement"),
        ("tokens", "tokens"),
        ("list cost", "cost_usd"),
        ("cache hits", "cache_hits"),
        ("latency", "latency"),
    ):
        lines.append(f"{label:14}{_fmt(cmp.base, what):>24} → {_fmt(cmp.head, what)}")
    lines += [f"note: {n}" for n in cmp.notes]
    return "\n".join(lines) + "\n"


def render_model_comparison(mc: ModelComparison, *, template: str | Path | None = None, clean: Any = None) -> str:
    """Markdown for a model-against-model run (`models.md.j2`, or a user's template)."""
    from jinja2 import TemplateError  # jinja2 loads only when a template is used

    path = Path(template) if template else None
    env = _environment(path.parent if path else None)
    if clean is not None:
        env.filters["clean"] = clean
    try:
        return str(
            env.get_template(path.name if path else "models.md.j2").render(
                mc=mc, fmt=_fmt, trajectories=model_trajectory_section(mc)
            )
        )
    except TemplateError as exc:
        raise UsageError(f"model comparison template{f' ({path})' if path else ''}: {exc}") from None


def model_table(mc: ModelComparison) -> str:
    """Plain text: one row per case with a verdict column per model, then the per-model figures."""
    head = ["case", *mc.models, "items that differ"]
    rows = [head]
    for row in mc.rows:
        diffs = [
            f"{item} " + " vs ".join(per.get(m, "-") for m in mc.models)
            for item, per in row.items.items()
            if len({per.get(m, "-") for m in mc.models}) > 1
        ]
        rows.append(
            [
                ("* " if row.differs else "  ") + f"{row.suite}/{row.id}",
                *[row.verdicts.get(m, "-") for m in mc.models],
                ", ".join(diffs),
            ]
        )
    for label, what in (
        ("pass rate", "pass_rate"),
        ("critical", "critical_failures"),
        ("agreement", "agreement"),
        ("dollars", "cost_usd"),
        ("latency", "latency"),
    ):
        rows.append([label, *[_fmt(c.stats, what) for c in mc.columns], ""])
    rows.append(["model's own $", *[f"${c.model_cost_usd:.4f}" for c in mc.columns], ""])
    widths = [max(len(r[i]) for r in rows) for i in range(len(head) - 1)]
    lines = [
        f"{len(mc.differing)} of {len(mc.rows)} cases differ between {' and '.join(mc.models)}. " + mc.judge_line(),
        "",
    ]
    for i, cells in enumerate(rows):
        if i == len(mc.rows) + 1:
            lines.append("")
        lines.append(
            "  ".join(c.ljust(w) for c, w in zip(cells[:-1], widths)) + ("  " + cells[-1] if cells[-1] else "")
        )
    lines += _trajectory_lines(model_trajectory_section(mc), f" (against {mc.models[0]})" if mc.models else "")
    return "\n".join(lines) + "\n"


def _trajectory_lines(section: TrajectorySection, against: str) -> list[str]:
    """The section as plain text for a terminal: a line per case, an indented line per change."""
    if not section.cases:
        return []
    lines = ["", f"trajectory changes{against}:"]
    for entry in section.cases:
        lines.append(f"  {entry.case}" + (f" [{entry.model}]" if entry.model else ""))
        lines += [f"    {_plain(text)}" for _, text in entry.changes]
    if section.more:
        lines.append(f"  … and {section.more} more (the comparison's JSON lists them all)")
    return lines


def _plain(text: str) -> str:
    """A line of model or tool text safe for a terminal: no control or format characters."""
    return " ".join(strip_invisible(text).split())
