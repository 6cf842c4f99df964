"""`evalkit demo` shows a comparison with a scripted base too: what a regression report looks like."""

from __future__ import annotations

import json

from click.testing import CliRunner

from evalkit.cli.commands import main
from evalkit.render.comment import MARKER


def test_demo_compares_the_scripted_head_with_a_scripted_base(tmp_path):
    out = tmp_path / "demo"
    result = CliRunner().invoke(main, ["demo", "--output-dir", str(out)], catch_exceptions=False)
    assert result.exit_code == 1  # the pace_ai head is the blocked PR
    cmp = json.loads((out / "comparison.json").read_text())
    changes = {(c["suite"], c["id"]): c["change"] for s in cmp["suites"] for c in s["cases"]}
    regressed = {k for k, v in changes.items() if v == "regressed"}
    # the reckless coaching is given to one runner: every case of hers that got worse, and only hers
    assert {
        ("pace_ai", f"{s}/injury_risk_female") for s in ("weekly_plan", "injury_risk", "race_readiness")
    } <= regressed
    assert ("pace_ai_agent", "agent/injury_risk_female") in regressed  # the agent skipping a tool: hers too
    assert all(suite in ("pace_ai", "pace_ai_agent") and "injury_risk_female" in case for suite, case in regressed)
    agent = next(c for s in cmp["suites"] for c in s["cases"] if c["id"] == "agent/injury_risk_female")
    assert agent["trajectory"], agent  # its tool calls changed: the comparison says which
    assert all(v in ("regressed", "still passing", "within noise") for v in changes.values())
    assert not any(v == "fixed" for v in changes.values())
    assert f"{len(regressed)} cases got worse, 0 got better" in result.output
    comment = (out / "comment.md").read_text()
    assert comment.startswith(MARKER + "\n> **Demo comparison with scripted replies**")
    assert comment.index(f"{len(regressed)} cases got worse") < comment.index("A gate failed")
    page = (out / "report.html").read_text()  # the HTML report shows the same comparison
    assert f"regressed ({len(regressed)})" in page and "Output on base (scripted: sound replies)" in page
    _each_failing_case_once_in_plain_words(comment, cmp)


def _each_failing_case_once_in_plain_words(comment: str, cmp: dict) -> None:
    """The blocked PR's comment: each failing case explained in one details block with its answer,
    a headline without jargon, no p-value beside a row the collapse rule decided, costs like with like."""
    import re

    failing = [
        (c["suite"], c["id"]) for s in cmp["suites"] for c in s["cases"] if c["head_verdict"] in ("fail", "error")
    ]
    assert failing
    summaries = [line for line in comment.splitlines() if line.startswith("<details><summary>")]
    for suite, case in failing:
        mine = [line for line in summaries if f"<code>{suite}/{case}</code>" in line or f"<code>{case}</code>" in line]
        assert len(mine) == 1, (suite, case, mine)
    assert comment.count("failed on this answer") == len(failing)
    headline = next(line for line in comment.splitlines() if line.startswith("## "))
    for jargon in ("band", "Wilson", "p=", "p =", "α", "interval", "noise", "significan"):
        assert jargon not in headline, (jargon, headline)
    collapsed = {
        f["id"]
        for s in cmp["suites"]
        for c in s["cases"]
        for f in c["flips"]
        if f["significant"]
        and (f["critical"] or f["decided_by"] == "code")
        and f["head_passed"] in (0, f["head_runs"])
        and f["base_passed"] in (0, f["base_runs"])
    }
    assert collapsed
    for row in (line for line in comment.splitlines() if line.startswith("| `")):
        for flip in re.findall(r"([\w:.-]+) \d+/\d+→\d+/\d+( \(p=[^)]*\))?", row):
            assert not (flip[0] in collapsed and flip[1]), row
    assert (
        "| Cost at list price | Cache hits |" in comment and "*Cost at list price* prices every model call" in comment
    )
