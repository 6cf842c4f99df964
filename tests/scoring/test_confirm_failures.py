"""confirm_failures: N more judge calls only for the items the judge failed, the majority of all its
answers deciding; planned as an upper bound. Scripted judges: one that fails an item one time in
three, one that always fails it."""

from __future__ import annotations

import itertools
import threading

from evalkit.engine import load_suites, make_client, run
from evalkit.engine.planning import estimate
from evalkit.run.runner import RunOptions
from evalkit.testing.script import Script
from evalkit.testing.scripted import ScriptedProvider

SUITE = """
name: confirm
target:
  prompt: "Say hi"
confirm_failures: {n}
cases:
  - id: c
    rubric:
      - {{id: kind, judge: The reply is kind, critical: true}}
      - {{id: short, judge: The reply is short}}
"""


class Judge:
    """A scripted judge: `kind` fails on the calls `fails(n)` picks (n counts the calls asking about
    it), `short` always passes; every request is kept."""

    def __init__(self, fails):
        self.fails, self.calls, self.asked = fails, itertools.count(), []
        self.lock = threading.Lock()

    def __call__(self, body):
        text = str(body)
        with self.lock:
            self.asked.append(text)
            n = next(self.calls) if "The reply is kind" in text else None
        items = []
        if n is not None:
            verdict = "fail" if self.fails(n) else "pass"
            items.append({"id": "kind", "reason": f"call {n}: {verdict}", "verdict": verdict})
        if "The reply is short" in text:
            items.append({"id": "short", "reason": "short", "verdict": "pass"})
        return {"items": items}


def run_once(path, judge):
    client = make_client(
        ScriptedProvider(Script().reply("hi").respond(judge, tool="record_verdicts")), no_cache=True, deprecated=None
    )
    return run(load_suites([path]), client, RunOptions())


def kind(report):
    [case] = report.suites[0].cases
    return case, next(i for i in case.runs[0].items if i.id == "kind")


def test_a_judge_that_fails_one_time_in_three_becomes_a_stable_pass(write):
    path = write("s.yml", SUITE.format(n=2))
    judge = Judge(lambda n: n % 3 == 0)  # every run starts on the failing call: the worst phase
    for _ in range(6):
        report = run_once(path, judge)
        case, item = kind(report)
        assert (report.verdict, case.verdict, item.status) == ("pass", "pass", "pass"), item.reason
        assert item.votes == ["fail", "pass", "pass"] and "confirmed: 2/3 judge votes pass" in item.reason


def test_without_confirm_failures_that_judge_blocks(write):
    report = run_once(write("s.yml", SUITE.format(n=0)), Judge(lambda n: n % 3 == 0))
    case, item = kind(report)
    assert (report.verdict, item.status) == ("fail", "fail")


def test_a_judge_that_always_fails_the_item_still_blocks(write):
    judge = Judge(lambda n: True)
    report = run_once(write("s.yml", SUITE.format(n=2)), judge)
    case, item = kind(report)
    assert (report.verdict, case.verdict, item.status) == ("fail", "fail", "fail")
    assert item.votes == ["fail", "fail", "fail"] and "confirmed: 0/3 judge votes pass" in item.reason
    assert case.critical_failures == ["kind"]


def test_only_the_failed_items_are_asked_again(write):
    judge = Judge(lambda n: True)
    run_once(write("s.yml", SUITE.format(n=2)), judge)
    assert len(judge.asked) == 3
    assert all("The reply is short" not in text for text in judge.asked[1:])  # the passing item: never again
    assert all("The reply is kind" in text for text in judge.asked)


def test_a_pass_is_not_asked_again(write):
    judge = Judge(lambda n: False)
    report = run_once(write("s.yml", SUITE.format(n=2)), judge)
    assert len(judge.asked) == 1 and kind(report)[1].votes == []


def test_plan_counts_the_confirming_calls_as_an_upper_bound(write):
    suite = SUITE.format(n=2).replace("  - id: c\n", "  - id: c\n    repeats: 3\n")
    est = estimate(load_suites([write("s.yml", suite)]))
    [line] = est.lines
    assert (line.judge_calls, line.confirm_calls) == (3, 6)
    assert line.calls == line.target_calls + 3 + 6
    plain = estimate(load_suites([write("p.yml", suite.replace("confirm_failures: 2", "confirm_failures: 0"))]))
    assert est.cost()[0] > plain.cost()[0]
    assert "confirm: confirm_failures: up to 6 more judge calls" in est.render()
