"""The Mermaid chart of per-suite pass rates, base vs head, in the comparison markdown and the PR comment."""

from __future__ import annotations

import re

import html_reports

from evalkit.render.comment import render_comment
from evalkit.render.compare import render_comparison
from evalkit.render.markdown import mermaid_label


def _chart(text: str) -> str:
    found = re.search(r"```mermaid\n(xychart-beta\n.*?)```", text, re.S)
    assert found, text[:500]
    return found.group(1)


def test_the_comparison_markdown_charts_each_suite_base_as_bars_head_as_a_line():
    _, head, cmp = html_reports.pair(24)
    chart = _chart(render_comparison(cmp))
    rates = {s.name: (round(s.base.pass_rate * 100), round(s.head.pass_rate * 100)) for s in cmp.suites}
    names = list(rates)
    assert f'x-axis ["{names[0]}", "{names[1]}"]' in chart
    assert f"bar [{rates[names[0]][0]}, {rates[names[1]][0]}]" in chart
    assert f"line [{rates[names[0]][1]}, {rates[names[1]][1]}]" in chart
    assert 'y-axis "pass rate (%)" 0 --> 100' in chart


def test_the_pr_comment_has_the_chart_only_with_a_comparison():
    _, head, cmp = html_reports.pair(12)
    assert "```mermaid" not in render_comment(head)
    assert "xychart-beta" in _chart(render_comment(head, comparison=cmp))


def test_labels_cannot_break_out_of_the_chart():
    assert mermaid_label('a"] \n```\nbar [1') == "a__ ___ bar _1"
    assert len(mermaid_label("x" * 100)) == 40
