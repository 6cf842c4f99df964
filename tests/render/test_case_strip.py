"""A case's strip: one cell a run, each with a symbol besides its colour and a tooltip naming the run."""

from __future__ import annotations

from evalkit.render.case_strip import case_strip


def test_one_cell_a_run_with_symbol_tooltip_and_the_last_marked_current():
    strip = case_strip(
        ["pass", "fail", "error", "not run", "not_run", "skipped", "inconclusive", "pass"],
        [f"#{n} · 2026-11-2{n} · c{n}" for n in range(1, 8)] + ["this run · 2026-11-29 · abc"],
        flaky="flaky on main (2 of 10)",
    )
    assert [c.state for c in strip.cells] == ["pass", "fail", "error", "none", "none", "none", "inconclusive", "pass"]
    assert "".join(c.symbol for c in strip.cells) == "✓✗!···?✓"
    assert strip.cells[1].tip == "#2 · 2026-11-22 · c2: fail"
    assert strip.cells[3].tip.endswith(": not run")
    assert [c.current for c in strip.cells] == [False] * 7 + [True]
    assert strip.summary == "last 8 runs: 2 pass, 1 fail, 1 error, 3 not run, 1 inconclusive"
    assert strip.flaky == "flaky on main (2 of 10)"


def test_one_run_is_no_strip():
    assert case_strip(["pass"], ["this run"]) is None
    assert case_strip(["pass", "fail"], ["this run"]) is None  # verdicts and runs must pair up
