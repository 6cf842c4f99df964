"""A Report as one self-contained HTML page (inline CSS and script, nothing fetched), through the
Jinja template `report.html.j2`: works from file:// and as a downloaded artifact.

Safe by construction: autoescape is on and nothing a model or user wrote is marked safe (so no
markup from it reaches the page at all); the script only shows, hides and reorders what the
template rendered and never writes markup; and, as a second wall, a Content-Security-Policy
allows no fetch of any kind and no script or style but the page's own (by hash).
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import unicodedata
from pathlib import Path
from typing import TYPE_CHECKING, Any

from evalkit._runtime.atomic_write import write_atomic
from evalkit.render import html_view
from evalkit.render.history_view import history_view
from evalkit.render.trajectory import step_count
from evalkit.results.report import Report

if TYPE_CHECKING:
    from evalkit.history import ReportPast

TEMPLATE = "report.html.j2"
MAX_TRACE_STEPS_SHOWN = 200  # of a run's trajectory on the page; results.json keeps every step
_SAFE_URL = re.compile(r"https?://[^\s\"'<>\\]+\Z")
# Controls, and the format characters that reorder or hide text (bidi overrides, zero-width).
_ASCII_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def visible(value: Any) -> str:
    """Text with every invisible or reordering character shown as its code point, e.g. [U+202E]."""
    text = str(value)
    if text.isascii():
        return _ASCII_CONTROL.sub(lambda m: f"[U+{ord(m.group(0)):04X}]", text)
    return "".join(
        f"[U+{ord(ch):04X}]" if ch not in "\n\t\r" and unicodedata.category(ch) in ("Cc", "Cf", "Co", "Cs") else ch
        for ch in text
    )


def pretty(value: Any) -> str:
    """A value as a reader wants it: strings as they are, anything else as indented JSON."""
    if isinstance(value, str):
        return value
    return json.dumps(value, indent=2, ensure_ascii=False, default=str)


def safe_url(value: Any) -> str:
    """An http(s) URL for an href, or "" (never `javascript:` or `data:`)."""
    text = str(value or "")
    return text if _SAFE_URL.match(text) else ""


def csp_hash(source: Any) -> str:
    """The CSP source expression that allows exactly this inline script or style."""
    return "'sha256-" + base64.b64encode(hashlib.sha256(str(source).encode("utf-8")).digest()).decode() + "'"


def _environment() -> Any:
    # jinja2 loads only when a page is rendered
    from jinja2 import Environment, PackageLoader, StrictUndefined

    env = Environment(
        loader=PackageLoader("evalkit.render", "templates"),
        autoescape=True,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters.update(
        pct=lambda v: "—" if v is None else f"{v:.0%}",
        usd=lambda v: f"${v:.4f}" if v < 1 else f"${v:.2f}",
        seconds=lambda v: f"{v:.1f} s" if v < 120 else f"{v / 60:.1f} min",
        thousands=lambda v: f"{v:,}",
        t=visible,
        pretty=pretty,
        safe_url=safe_url,
        csp_hash=csp_hash,
        step_count=step_count,
    )
    env.globals["max_trace_steps"] = MAX_TRACE_STEPS_SHOWN
    return env


def render_html(
    report: Report, *, comparison: Any = None, base: Report | None = None, past: ReportPast | None = None
) -> str:
    """The page for `report`; with `comparison` (an evalkit.compare Comparison) it shows base vs
    head, with the `base` Report too the outputs of both sides side by side, and with `past` (what
    the history says of the report's suites) each suite's trend charts and each case's strip."""
    if comparison is None:
        comparison = getattr(report, "comparison", None)  # once a Report carries its own
    views = html_view.build(report, comparison, base)
    template = _environment().get_template(TEMPLATE)
    return str(
        template.render(
            report=report,
            cmp=comparison,
            views=views,
            provenance=getattr(report, "provenance", None),
            charts=html_view.charts(report, views, comparison),
            filters=html_view.FILTERS,
            filter_counts=html_view.filter_counts(views),
            verdict_counts=html_view.verdict_counts(views),
            change_order=html_view.CHANGE_ORDER,
            total=sum(len(v.rows) for v in views),
            past=history_view(past),
        )
    )


def write_html(report: Report, path: str | Path, **kwargs: Any) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    return write_atomic(path, render_html(report, **kwargs))  # whole or not at all
