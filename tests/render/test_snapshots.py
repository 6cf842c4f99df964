"""Snapshots of what a reader sees: the markdown report and the PR comment of one fixed Report.

A change to a template or a renderer shows here as a diff of the text a person reads. When the
change is meant, write the new snapshots with `EVALKIT_UPDATE_SNAPSHOTS=1 python -m pytest
tests/render/test_snapshots.py` and review the diff before committing it.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from evalkit.llm.usage import Usage
from evalkit.render.comment import render_comment
from evalkit.render.junit import render_junit
from evalkit.render.markdown import render_markdown
from evalkit.results.report import CaseResult, ComparisonResult, ItemResult, ModelUse, Report, RunResult, SuiteResult

SNAPSHOTS = Path(__file__).parent / "snapshots"


def fixed_report() -> Report:
    """Two suites: one passing, one failing with a critical item, a judge reason, an error row and a
    comparison across cases; hostile text in an output and a reason."""
    hostile = "@octocat <img src=x onerror=alert(1)> see https://evil.example/x.png"
    safe_items = [
        ItemResult(id="check1:syntax", text="syntax", status="pass", reason="parses", required=True),
        ItemResult(id="clear", text="Is clear", status="pass", reason="short and plain", decided_by="judge"),
    ]
    failing_items = [
        ItemResult(
            id="flags_risk",
            text="MUST flag injury risk",
            status="fail",
            critical=True,
            decided_by="judge",
            reason=f"never mentions the ACWR of 1.9 {hostile}",
        ),
        ItemResult(id="volume", text="Volume within ±20 %", status="pass", reason="30 km vs 29 km"),
        ItemResult(id="rest", text="At least one rest day", status="error", reason="no fields were extracted"),
    ]
    usage = Usage(calls=7, cache_hits=2, input_tokens=5200, output_tokens=900, cost_usd=0.0123)
    passing = SuiteResult(
        name="help_agents",
        path="suites/help_agents/code_generate.suite.yml",
        verdict="pass",
        target="agents:code",
        models={"target": "claude-sonnet-4-6", "judge": "claude-haiku-4-5-20251001"},
        cases=[
            CaseResult(
                id="hello",
                verdict="pass",
                runs=[RunResult(repeat=0, output="def main(...)", items=safe_items)],
                rubric_pass_rate=1.0,
                checks_passed=1,
                checks_total=1,
                wall_seconds=1.5,
            )
        ],
        usage=usage,
        wall_seconds=1.5,
    )
    failing = SuiteResult(
        name="pace_ai",
        path="suites/pace_ai/suite.yml",
        verdict="fail",
        target="pace_ai.coach:run",
        models={"target": "claude-sonnet-4-6", "judge": "claude-haiku-4-5-20251001"},
        cases=[
            CaseResult(
                id="injury_risk_female",
                verdict="error",
                line=42,
                runs=[RunResult(repeat=0, output=f"Race it all-out! {hostile}", items=failing_items)],
                rubric_pass_rate=0.5,
                critical_failures=["flags_risk"],
                errors=["rest: no fields were extracted"],
                reasons=["1 error row(s)", "critical item failed: flags_risk", "rubric pass rate 50% < 80%"],
                wall_seconds=3.25,
            )
        ],
        comparisons=[
            ComparisonResult(
                id="beginner_below_elite",
                text="beginner volume < elite volume",
                status="fail",
                reason="40 < 30 is false",
            )
        ],
        usage=usage,
        wall_seconds=3.25,
    )
    return Report(
        verdict="error",
        suites=[passing, failing],
        usage=usage,
        started_at="2026-11-23T08:00:00+00:00",
        wall_seconds=4.75,
        warnings=["model claude-x is deprecated and reaches end-of-life on 2026-12-01"],
        models=[ModelUse(model="claude-sonnet-4-6", roles=["target"], usage=usage)],
        run_url="https://github.com/octo-org/hello/actions/runs/777",
    )


RENDERINGS = {
    "report.md": lambda r: render_markdown(r),
    "comment.md": lambda r: render_comment(r, artifact_hint="`.evalkit/results`"),
    "junit.xml": render_junit,
}


@pytest.mark.parametrize("name", sorted(RENDERINGS))
def test_rendering_matches_its_snapshot(name):
    text = RENDERINGS[name](fixed_report())
    path = SNAPSHOTS / name
    if os.environ.get("EVALKIT_UPDATE_SNAPSHOTS") == "1" or not path.exists():
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8"), (
        f"{name} changed; if that is meant, rewrite the snapshots (see this module's docstring)"
    )


def test_the_comment_snapshot_holds_nothing_hostile():
    body = (SNAPSHOTS / "comment.md").read_text(encoding="utf-8")
    for bad in ("<img", "@octocat", "](https://evil"):
        assert bad not in body
    assert "`https://evil.example/x.png`" in body  # shown as code, never as a link or an image
