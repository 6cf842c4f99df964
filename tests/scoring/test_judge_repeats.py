"""judge_repeats: N judge calls per run, each item decided by the majority; plan counts them."""

from __future__ import annotations

import itertools

from evalkit.engine import load_suites, make_client, run
from evalkit.engine.planning import estimate
from evalkit.run.runner import RunOptions
from evalkit.testing.script import Script
from evalkit.testing.scripted import ScriptedProvider

SUITE = """
name: votes
target:
  prompt: "Say hi"
judge_repeats: 3
cases:
  - id: c
    rubric:
      - {id: kind, judge: The reply is kind}
      - {id: once, judge: The reply is short, judge_repeats: 1}
gold:
  - {case: c, output: hi, labels: {kind: pass}}
"""


def test_three_judge_calls_a_majority_and_the_votes_in_the_report(write):
    turns = itertools.cycle(["pass", "fail", "pass"])
    asked = []

    def judge(body):
        asked.append(body)
        v = next(turns)
        return {
            "items": [
                {"id": "kind", "reason": f"said {v}", "verdict": v},
                {"id": "once", "reason": f"said {v}", "verdict": v},
            ]
        }

    provider = ScriptedProvider(Script().reply("hi").respond(judge, tool="record_verdicts"))
    report = run(
        load_suites([write("s.yml", SUITE)]), make_client(provider, no_cache=True, deprecated=None), RunOptions()
    )
    items = {i.id: i for i in report.suites[0].cases[0].runs[0].items}
    assert len(asked) == 3
    assert sorted(items["kind"].votes) == ["fail", "pass", "pass"] and items["kind"].status == "pass"
    assert items["kind"].reason.endswith("(2/3 judge votes pass)")
    assert len(items["once"].votes) == 1  # its own judge_repeats: the first vote alone


def test_plan_counts_judge_repeats_and_calibration_calls(write):
    est = estimate(load_suites([write("s.yml", SUITE)]))
    [line] = est.lines
    assert line.judge_calls == 3 and line.calibration_calls == 3
    assert "`evalkit calibrate` makes 3 judge and extraction calls" in est.render()
