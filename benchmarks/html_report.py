"""The HTML report at scale: render a base-vs-head report of N cases (default 5,000), open it in
headless chromium (Playwright with Debian's chromium), filter, search and open a case. Prints
the file size per case and medians over --rounds.

    python benchmarks/html_report.py [--cases 5000] [--rounds 3] [--chromium /usr/bin/chromium] [--history 19]

The cases come from tests/render/html_reports.py (each output ~600 characters, three items, two
extracted fields, one run; every 7th case regressed, every 17th raised). With --history N, head is
first recorded N times in a history (as N earlier runs of main) and the page draws the trend charts and
a strip of N + 1 cells beside every case.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "render"))

import html_reports  # noqa: E402  (a test helper, found through the path above)

from evalkit.history.database import open_history  # noqa: E402
from evalkit.history.recording import record  # noqa: E402
from evalkit.history.report_past import ReportPast, report_past  # noqa: E402
from evalkit.render.html import render_html  # noqa: E402
from evalkit.results.report import Report  # noqa: E402


def history_of(head: Report, runs: int, folder: Path) -> ReportPast | None:
    """`head` recorded `runs` times as earlier runs of main, and what that history says of it."""
    if not runs:
        return None
    conn = open_history(folder / "history.sqlite", create=True)
    try:
        for n in range(runs):
            record(conn, head.model_copy(update={"run_id": f"earlier-{n}"}), branch="main", commit=f"{n:040x}")
        return report_past(conn, head)
    finally:
        conn.close()


def measure(path: Path, chromium: str) -> dict[str, float]:
    from playwright.sync_api import expect, sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium)
        page = browser.new_page(viewport={"width": 1280, "height": 860})
        t0 = time.perf_counter()
        page.goto(path.as_uri(), wait_until="load")
        opened = time.perf_counter() - t0
        load_event = page.evaluate("() => performance.getEntriesByType('navigation')[0].loadEventEnd")
        # The filter runs synchronously in the click handler: time it inside the page.
        filtered = page.evaluate("""() => {
            const t = performance.now();
            document.querySelector("button[data-filter=regressed]").click();
            void document.body.getBoundingClientRect();  // the filtered table laid out
            return performance.now() - t; }""")
        shown_regressed = int(page.inner_text("#shown"))
        page.click("button[data-filter=regressed]")
        # Typing pauses 120 ms before the search runs; time from the keystroke to the filtered table.
        searched = page.evaluate(
            """async (word) => {
            const t = performance.now(), box = document.getElementById("search");
            box.value = word;
            box.dispatchEvent(new Event("input"));
            await new Promise(done => { const i = setInterval(() => {
                if (document.getElementById("shown").textContent === "1") { clearInterval(i); done(); } }, 2); });
            void document.body.getBoundingClientRect();  // the filtered table laid out
            return performance.now() - t; }""",
            html_reports.word(4321),
        )
        expect(page.locator("#shown")).to_have_text("1")
        # Opening a case: the click, then a forced layout of the panel.
        opened_case = page.evaluate("""() => {
            const t = performance.now();
            document.querySelector("tr.case:not([hidden])").click();
            void document.getElementById("panel").getBoundingClientRect();
            return performance.now() - t; }""")
        assert page.locator("section.detail:not([hidden])").count() == 1
        browser.close()
    return {
        "open_s": opened,
        "load_event_ms": load_event,
        "filter_ms": filtered,
        "search_s": searched,
        "open_case_s": opened_case,
        "regressed_shown": shown_regressed,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=5000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--chromium", default=shutil.which("chromium") or "chromium")
    parser.add_argument("--history", type=int, default=0, help="Earlier runs in a history: draw the trends.")
    args = parser.parse_args()

    base, head, cmp = html_reports.pair(args.cases)
    cases = sum(len(s.cases) for s in head.suites)
    renders, runs = [], []
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "report.html"
        past = history_of(head, args.history, Path(tmp))
        for _ in range(args.rounds):
            t0 = time.perf_counter()
            page = render_html(head, comparison=cmp, base=base, past=past)
            renders.append(time.perf_counter() - t0)
        path.write_text(page, encoding="utf-8")
        size = path.stat().st_size
        for _ in range(args.rounds):
            runs.append(measure(path, args.chromium))

    def med(key: str) -> float:
        return statistics.median(r[key] for r in runs)

    print(
        f"cases: {cases} (head), {cmp.regressed} regressed; base outputs shown beside head's"
        + (f"; trends of {args.history} earlier runs" if args.history else "")
    )
    print(f"file: {size / 1e6:.1f} MB, {size / cases / 1000:.2f} kB per case")
    print(f"render (Python, Jinja): {statistics.median(renders):.2f} s")
    print(f"open in chromium (goto until load): {med('open_s'):.2f} s; load event at {med('load_event_ms'):.0f} ms")
    print(
        f"filter 'regressed' (in-page, click to laid out): {med('filter_ms'):.0f} ms, "
        f"{runs[0]['regressed_shown']:.0f} rows shown"
    )
    print(
        f"search one word (in-page, keystroke to filtered table, incl. the 120 ms typing pause): "
        f"{med('search_s'):.0f} ms"
    )
    print(f"open a case's drill-down (in-page, click to laid out): {med('open_case_s'):.0f} ms")
    print(f"medians over {args.rounds} rounds")


if __name__ == "__main__":
    main()
