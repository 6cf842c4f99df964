"""`evalkit calibrate` measures the confirmed judge too: with the suite's `confirm_failures`, an
item the judge failed is re-asked as a run re-asks it, and both the single answers and the
confirmed verdicts are measured; the bar holds the confirmed ones (loopback fake)."""

from __future__ import annotations

import json
import re
from collections import Counter

import pytest
from click.testing import CliRunner

from evalkit.cli.commands import main
from evalkit.suite import load_suite
from evalkit.suite.calibration import calibration_note
from evalkit.testing.script import Script

# Replies 0-6 are labelled pass, 7-9 fail.
GOLD = "\n".join(
    f"""  - case: c
    output: "reply number {i}"
    labels: {{kind: {"pass" if i < 7 else "fail"}}}"""
    for i in range(10)
)


def suite_text(confirm: int) -> str:
    return f"""
name: cal
target: m:f
confirm_failures: {confirm}
calibration: {{min_agreement: 0.9}}
cases:
  - id: c
    rubric:
      - {{id: kind, judge: The reply is kind}}
gold:
{GOLD}
"""


def flaky_once_judge():
    """Fails every reply the first time it is asked about it; after that it fails only the replies
    labelled fail: a judge wrong one time in three on the good replies, always right on the bad."""
    asked: Counter[int] = Counter()

    def judge(body):
        n = int(re.search(r"reply number (\d)", json.dumps(body)).group(1))
        asked[n] += 1
        verdict = "fail" if asked[n] == 1 or n >= 7 else "pass"
        return {"items": [{"id": "kind", "reason": "as scripted", "verdict": verdict}]}

    return judge, asked


@pytest.fixture
def calibrate(tmp_path, write, fake_anthropic, anthropic_env):
    """calibrate(confirm_failures, judge, repeats=1) -> (result, saved figures, suite path)."""

    def run(confirm: int, judge, repeats: int = 1):
        path = write("cal.suite.yml", suite_text(confirm))
        fake = fake_anthropic(Script().respond(judge, tool="record_verdicts"))
        result = CliRunner().invoke(
            main, ["calibrate", str(path), "--repeats", str(repeats)], env=anthropic_env(fake), catch_exceptions=False
        )
        return result, json.loads((tmp_path / "cal.calibration.json").read_text()), path

    return run


def test_the_confirmed_judge_is_measured_and_holds_the_bar(calibrate):
    judge, asked = flaky_once_judge()
    result, saved, _ = calibrate(2, judge)
    # Every first answer fails: the single answers agree on the three bad replies only.
    assert saved["agreement"] == 0.3 and saved["items"][0]["false_fail"] == 7
    confirmed = saved["confirmed"]
    assert confirmed["confirm_failures"] == 2 and confirmed["confirming_calls"] == 20
    assert confirmed["agreement"] == 1.0 and confirmed["kappa"] == 1.0
    assert confirmed["items"][0]["false_fail"] == 0 and confirmed["items"][0]["false_pass"] == 0
    assert sum(asked.values()) == 30  # 10 single answers and 2 confirming calls for each failed one
    assert result.exit_code == 0, result.output  # the bar holds the confirmed judge: 100 % ≥ 90 %
    assert "confirmed (confirm_failures: 2, 20 calls more): agreement 100%, κ 1.00" in result.output
    assert "    confirmed: agreement 100% over 10 verdicts (10 gold)" in result.output


def test_without_confirm_failures_the_same_judge_is_under_the_bar(calibrate):
    judge, asked = flaky_once_judge()
    result, saved, _ = calibrate(0, judge)
    assert saved["confirmed"] is None and saved["agreement"] == 0.3
    assert sum(asked.values()) == 10
    assert result.exit_code == 1 and "kind agrees 30% < 90%" in result.output


def test_a_judge_that_always_fails_a_good_reply_is_still_under_the_bar_when_confirmed(calibrate):
    def always_fails(body):
        return {"items": [{"id": "kind", "reason": "no", "verdict": "fail"}]}

    result, saved, _ = calibrate(2, always_fails)
    assert saved["confirmed"]["agreement"] == 0.3 and saved["confirmed"]["items"][0]["false_fail"] == 7
    assert result.exit_code == 1 and "kind agrees 30% < 90%" in result.output


def test_figures_measured_with_another_confirm_failures_read_stale(calibrate):
    judge, _ = flaky_once_judge()
    _, _, path = calibrate(0, judge)
    assert not calibration_note(load_suite(path)).startswith("STALE")  # type: ignore[union-attr]
    path.write_text(suite_text(2), encoding="utf-8")
    note = calibration_note(load_suite(path))
    assert note is not None and note.startswith(
        "STALE (measured with confirm_failures: 0, the suite now has 2: rerun `evalkit calibrate`)"
    )


def test_each_repeat_is_confirmed_by_calls_of_its_own(calibrate):
    judge, asked = flaky_once_judge()
    result, saved, _ = calibrate(2, judge, repeats=2)
    # A good reply fails the first of its two single answers only (2 confirming calls), a bad one both
    # (4): were the repeats' confirming calls one cache entry, the bad replies would be asked 4 times, not 6.
    assert [asked[n] for n in range(10)] == [4] * 7 + [6] * 3, result.output
    assert saved["confirmed"]["confirming_calls"] == 26 and saved["confirmed"]["agreement"] == 1.0
