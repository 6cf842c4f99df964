"""Every view of a Report: markdown (Jinja), a self-contained HTML page, JUnit XML, the PR comment,
and log lines.

Names are loaded on first use, so the GitHub glue can use the markdown sanitiser alone.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from evalkit._runtime.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from evalkit.render.comment import (
        MARKER,
        MAX_COMMENT_CHARS,
        SUMMARY_CHARS,
        clean,
        headline,
        marker,
        no_key_body,
        nothing_affected_body,
        render_comment,
        render_models_comment,
        setup_error_body,
        unfinished_body,
        with_marker,
    )
    from evalkit.render.compare import (
        comparison_table,
        detailed_cases,
        model_table,
        render_comparison,
        render_model_comparison,
    )
    from evalkit.render.html import render_html, write_html
    from evalkit.render.junit import render_junit
    from evalkit.render.log import budget_line, case_detail, case_lines, suite_line, usage_line
    from evalkit.render.markdown import render_markdown
    from evalkit.render.sanitize import cap_text, strip_invisible, truncate_markdown
    from evalkit.render.trajectory import tool_line

# What the other rooms (and a team's code) use of this one; each name loads its module on first use.
__all__ = [
    "MARKER",
    "MAX_COMMENT_CHARS",
    "SUMMARY_CHARS",
    "budget_line",
    "cap_text",
    "case_detail",
    "case_lines",
    "clean",
    "comparison_table",
    "detailed_cases",
    "headline",
    "marker",
    "model_table",
    "no_key_body",
    "nothing_affected_body",
    "render_comment",
    "render_comparison",
    "render_html",
    "render_junit",
    "render_markdown",
    "render_model_comparison",
    "render_models_comment",
    "setup_error_body",
    "strip_invisible",
    "suite_line",
    "tool_line",
    "truncate_markdown",
    "unfinished_body",
    "usage_line",
    "with_marker",
    "write_html",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "MARKER": "evalkit.render.comment",
        "MAX_COMMENT_CHARS": "evalkit.render.comment",
        "SUMMARY_CHARS": "evalkit.render.comment",
        "clean": "evalkit.render.comment",
        "headline": "evalkit.render.comment",
        "marker": "evalkit.render.comment",
        "no_key_body": "evalkit.render.comment",
        "nothing_affected_body": "evalkit.render.comment",
        "render_comment": "evalkit.render.comment",
        "render_models_comment": "evalkit.render.comment",
        "setup_error_body": "evalkit.render.comment",
        "unfinished_body": "evalkit.render.comment",
        "with_marker": "evalkit.render.comment",
        "comparison_table": "evalkit.render.compare",
        "detailed_cases": "evalkit.render.compare",
        "model_table": "evalkit.render.compare",
        "render_comparison": "evalkit.render.compare",
        "render_model_comparison": "evalkit.render.compare",
        "render_html": "evalkit.render.html",
        "write_html": "evalkit.render.html",
        "render_junit": "evalkit.render.junit",
        "budget_line": "evalkit.render.log",
        "case_detail": "evalkit.render.log",
        "case_lines": "evalkit.render.log",
        "suite_line": "evalkit.render.log",
        "usage_line": "evalkit.render.log",
        "render_markdown": "evalkit.render.markdown",
        "cap_text": "evalkit.render.sanitize",
        "strip_invisible": "evalkit.render.sanitize",
        "truncate_markdown": "evalkit.render.sanitize",
        "tool_line": "evalkit.render.trajectory",
    },
)

# Only the public names stay bound on the package (a test compares vars() with __all__).
del annotations, TYPE_CHECKING, lazy_exports
