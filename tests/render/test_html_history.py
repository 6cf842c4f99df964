"""The HTML report with a history: each suite's charts drawn where the figures say, each case's strip,
flaky cases marked, every text from a suite file or the history escaped; without a history (or with
one run only) no chart at all. The same in a real browser: test_html_browser.py."""

from __future__ import annotations

import base64
import hashlib
import html
import re

import pytest
from click.testing import CliRunner

from evalkit.cli.commands import main
from evalkit.history.database import open_history
from evalkit.history.recording import record
from evalkit.history.report_past import report_past
from evalkit.llm.usage import Usage
from evalkit.render.html import render_html
from evalkit.render.trend_chart import BOTTOM, HEIGHT, TOP
from tests.history.conftest import case, report

HOSTILE = '<script>alert(1)</script>"\u202e'


def costly(r, cost: float):
    """`r` with its suite's cost set (the history's reports are free otherwise: no cost chart)."""
    r.suites[0].usage = Usage(calls=2, cost_usd=cost)
    return r


def recorded(tmp_path, statuses, *, name="qa", commit=lambda n: f"c{n}"):
    conn = open_history(tmp_path / "h.sqlite", create=True)
    for n, status in enumerate(statuses):
        r = costly(
            report(
                case("a", status),
                case("b", "pass"),
                commit=commit(n),
                run_id=f"r{n}",
                started_at=f"2026-11-{n + 1:02d}T00:00:00+00:00",
            ),
            0.01 * (n + 1),
        )
        r.suites[0].name = name
        record(conn, r, branch="main")
    return conn


def head_report(name="qa"):
    head = costly(report(case("a", "fail"), case("b", "pass"), commit="headcommit"), 0.05)
    head.suites[0].name = name
    return head


def svgs(page: str) -> list[str]:
    return re.findall(r"<svg [^>]*class=\"trend-chart\".*?</svg>", page, re.S)


def test_without_a_history_the_page_has_no_chart_strip_or_history_column():
    page = render_html(head_report())
    assert svgs(page) == [] and 'class="strip"' not in page and "<th>last runs</th>" not in page
    assert "flaky on" not in page and "No earlier run" not in page
    assert render_html(head_report(), past=None) == page


def test_each_suite_gets_its_three_charts_with_one_point_a_run(tmp_path):
    conn = recorded(tmp_path, ["pass", "fail", "pass", "fail", "pass"])
    head = head_report()
    page = render_html(head, past=report_past(conn, head))
    drawn = svgs(page)
    assert [re.search(r"<title>qa: (.*?)</title>", s).group(1) for s in drawn] == [
        "pass rate",
        "cost",
        "latency (median, live runs)",
    ]
    for svg in drawn:
        circles = re.findall(r'<circle class="(point[^"]*)" cx="([\d.]+)" cy="([\d.]+)"', svg)
        assert len(circles) == 6  # five recorded runs, then this one
        assert [c[0] for c in circles] == ["point"] * 5 + ["point current"]
    rates = re.findall(r'cy="([\d.]+)"', drawn[0])
    bottom = HEIGHT - BOTTOM
    # pass rates 100 %, 50 %, 100 %, 50 %, 100 %, then this run's 50 %
    assert [float(y) for y in rates] == [TOP, (TOP + bottom) / 2] * 3
    assert "<title>#2 · 2026-11-02 · c1: 50%</title>" in drawn[0]
    assert "Last 6 runs" in page and "5 of main from the history, then this run, ringed" in page
    assert page.count('<details class="trend-table">') == 1


def test_runs_that_all_cost_nothing_draw_no_cost_chart(tmp_path):
    conn = open_history(tmp_path / "h.sqlite", create=True)
    for n in range(3):
        record(conn, report(case("a", "pass"), run_id=f"free{n}"), branch="main")
    head = report(case("a", "pass"))
    drawn = svgs(render_html(head, past=report_past(conn, head)))
    assert [re.search(r"<title>qa: (.*?)</title>", s).group(1) for s in drawn] == [
        "pass rate",
        "latency (median, live runs)",
    ]


def test_each_case_has_its_strip_and_a_flaky_case_its_mark(tmp_path):
    conn = recorded(tmp_path, ["pass", "fail", "pass", "fail"])
    head = head_report()
    page = render_html(head, past=report_past(conn, head))
    assert "<th>last runs</th>" in page
    strips = re.findall(r'<span class="strip" role="img" aria-label="([^"]+)">(.*?)</span></span>', page)
    assert [label for label, _ in strips] == ["last 5 runs: 2 pass, 3 fail", "last 5 runs: 5 pass"]
    cells = re.findall(r'<span class="cell s-(\w+)( current)?" title="([^"]+)">', strips[0][1])
    assert [c[0] for c in cells] == ["pass", "fail", "pass", "fail", "fail"] and cells[-1][1] == " current"
    assert cells[0][2] == "#1 · 2026-11-01 · c0: pass"
    assert page.count('<span class="tag flaky"') == 1 and "flaky on main (2 of 4)</span>" in page


def test_a_history_of_one_run_draws_no_chart_and_no_strip(tmp_path):
    conn = open_history(tmp_path / "h.sqlite", create=True)
    head = head_report()
    page = render_html(head, past=report_past(conn, head))
    assert svgs(page) == [] and 'class="strip"' not in page and "<th>last runs</th>" not in page
    assert "No earlier run of this suite on main in the history" in page


def test_suite_names_and_commits_from_the_history_are_escaped(tmp_path):
    conn = recorded(tmp_path, ["pass", "fail", "pass"], name=HOSTILE, commit=lambda n: f'<i>"{n}')
    head = head_report(HOSTILE)
    page = render_html(head, past=report_past(conn, head))
    assert "<script>alert" not in page and "<i>" not in page
    assert "<title>&lt;script&gt;alert(1)&lt;/script&gt;&#34;[U+202E]: pass rate</title>" in page
    assert 'title="#1 · 2026-11-01 · &lt;i&gt;&#34;0: pass"' in page


def test_the_policy_still_allows_only_the_page_own_style_and_nothing_styles_inline(tmp_path):
    conn = recorded(tmp_path, ["pass", "fail"])
    head = head_report()
    page = render_html(head, past=report_past(conn, head))
    policy = html.unescape(re.search(r'<meta http-equiv="Content-Security-Policy" content="([^"]+)">', page).group(1))
    style = re.search(r"<style>(.*?)</style>", page, re.S).group(1)
    digest = base64.b64encode(hashlib.sha256(style.encode()).digest()).decode()
    assert f"style-src 'sha256-{digest}';" in policy
    assert " style=" not in page  # a style attribute would be refused by the policy: the charts use classes


def test_report_draws_the_charts_from_a_history_file(tmp_path):
    recorded(tmp_path, ["pass", "fail", "pass"]).close()
    head_report().save(tmp_path / "head.json")
    done = CliRunner().invoke(
        main,
        [
            "report",
            str(tmp_path / "head.json"),
            "--format",
            "html",
            "--history",
            str(tmp_path / "h.sqlite"),
            "-o",
            str(tmp_path / "r.html"),
        ],
    )
    assert done.exit_code == 0, done.output
    assert len(svgs((tmp_path / "r.html").read_text(encoding="utf-8"))) == 3


@pytest.mark.parametrize(
    "args, message",
    [
        (["--format", "markdown", "--history", "{tmp}/h.sqlite"], "--history draws the HTML report's trend charts"),
        (["--format", "html", "--history", "{tmp}/none.sqlite"], "no history at"),
        (["--format", "html", "--history", "{tmp}/head.json"], "not an evalkit history"),
    ],
)
def test_report_mistakes_are_one_line(tmp_path, args, message):
    head_report().save(tmp_path / "head.json")
    done = CliRunner().invoke(main, ["report", str(tmp_path / "head.json"), *[a.format(tmp=tmp_path) for a in args]])
    assert done.exit_code == 2, done.output
    assert message in done.output and len(done.output.strip().splitlines()) == 1


def test_run_with_html_and_a_history_draws_the_run_as_the_last_point(write, tmp_path):
    from evalkit.testing.fake_anthropic import FakeAnthropicServer
    from evalkit.testing.script import Script

    recorded(tmp_path, ["pass", "fail"], name="greet").close()
    suite = write(
        "s.yml",
        """
        name: greet
        target: {prompt: "Greet {{ name }}"}
        cases:
          - {id: a, input: {name: Ada}, checks: [{type: contains, value: Ada}]}
    """,
    )
    with FakeAnthropicServer(Script().reply("Hello Ada")) as fake:
        env = {
            "ANTHROPIC_API_KEY": "test-key",
            "ANTHROPIC_BASE_URL": fake.url,
            "EVALKIT_CACHE_DIR": str(tmp_path / "cache"),
        }
        done = CliRunner().invoke(
            main,
            [
                "run",
                str(suite),
                "-o",
                str(tmp_path / "r.json"),
                "--html",
                str(tmp_path / "r.html"),
                "--history",
                str(tmp_path / "h.sqlite"),
            ],
            env=env,
        )
    assert done.exit_code == 0, done.output
    page = (tmp_path / "r.html").read_text(encoding="utf-8")
    rates = svgs(page)[0]
    assert rates.count("<circle") == 3 and "<title>this run" in rates and "Hello Ada" in page
    assert "last 3 runs: 2 pass, 1 fail" in page  # case a: pass, fail in the history, then this run's pass


def test_run_history_needs_html_or_a_baseline(write, tmp_path):
    suite = write(
        "s.yml",
        """
        name: greet
        target: {prompt: "Greet {{ name }}"}
        cases:
          - {id: a, input: {name: Ada}, checks: [{type: contains, value: Ada}]}
    """,
    )
    done = CliRunner().invoke(main, ["run", str(suite), "--history", str(tmp_path / "h.sqlite")])
    assert done.exit_code == 2 and "give --baseline REF or --html PATH too" in done.output


def test_compare_as_html_draws_the_charts_of_head(tmp_path):
    recorded(tmp_path, ["pass", "fail", "pass"]).close()
    report(case("a", "pass"), case("b", "pass")).save(tmp_path / "base.json")
    head_report().save(tmp_path / "head.json")
    done = CliRunner().invoke(
        main,
        [
            "compare",
            str(tmp_path / "base.json"),
            str(tmp_path / "head.json"),
            "--format",
            "html",
            "--history",
            str(tmp_path / "h.sqlite"),
        ],
    )
    assert done.exit_code == 0, done.output  # the regression of a, flaky on main, does not count
    assert len(svgs(done.output)) == 3 and 'class="strip"' in done.output
