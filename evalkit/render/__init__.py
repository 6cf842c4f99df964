"""Every view of a Report: markdown (Jinja), a self-contained HTML page, JUnit XML, the PR comment,
and log lines.

Names are loaded on first use, so the GitHub glue can use the markdown sanitiser alone.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from evalkit._runtime.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from evalkit.render.comment import MARKER, MAX_COMMENT_CHARS, marker, render_comment, with_marker
    from evalkit.render.html import render_html
    from evalkit.render.junit import render_junit
    from evalkit.render.log import case_lines, suite_line, usage_line
    from evalkit.render.markdown import render_markdown

__all__ = ["MARKER", "MAX_COMMENT_CHARS", "case_lines", "marker", "render_comment", "render_html", "render_junit",
           "render_markdown", "suite_line", "usage_line", "with_marker"]

__getattr__, __dir__ = lazy_exports(__name__, {
    "MARKER": "evalkit.render.comment", "MAX_COMMENT_CHARS": "evalkit.render.comment",
    "marker": "evalkit.render.comment", "render_comment": "evalkit.render.comment",
    "with_marker": "evalkit.render.comment", "render_junit": "evalkit.render.junit",
    "case_lines": "evalkit.render.log", "suite_line": "evalkit.render.log", "usage_line": "evalkit.render.log",
    "render_markdown": "evalkit.render.markdown", "render_html": "evalkit.render.html",
})

# Only the public names stay bound on the package (a test compares vars() with __all__).
del annotations, TYPE_CHECKING, lazy_exports
