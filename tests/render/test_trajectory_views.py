"""A run's trajectory in every view: the HTML drill-down lists its steps (escaped, capped), the
markdown report and the PR comment give a failing case's tool calls in one line, JUnit as
properties; the one line is cut short and holds no control characters."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from evalkit.render.comment import render_comment
from evalkit.render.html import MAX_TRACE_STEPS_SHOWN, render_html
from evalkit.render.junit import render_junit
from evalkit.render.markdown import render_markdown
from evalkit.render.trajectory import tool_line
from evalkit.results.report import CaseResult, Report, RunResult, SuiteResult
from evalkit.trace.steps import Step

TRACE = [
    Step.message("user", "plan my week"),
    Step.message("assistant", "", start=0.1, seconds=0.75),
    Step.tool_call("search", {"q": "tempo runs", "limit": 5}, result={"hits": 3}, start=0.9, seconds=0.02),
    Step.tool_call("book", {"day": "mon"}, error="calendar is read-only"),
    Step.message("assistant", "Here is your week."),
]


def report(*runs: RunResult, verdict: str = "fail") -> Report:
    case = CaseResult(id="plan", verdict=verdict, reasons=["checks: 1 of 1 failed"], runs=list(runs))
    return Report(verdict=verdict, suites=[SuiteResult(name="s", path="s.yml", verdict=verdict, cases=[case])])


def test_the_one_line_gives_calls_in_order_and_the_failed_one():
    assert tool_line(TRACE) == 'search(q="tempo runs", limit=5) → error in book(day="mon"): calendar is read-only'
    assert tool_line(None) == "" and tool_line([Step.message("user", "hi")]) == "no tool calls"


def test_the_one_line_is_cut_short_and_holds_no_control_characters():
    calls = [Step.tool_call(f"t{i}", {"v": "x" * 100}) for i in range(30)]
    line = tool_line(calls, limit=200)
    assert len(line) <= 200 and line.endswith("more calls)") and 't0(v="xxxxxxxxxxxxxxxxxxxxxx…)' in line
    shown = line.count("(v=")
    assert line.endswith(f"… ({30 - shown} more calls)")
    evil = tool_line([Step.tool_call("a\x1b[31m\u202eb", {"k\n": "v\x07"}, error="bad\r\nthing")])
    assert evil == 'error in a[31mb(k="v\\u0007"): bad thing'


def test_the_html_drill_down_lists_the_steps_escaped():
    evil = Step.tool_call(
        "<script>alert(1)</script>", {"q": "<img src=x onerror=alert(1)>"}, result="</pre><b>owned</b>"
    )
    page = render_html(report(RunResult(repeat=0, output="week", trace=[*TRACE, evil])))
    assert 'Trajectory <span class="muted">6 steps, 3 tool calls</span>' in page
    assert '<code class="s">search</code>' in page and "at 0.10 s · took 0.75 s" in page
    assert "&#34;limit&#34;: 5" in page and "&#34;hits&#34;: 3" in page  # arguments and result as JSON
    assert '<pre class="error s">calendar is read-only</pre>' in page
    assert "<script>alert" not in page and "<img src=x" not in page and "<b>owned" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page and "&lt;/pre&gt;&lt;b&gt;owned" in page
    # a failing single run opens its trajectory; a run without a trace has none
    assert '<details class="trace" open>' in page
    assert "Trajectory <span" not in render_html(report(RunResult(repeat=0, output="week")))


def test_a_long_trajectory_is_capped_on_the_page():
    steps = [Step.tool_call("poll", {"n": i}) for i in range(MAX_TRACE_STEPS_SHOWN + 25)]
    page = render_html(report(RunResult(repeat=0, output="x", trace=steps), verdict="pass"))
    assert page.count('<code class="s">poll</code>') == MAX_TRACE_STEPS_SHOWN
    assert "… and 25 more steps (results.json keeps them all)." in page
    assert '<details class="trace">' in page  # a passing case's trajectory starts closed


def test_a_failing_cases_details_give_its_tool_calls_in_one_line():
    md = render_markdown(report(RunResult(repeat=0, output="week", trace=TRACE)))
    assert '- 🛠️ tools: search(q="tempo runs", limit=5) → error in book(day="mon"): calendar is read-only' in md
    runs = [RunResult(repeat=r, output="w", trace=TRACE[:3]) for r in range(5)] + [RunResult(repeat=5, output="w")]
    md = render_markdown(report(*runs))
    assert md.count("🛠️ run") == 3 and "- 🛠️ run 1 tools: search(" in md
    assert "- 🛠️ … and the tool calls of 2 more runs (results.json has every step)" in md
    assert "🛠️" not in render_markdown(report(RunResult(repeat=0, output="week")))
    assert "🛠️" not in render_markdown(report(RunResult(repeat=0, output="w", trace=TRACE), verdict="pass"))


def test_the_comment_neutralises_tool_calls():
    trace = [Step.tool_call("notify", {"to": "@octocat"}, error="<img src=x> fixes #12")]
    body = render_comment(report(RunResult(repeat=0, output="w", trace=trace)))
    line = next(x for x in body.splitlines() if "🛠️" in x)
    assert "notify(" in line and "@octocat" not in line and "<img" not in line and "fixes #12" not in line


def test_junit_carries_the_tool_calls_as_properties():
    def properties(report: Report) -> dict[str, str]:
        root = ET.fromstring(render_junit(report).split("?>", 1)[1])
        return {p.get("name"): p.get("value") for p in root.iter("property")}

    props = properties(report(RunResult(repeat=0, output="w", trace=TRACE)))
    assert props["tool_calls"] == "2"
    assert props["tool_sequence"] == tool_line(TRACE)
    repeats = report(
        RunResult(repeat=0, output="w", trace=TRACE),
        RunResult(repeat=1, output="w", trace=TRACE[:3]),
        RunResult(repeat=2, output="w"),
    )
    props = properties(repeats)
    assert props["tool_calls"] == "2, 1" and props["tool_sequence_run_2"] == 'search(q="tempo runs", limit=5)'
    assert "tool_sequence_run_3" not in props
    plain = render_junit(report(RunResult(repeat=0, output="w")))
    assert "tool_calls" not in plain
