"""The HTML report without a browser: self-contained, escaped, its policy matching its own script
and style, and the commands that write it (the browser tests are in test_html_browser.py)."""

from __future__ import annotations

import base64
import hashlib
import html
import json
import re
from pathlib import Path

import html_reports
import pytest
from click.testing import CliRunner
from test_snapshots import fixed_report

from evalkit.cli.commands import main
from evalkit.render.html import render_html, safe_url, visible
from evalkit.results.report import Report

TEMPLATES = Path(__file__).parents[2] / "evalkit" / "render" / "templates"


def _sha(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


def test_the_policy_allows_exactly_the_page_own_script_and_style():
    page = render_html(fixed_report())
    policy = html.unescape(re.search(r'<meta http-equiv="Content-Security-Policy" content="([^"]+)">', page).group(1))
    scripts = re.findall(r"<script>(.*?)</script>", page, re.S)
    styles = re.findall(r"<style>(.*?)</style>", page, re.S)
    assert len(scripts) == 1 and len(styles) == 1
    assert f"script-src {_sha(scripts[0])};" in policy and f"style-src {_sha(styles[0])};" in policy
    assert "default-src 'none'" in policy and "unsafe" not in policy


def test_the_page_refers_to_nothing_outside_itself():
    base, head, cmp = html_reports.pair(12)
    page = render_html(head, comparison=cmp, base=base)
    refs = re.findall(r'(?:src|href|action|srcset)\s*=\s*"([^"]*)"', page)
    assert refs and all(r.startswith("#case=") for r in refs), [r for r in refs if not r.startswith("#")]
    assert "@import" not in page and "url(" not in page and "<link" not in page and "<img" not in page


def test_the_run_link_is_the_only_outside_link_and_only_when_http():
    report = fixed_report()
    assert 'href="https://github.com/octo-org/hello/actions/runs/777"' in render_html(report)
    bad = report.model_copy(update={"run_url": "javascript:alert(1)"})
    assert "javascript:" not in render_html(bad)
    assert safe_url("https://x.example/a?b=1") and not safe_url("data:text/html,x") and not safe_url("//evil")


def test_no_template_marks_text_safe():
    for path in TEMPLATES.glob("*.html.j2"):
        assert not re.search(r"\|\s*safe\b", path.read_text()), path


def test_untrusted_text_is_escaped_and_invisible_characters_shown():
    page = render_html(fixed_report())
    assert "<img src=x" not in page and "&lt;img src=x onerror=alert(1)&gt;" in page
    assert visible("a\u202eb\u200bc\x07d\te\n") == "a[U+202E]b[U+200B]c[U+0007]d\te\n"


def test_drill_down_holds_input_prompt_traceback_fields_and_both_sides():
    base, head, cmp = html_reports.pair(24)
    page = render_html(head, comparison=cmp, base=base)
    assert "&#34;goal&#34;: &#34;half marathon&#34;" in page  # the input as JSON
    assert "ValueError: no plan for a negative distance" in page and "Traceback" in page
    assert "Output on base" in page and "only 3 day lines (head)" in page and "7 day lines" in page
    assert page.count('class="case"') == sum(len(s.cases) for s in head.suites)
    assert cmp.sentence() in page


def test_judge_votes_truncation_and_calibration_show_in_the_drill_down():
    head = html_reports.report(4, "head", suites=1)
    run = head.suites[0].cases[0].runs[0]
    run.truncated = True
    run.items[1].votes = ["pass", "fail", "pass"]
    head.suites[0].calibration = "judge agreement with 42 gold labels: 95 %"
    case = head.suites[0].cases[1]
    case.verdict, case.rubric_interval = "inconclusive", [0.31, 0.83]
    page = render_html(head)
    assert 'data-flags="inconclusive"' in page and "inconclusive (1)" in page and "31%–83%" in page
    assert "votes: pass, fail, pass" in page and "stopped at max_tokens" in page
    assert "Judge calibration: judge agreement with 42 gold labels: 95 %" in page


def test_model_vs_model_charts_and_calibration_render_when_present():
    base, head, cmp = html_reports.pair(12)
    page = render_html(head, comparison=cmp.model_copy(update={"base_label": "claude-a", "head_label": "claude-b"}))
    assert "cost: base vs head" in page and "claude-a" in page and "<svg" in page
    assert "pass rate per suite" in page and "cost per model" in page


def _write_pair(tmp_path: Path) -> tuple[Path, Path]:
    base, head, _ = html_reports.pair(12)
    b, h = tmp_path / "base.json", tmp_path / "head.json"
    base.save(b)
    head.save(h)
    return b, h


def test_report_and_compare_commands_write_html(tmp_path):
    b, h = _write_pair(tmp_path)
    runner = CliRunner()
    out = tmp_path / "r.html"
    result = runner.invoke(main, ["report", str(h), "--format", "html", "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert out.read_text().startswith("<!DOCTYPE html>") and "regressed (" in out.read_text()
    result = runner.invoke(main, ["report", str(h), "--format", "html", "--base", str(b)])
    assert result.exit_code == 0 and "Output on " in result.output and "got worse" in result.output
    result = runner.invoke(main, ["compare", str(b), str(h), "--format", "html"])
    assert result.exit_code == 1 and "<!DOCTYPE html>" in result.output  # 1: a case regressed
    result = runner.invoke(main, ["report", str(h), "--format", "html", "--base", str(tmp_path / "nope.json")])
    assert result.exit_code == 2


def test_run_writes_html_through_the_engine(write, tmp_path, fake_anthropic, anthropic_env):
    from evalkit.testing.script import Script

    suite = write(
        "s.yml",
        """
        name: greet
        target: {prompt: "Greet {{ name }}"}
        cases:
          - {id: ada, input: {name: Ada}, checks: [{type: contains, value: Ada}]}
    """,
    )
    fake = fake_anthropic(Script().reply("Hello Ada"))
    env = anthropic_env(fake)
    result = CliRunner().invoke(
        main, ["run", str(suite), "-o", str(tmp_path / "r.json"), "--html", str(tmp_path / "r.html")], env=env
    )
    assert result.exit_code == 0, result.output
    page = (tmp_path / "r.html").read_text()
    assert "Hello Ada" in page and "Greet Ada" in page  # the output and the rendered prompt
    data = json.loads((tmp_path / "r.json").read_text())
    assert data["suites"][0]["cases"][0]["input"] == {"name": "Ada"}
    assert data["suites"][0]["cases"][0]["runs"][0]["prompt"] == "Greet Ada"
    assert Report.load(tmp_path / "r.json").suites[0].cases[0].runs[0].prompt == "Greet Ada"


def test_a_raising_target_keeps_its_traceback(write, run_scripted):
    from evalkit.testing.script import Script

    write("html_raising_agent.py", "def answer(input):\n    raise KeyError('missing profile')\n")
    path = write(
        "s.yml",
        """
        name: boom
        target: html_raising_agent:answer
        cases:
          - {id: one, input: {}, checks: [{type: contains, value: x}]}
    """,
    )
    report = run_scripted(path, Script())
    run = report.suites[0].cases[0].runs[0]
    assert run.error and "KeyError" in run.error
    assert run.traceback and "raise KeyError('missing profile')" in run.traceback
    assert "missing profile" in render_html(report)


@pytest.mark.parametrize("n", [1, 3])
def test_suites_without_cases_or_models_still_render(n):
    head = html_reports.report(n, "head", suites=n)
    page = render_html(head.model_copy(update={"models": [], "provenance": None}))
    assert page.count('<tr class="case"') == n + 1  # one new case on head


def _bar_widths(page: str, chart_title: str) -> list[tuple[str, float]]:
    """(tooltip, width) of each bar in the chart with this title."""
    start = page.index(f"<title>{chart_title}</title>")
    svg = page[start : page.index("</svg>", start)]
    return [
        (t, float(w))
        for w, t in re.findall(r'<rect class="[^"]*"[^>]*width="([\d.]+)"[^>]*><title>([^<]*)</title>', svg)
    ]


def test_a_zero_pass_rate_is_drawn_not_left_blank():
    _, head, _ = html_reports.pair(12)
    failing = head.suites[1].model_copy(
        update={"cases": [c.model_copy(update={"verdict": "fail"}) for c in head.suites[1].cases]}
    )
    page = render_html(head.model_copy(update={"suites": [head.suites[0], failing]}))
    widths = dict(_bar_widths(page, "pass rate per suite"))
    zero = widths[f"{failing.name} (head): 0%"]
    assert 0 < zero < 5 and "bar-zero" in page
    assert widths[f"{head.suites[0].name} (head): {html_reports_rate(head.suites[0])}"] > 100


def html_reports_rate(suite) -> str:
    scored = [c for c in suite.cases if c.verdict != "skipped"]
    return f"{sum(c.verdict == 'pass' for c in scored) / len(scored):.0%}"


def test_cached_runs_stay_out_of_latency_and_cost_says_what_was_cached():
    from evalkit.llm.usage import Usage
    from evalkit.render.html_view import model_latency

    _, head, _ = html_reports.pair(12)
    live = model_latency(head)["claude-sonnet-4-6"]
    cached_cases = [
        c.model_copy(
            update={
                "usage": Usage(cache_hits=3),
                "runs": [r.model_copy(update={"wall_seconds": 0.001}) for r in c.runs],
            }
        )
        for c in head.suites[0].cases
    ]
    mixed = head.model_copy(
        update={"suites": [head.suites[0].model_copy(update={"cases": cached_cases}), head.suites[1]]}
    )
    only_live = model_latency(mixed)["claude-sonnet-4-6"]
    assert only_live[0] >= 0.4  # the near-zero cached runs did not pull the median down
    assert live[0] >= 0.4
    with_hits = mixed.model_copy(
        update={
            "models": [
                m.model_copy(update={"usage": m.usage.model_copy(update={"cache_hits": 7})}) for m in mixed.models
            ]
        }
    )
    page = render_html(with_hits)
    assert "cost per model (live calls; cached replies are free)" in page and "+ 7 cached" in page
    assert "live runs only" in page
