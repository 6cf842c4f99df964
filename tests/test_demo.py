"""`evalkit demo` shows a comparison with a scripted base too: what a regression report looks like."""

from __future__ import annotations

import json

from click.testing import CliRunner

from evalkit.cli import main
from evalkit.render.comment import MARKER


def test_demo_compares_the_scripted_head_with_a_scripted_base(tmp_path):
    out = tmp_path / "demo"
    result = CliRunner().invoke(main, ["demo", "--output-dir", str(out)], catch_exceptions=False)
    assert result.exit_code == 1  # the pace_ai head is the blocked PR
    cmp = json.loads((out / "comparison.json").read_text())
    changes = {(c["suite"], c["id"]): c["change"] for s in cmp["suites"] for c in s["cases"]}
    regressed = sorted(k[1] for k, v in changes.items() if v == "regressed")
    assert regressed == ["injury_risk/injury_risk_female", "race_readiness/injury_risk_female",
                         "weekly_plan/injury_risk_female"]
    assert set(changes.values()) == {"regressed", "still passing"}
    assert "3 cases got worse, 0 got better" in result.output
    comment = (out / "comment.md").read_text()
    assert comment.startswith(MARKER + "\n> **Demo comparison with scripted replies**")
    assert comment.index("3 cases got worse") < comment.index("A gate failed")
