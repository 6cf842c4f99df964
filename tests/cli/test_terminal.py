"""The progress display: done/total, rate and ETA; a status line redrawn on a terminal, plain lines
in CI or a pipe; colour only on a terminal and never under NO_COLOR."""

from __future__ import annotations

import io
from types import SimpleNamespace

import pytest

from evalkit.cli.terminal import Progress


class Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def case(id: str, verdict: str = "pass", errors=(), reasons=(), runs=()):
    return SimpleNamespace(
        id=id, verdict=verdict, wall_seconds=0.5, errors=list(errors), reasons=list(reasons), runs=list(runs)
    )


SUITE = SimpleNamespace(name="s")


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture(autouse=True)
def plain_env(monkeypatch):
    for name in ("CI", "NO_COLOR", "TERM"):
        monkeypatch.delenv(name, raising=False)


def test_plain_lines_carry_count_rate_and_eta():
    out, clock = io.StringIO(), Clock()
    progress = Progress(4, stream=out, clock=clock)
    clock.now = 2.0
    progress(SUITE, case("a"))
    clock.now = 4.0
    progress(SUITE, case("b", "error", errors=["target called sys.exit(3)"], reasons=["1 error row(s)"]))
    lines = out.getvalue().splitlines()
    assert lines[0] == "[1/4 cases · 0.5/s · ETA 6 s] PASS s/a 0.5s"
    assert lines[1] == "[2/4 cases · 0.5/s · ETA 4 s] ERROR s/b 0.5s  (1 error row(s))"
    assert lines[2] == "    target called sys.exit(3)"  # what went wrong, under its case
    assert "\x1b" not in out.getvalue() and "\r" not in out.getvalue()


def test_a_terminal_gets_one_status_line_redrawn_and_the_cases_that_did_not_pass():
    out, clock = Tty(), Clock()
    progress = Progress(3, stream=out, clock=clock)
    for i, verdict in enumerate(["pass", "fail", "pass"]):
        clock.now = i + 1.0
        progress(SUITE, case(f"c{i}", verdict, reasons=["checks: 1 of 1 failed"] if verdict == "fail" else []))
    text = out.getvalue()
    assert "c0" not in text and "✗ s/c1 0.5s  (checks: 1 of 1 failed)" in text
    assert "\r\x1b[2K" in text and text.endswith("3/3 cases · 1.0/s\n")
    assert "1/3 cases · 1.0/s · ETA 2 s" in text
    assert "\x1b[31m" in text  # red for the failure


def test_no_color_and_ci_are_honoured(monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    out = Tty()
    Progress(1, stream=out)(SUITE, case("a", "fail"))
    assert "\x1b[3" not in out.getvalue() and "✗ s/a" in out.getvalue()  # live, but no colour
    monkeypatch.delenv("NO_COLOR")
    monkeypatch.setenv("CI", "true")
    out = Tty()
    Progress(1, stream=out)(SUITE, case("a", "fail"))
    assert out.getvalue() == "[1/1 cases · " + out.getvalue().split("[1/1 cases · ")[1]  # plain lines in CI
    assert "\x1b" not in out.getvalue()


def test_without_a_total_there_is_no_eta():
    out = io.StringIO()
    Progress(None, stream=out)(SUITE, case("a"))
    assert out.getvalue().startswith("[1 cases · ") and "ETA" not in out.getvalue()


def test_inside_the_event_loop_the_lines_of_one_turn_go_out_in_one_write_in_order():
    import asyncio

    class Counting(io.StringIO):
        writes = 0

        def write(self, text: str) -> int:
            Counting.writes += 1
            return super().write(text)

    out, clock = Counting(), Clock()
    progress = Progress(6, stream=out, clock=clock)

    async def main():
        for i in range(3):  # three cases finish in one turn of the loop
            progress(SUITE, case(f"a{i}"))
        assert out.getvalue() == ""  # not yet: at the end of the turn
        await asyncio.sleep(0)
        written = out.getvalue(), Counting.writes
        for i in range(3):
            progress(SUITE, case(f"b{i}"))
        return written

    written, writes = asyncio.run(main())
    assert written.count("\n") == 3 and writes == 1
    # The last turn's lines are written as the loop winds down, before asyncio.run returns.
    assert [line.split("] ")[1] for line in out.getvalue().splitlines()] == [
        f"PASS s/{name} 0.5s" for name in ("a0", "a1", "a2", "b0", "b1", "b2")
    ]
    assert Counting.writes == 2


def test_a_failing_case_shows_its_tool_calls_in_one_line():
    from evalkit.results.report import RunResult
    from evalkit.trace.steps import Step

    trace = [Step.tool_call("search", {"q": "tempo"}), Step.tool_call("book", {"day": "mon"}, error="read-only\x1b[2J")]
    out = io.StringIO()
    progress = Progress(3, stream=out, clock=Clock())
    runs = [RunResult(repeat=0, passed=True, trace=trace[:1]), RunResult(repeat=1, passed=False, trace=trace)]
    progress(SUITE, case("a", "fail", reasons=["checks: 1 of 2 failed"], runs=runs))
    progress(SUITE, case("b", "pass", runs=runs))
    progress(SUITE, case("c", "fail", runs=[RunResult(repeat=0, passed=False)]))
    lines = out.getvalue().splitlines()
    # the run that failed, not the first one; no escape sequence from the tool's text reaches the terminal
    assert lines[1] == '    run 2 tools: search(q="tempo") → error in book(day="mon"): read-only[2J'
    assert "\x1b" not in out.getvalue() and "tools:" not in "".join(lines[2:])
