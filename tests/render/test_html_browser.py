"""The HTML report in a real headless browser: Debian's chromium driven by Playwright.

Without playwright or a chromium binary these tests skip with the reason; with
EVALKIT_REQUIRE_BROWSER_TESTS=1 (set by .ci/run) they fail instead, so CI cannot pass by
skipping them. EVALKIT_REPORT_SCREENSHOT=path also copies the screenshot there (docs/report.png).
"""

from __future__ import annotations

import os
import re
import shutil
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import html_reports
import pytest

from evalkit.history.access import read_report_past, record_file
from evalkit.llm.usage import Usage
from evalkit.render.html import render_html
from evalkit.results.provenance import Provenance
from evalkit.results.report import CaseResult, ItemResult, Report, RunResult, SuiteResult

CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome")


def _unavailable(reason: str) -> None:
    if os.environ.get("EVALKIT_REQUIRE_BROWSER_TESTS") == "1":
        pytest.fail(f"browser tests are required here (EVALKIT_REQUIRE_BROWSER_TESTS=1) but {reason}")
    pytest.skip(f"no headless browser: {reason}")


try:
    from playwright.sync_api import expect, sync_playwright
except ImportError:
    sync_playwright = None


@pytest.fixture(scope="module")
def browser():
    if sync_playwright is None:
        _unavailable("playwright is not installed (pip install playwright)")
    executable = os.environ.get("EVALKIT_CHROMIUM") or next(filter(None, map(shutil.which, CHROMIUM_NAMES)), None)
    if not executable:
        _unavailable("no chromium on PATH (apt-get install -y chromium)")
    with sync_playwright() as pw:
        instance = pw.chromium.launch(executable_path=executable)
        yield instance
        instance.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 860})
    tab = context.new_page()
    errors: list[str] = []
    tab.on("pageerror", lambda exc: errors.append(str(exc)))
    yield tab
    context.close()
    assert not errors, f"the page's script failed: {errors}"


@pytest.fixture(scope="module")
def compared(tmp_path_factory):
    base, head, cmp = html_reports.pair(24)
    path = tmp_path_factory.mktemp("html") / "report.html"
    path.write_text(render_html(head, comparison=cmp, base=base), encoding="utf-8")
    return path, head, cmp


def visible_keys(page) -> list[str]:
    return page.eval_on_selector_all("tr.case:not([hidden])", "rows => rows.map(r => r.dataset.key)")


def test_case_table_renders_with_the_right_counts(page, compared, tmp_path):
    path, head, cmp = compared
    page.goto(path.as_uri())
    tables = page.locator("table.cases-table")
    assert tables.count() == len(head.suites)
    for i, suite in enumerate(head.suites):
        assert tables.nth(i).locator("tr.case").count() == len(suite.cases)
        verdicts = tables.nth(i).locator("tr.case td:nth-child(2)").all_inner_texts()
        assert verdicts.count("fail") == suite.count("fail") and verdicts.count("error") == suite.count("error")
    total = sum(len(s.cases) for s in head.suites)
    assert page.inner_text("#shown") == str(total)
    failed = sum(s.count("fail") for s in head.suites)
    assert page.inner_text("button[data-filter=failed]") == f"failed ({failed})"
    assert page.inner_text("button[data-filter=regressed]") == f"regressed ({cmp.regressed})"
    # Changed cases lead each table: the first rows of the first suite are its regressions.
    first = [d.id for d in cmp.suites[0].cases if d.change == "regressed"]
    keys = visible_keys(page)[: len(first)]
    assert keys == [f"{head.suites[0].name}/{i}" for i in first]
    shot = tmp_path / "report.png"
    page.screenshot(path=str(shot))
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_clicking_a_failing_case_shows_its_items_and_reasons(page, compared, tmp_path):
    path, head, _ = compared
    case = next(c for s in head.suites for c in s.cases if c.verdict == "fail")
    page.goto(path.as_uri())
    assert page.locator("#panel").is_hidden()
    page.locator(f"tr.case:has(code:text-is('{case.id}'))").click()
    panel = page.locator("section.detail:visible")
    assert panel.count() == 1
    text = panel.inner_text()
    for item in case.runs[0].items:
        assert item.id in text and item.reason in text
    for reason in case.reasons:
        assert reason in text
    assert "only" in panel.locator("table.items").inner_text()  # the failing item's own reason
    shot = tmp_path / "case.png"
    page.screenshot(path=str(shot))
    if os.environ.get("EVALKIT_REPORT_SCREENSHOT"):
        shutil.copyfile(shot, os.environ["EVALKIT_REPORT_SCREENSHOT"])


def test_the_regressed_filter_shows_exactly_the_regressed_cases(page, compared):
    path, _, cmp = compared
    page.goto(path.as_uri())
    page.click("button[data-filter=regressed]")
    expected = {f"{d.suite}/{d.id}" for d in cmp.cases("regressed")}
    assert expected and set(visible_keys(page)) == expected
    assert page.inner_text("#shown") == str(len(expected))
    page.click("button[data-filter=regressed]")  # off again: every case
    assert page.inner_text("#shown") == str(page.locator("tr.case").count())


def test_search_finds_a_case_by_a_word_of_its_output(page, compared):
    path, _, _ = compared
    page.goto(path.as_uri())
    page.fill("#search", html_reports.word(12).upper())
    expect(page.locator("#shown")).to_have_text("1")  # the search waits for a pause in typing
    assert visible_keys(page) == ["help_agents/case-0012"]
    page.fill("#search", "no such words anywhere")
    expect(page.locator("#shown")).to_have_text("0")


def test_the_url_fragment_reopens_the_same_case_and_filters(page, compared):
    path, _, cmp = compared
    page.goto(path.as_uri())
    target = cmp.cases("regressed")[-1]
    page.click("button[data-filter=regressed]")
    page.locator(f"tr.case[data-key='{target.suite}/{target.id}']").click()
    url = page.url
    assert "case=" in url and "f=regressed" in url
    other = page.context.new_page()
    other.goto(url)
    section = other.locator("section.detail:visible")
    assert section.count() == 1 and f"{target.suite} / {target.id}" in section.locator("h2").inner_text()
    assert other.get_attribute("button[data-filter=regressed]", "aria-pressed") == "true"
    assert set(visible_keys(other)) == {f"{d.suite}/{d.id}" for d in cmp.cases("regressed")}
    other.keyboard.press("Escape")
    assert other.locator("#panel").is_hidden() and "case=" not in other.url


def test_columns_sort_when_their_header_is_clicked(page, compared):
    path, head, _ = compared
    page.goto(path.as_uri())
    table = page.locator("table.cases-table").first
    table.locator("th", has_text="case").click()
    ids = table.locator("tr.case td:first-child").all_inner_texts()
    assert ids == sorted(c.id for c in head.suites[0].cases)
    table.locator("th", has_text="case").click()
    assert table.locator("tr.case td:first-child").all_inner_texts() == sorted(ids, reverse=True)


class _Beacon(BaseHTTPRequestHandler):
    hits: list[str] = []

    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        self.hits.append(self.path)
        self.send_response(204)
        self.end_headers()

    def log_message(self, *args) -> None:
        pass


@pytest.fixture
def beacon():
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Beacon)
    _Beacon.hits = []
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_port}", _Beacon.hits
    server.shutdown()


def hostile_report(url: str) -> Report:
    """Every way a model's output (or a suite author's text) might try to run code or make a request."""
    payloads = [
        "<script>window.__pwned = 'script'</script>",
        f'<img src="{url}/img.png" onerror="window.__pwned=\'img\'">',
        f'<svg onload="window.__pwned=\'svg\'"><image href="{url}/svg.png"/></svg>',
        "<a href=\"javascript:window.__pwned='link'\">click me</a>",
        f'<div style="background:url({url}/css.png)">styled</div>',
        f'<style>body{{background:url({url}/style.png)}}</style><link rel=stylesheet href="{url}/x.css">',
        f'<iframe src="{url}/frame"></iframe><meta http-equiv=refresh content="0;url={url}/refresh">',
        "</pre></section></aside><script>window.__pwned='breakout'</script>",
        "\"><script>window.__pwned='attr'</script><x y=\"",
        "bidi: \u202egnp.exe\u202c and a zero-width\u200bjoiner",
    ]
    text = "\n".join(payloads)
    item = ItemResult(
        id="x<script>window.__pwned='id'</script>", text=text, status="fail", reason=text, decided_by="judge"
    )
    case = CaseResult(
        id='evil"><img src=x onerror="window.__pwned=\'case\'">',
        verdict="fail",
        reasons=[text],
        input={"prompt": text},
        description=text,
        runs=[
            RunResult(
                repeat=0, output=text, prompt=text, error=None, items=[item], fields={"note": text}, traceback=text
            )
        ],
    )
    suite = SuiteResult(
        name="s<script>window.__pwned='suite'</script>",
        path="x",
        verdict="fail",
        cases=[case],
        target=text,
        error=text,
        models={"target": text},
    )
    return Report(verdict="fail", suites=[suite], warnings=[text], run_url="javascript:window.__pwned='run'")


@pytest.mark.parametrize("with_csp", [True, False], ids=["with-csp", "escaping-alone"])
def test_hostile_output_makes_no_request_and_runs_no_script(page, beacon, tmp_path, with_csp):
    url, hits = beacon
    html = render_html(hostile_report(url))
    if not with_csp:  # the escaping must hold on its own; the policy is the second wall
        html = re.sub(r'<meta http-equiv="Content-Security-Policy"[^>]*>', "", html)
        assert "Content-Security-Policy" not in html
    path = tmp_path / "hostile.html"
    path.write_text(html, encoding="utf-8")
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    page.goto(path.as_uri())
    page.locator("tr.case").first.click()
    section = page.locator("section.detail:visible")
    assert "<script>window.__pwned = 'script'</script>" in section.locator("pre.out").inner_text()
    assert "[U+202E]gnp.exe[U+202C]" in section.locator("pre.out").inner_text()
    page.fill("#search", "click me")
    expect(page.locator("#shown")).to_have_text("1")
    section.get_by_text("click me").first.click()
    page.wait_for_timeout(300)
    assert page.evaluate("typeof window.__pwned") == "undefined"
    assert requests == [path.as_uri()]
    assert hits == []


def _run_of_history(n: int, a_passes: bool, *, name: str = "qa", hostile_commit: bool = False) -> Report:
    """Run `n` of suite `name`: case `a` passes or fails, `b` passes; cost and latency grow with `n`."""

    def one(case_id: str, passed: bool) -> CaseResult:
        item = ItemResult(id="tone", text="tone holds", status="pass" if passed else "fail", reason="r")
        return CaseResult(
            id=case_id,
            verdict="pass" if passed else "fail",
            input={"q": case_id},
            runs=[RunResult(repeat=0, output="o", items=[item], passed=passed, wall_seconds=0.5 + n / 10)],
        )

    cases = [one("a", a_passes), one("b", True)]
    commit = f"<b onmouseover=x>{n}" if hostile_commit else f"c{n:03d}"
    suite = SuiteResult(
        name=name,
        path="/repo/suites/qa.yml",
        verdict="pass" if a_passes else "fail",
        target="agent:answer",
        cases=cases,
        models={"target": "m1"},
        usage=Usage(calls=2, cost_usd=0.01 * (n + 1)),
    )
    return Report(
        verdict=suite.verdict,
        suites=[suite],
        run_id=f"run-{n}",
        started_at=f"2026-11-{n + 1:02d}T08:00:00",
        provenance=Provenance(git_commit=commit, files={"suites/qa.yml": "h1"}),
    )


RECORDED = [True, False, True, False, True, True]  # case a's verdicts in the recorded runs: it flips, so flaky


@pytest.fixture(scope="module")
def with_history(tmp_path_factory):
    """A page drawn from a real SQLite history: six runs recorded through `record_file` (what `evalkit
    history record` calls), then a seventh run's page reading it."""
    folder = tmp_path_factory.mktemp("history")
    history = folder / "history.sqlite"
    for n, a_passes in enumerate(RECORDED):
        _run_of_history(n, a_passes).save(folder / f"run{n}.json")
        record_file(folder / f"run{n}.json", history, branch="main")
    head = _run_of_history(len(RECORDED), False)
    path = folder / "report.html"
    path.write_text(render_html(head, past=read_report_past(history, head)), encoding="utf-8")
    return path


def test_the_history_charts_are_drawn_with_one_point_a_run(page, with_history):
    violations: list[str] = []
    page.on("console", lambda m: violations.append(m.text) if "Content Security Policy" in m.text else None)
    page.goto(with_history.as_uri())
    charts = page.locator("svg.trend-chart")
    expect(charts).to_have_count(3)
    assert [c.locator("title").first.text_content() for c in charts.all()] == [
        "qa: pass rate",
        "qa: cost",
        "qa: latency (median, live runs)",
    ]
    runs = len(RECORDED) + 1
    for chart in charts.all():
        box = chart.bounding_box()
        assert box is not None and box["width"] > 100 and box["height"] > 50
        expect(chart.locator("circle")).to_have_count(runs)
        expect(chart.locator("circle.current")).to_have_count(1)
        line = chart.locator("polyline.trend-line").bounding_box()
        assert line is not None and line["width"] > 100  # the line spans the runs
    rates = charts.first
    # where the browser drew each point is where its value says: 100 % at the top line, 50 % halfway
    top, bottom = (float(rates.locator("line.grid").nth(i).get_attribute("y1")) for i in (2, 0))
    svg_top = rates.bounding_box()["y"]
    centres = [c.bounding_box() for c in rates.locator("circle").all()]
    ys = [round(b["y"] + b["height"] / 2 - svg_top, 1) for b in centres]
    expected = [top if passed else (top + bottom) / 2 for passed in [*RECORDED, False]]
    assert ys == pytest.approx(expected, abs=1.0)
    assert rates.locator("circle").nth(1).locator("title").text_content() == "#2 · 2026-11-02 · c001: 50%"
    assert rates.locator("circle.current title").text_content().startswith("this run · 2026-11-07 · c006: 50%")
    assert "lowest 50%, highest 100%" in rates.locator("desc").text_content()
    page.get_by_text("The same figures as a table").click()
    expect(page.locator("details.trend-table tbody tr")).to_have_count(runs)
    assert violations == []


def test_each_case_shows_its_strip_and_the_flaky_one_its_mark(page, with_history):
    page.goto(with_history.as_uri())
    row = page.locator('tr.case[data-key="qa/a"]')
    row.scroll_into_view_if_needed()  # a strip off screen is not laid out (content-visibility: auto)
    cells = row.locator(".strip .cell")
    expect(cells).to_have_count(len(RECORDED) + 1)
    for cell in cells.all():
        box = cell.bounding_box()
        assert box is not None and box["width"] > 5 and box["height"] > 5
    assert "".join(cells.all_inner_texts()) == "✓✗✓✗✓✓✗"
    assert cells.nth(1).get_attribute("title") == "#2 · 2026-11-02 · c001: fail"
    assert "current" in cells.last.get_attribute("class")
    assert row.locator(".strip").get_attribute("aria-label") == "last 7 runs: 4 pass, 3 fail"
    expect(row.locator(".tag.flaky")).to_have_text("flaky on main (2 of 6)")
    expect(page.locator('tr.case[data-key="qa/b"] .strip .cell.s-pass')).to_have_count(len(RECORDED) + 1)
    row.click()  # the strip is inside the row: the row still opens its case
    expect(page.locator("section.detail:visible h2")).to_contain_text("qa / a")


def test_hostile_names_in_the_history_run_no_script(page, beacon, tmp_path):
    url, hits = beacon
    name = f"s<script>window.__pwned='suite'</script><img src=\"{url}/x.png\">"
    history = tmp_path / "history.sqlite"
    for n in range(3):
        _run_of_history(n, n % 2 == 0, name=name, hostile_commit=True).save(tmp_path / f"run{n}.json")
        record_file(tmp_path / f"run{n}.json", history, branch="main")
    head = _run_of_history(3, True, name=name, hostile_commit=True)
    path = tmp_path / "hostile.html"
    path.write_text(render_html(head, past=read_report_past(history, head)), encoding="utf-8")
    page.goto(path.as_uri())
    expect(page.locator("svg.trend-chart")).to_have_count(3)
    page.locator(".strip .cell").first.hover()
    assert page.locator("svg.trend-chart title").first.text_content() == f"{name}: pass rate"
    assert page.evaluate("typeof window.__pwned") == "undefined"
    assert hits == []
