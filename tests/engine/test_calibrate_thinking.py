"""`evalkit calibrate` measures the judge a run uses: the same route (structured outputs or a forced
tool) and `judge_thinking`, through the same scoring calls (evalkit.scoring.grading / judge)."""

from __future__ import annotations

import json

from click.testing import CliRunner

from evalkit.cli.commands import main
from evalkit.testing.fake_anthropic import FakeAnthropicServer
from evalkit.testing.script import Script, requested_tool
from tests.engine.test_calibrate import SUITE, extract, wrong_on_two
from tests.fakes import model_env

THINKING = "judge_model: claude-haiku-4-5\njudge_thinking: {budget_tokens: 1500}\n"  # a model that takes a budget


def _calibrate(tmp_path, write, suite):
    path = write("cal.suite.yml", suite)
    script = Script().respond(wrong_on_two, tool="record_verdicts").respond(extract, tool="record_fields")
    with FakeAnthropicServer(script) as fake:
        env = model_env(fake.url, tmp_path / "c")
        result = CliRunner().invoke(main, ["calibrate", str(path), "--repeats", "1"], env=env)
        return result, fake.requests


def test_a_thinking_judge_is_calibrated_with_thinking_on_the_structured_route(tmp_path, write):
    result, requests = _calibrate(tmp_path, write, THINKING + SUITE)
    assert result.exit_code == 1, result.output  # the figures, as without thinking: 80 % under the 90 % bar
    saved = json.loads((tmp_path / "cal.calibration.json").read_text())
    assert saved["items"][0]["agreement"] == 0.8
    judged = [b for b in requests if requested_tool(b) == "record_verdicts_and_fields"]  # one call for both, as a run
    assert len(judged) == 10
    assert all(
        b["thinking"] == {"type": "enabled", "budget_tokens": 1500}
        and "tool_choice" not in b
        and "temperature" not in b
        and "output_config" in b
        for b in judged
    )


def test_a_judge_without_thinking_is_calibrated_on_the_route_its_model_takes(tmp_path, write):
    result, requests = _calibrate(tmp_path, write, "judge_model: claude-sonnet-5-5\n" + SUITE)
    assert result.exit_code == 1, result.output
    # Sonnet 5.5 cannot turn thinking off, so takes no forced tool: the output format, at the lowest effort.
    assert requests and all(
        "tool_choice" not in b and "thinking" not in b and b["output_config"]["effort"] == "low" for b in requests
    )


def test_a_thinking_judge_its_model_cannot_take_is_refused_before_any_call(tmp_path, write):
    result, requests = _calibrate(tmp_path, write, THINKING.replace("claude-haiku-4-5", "claude-unlisted-1") + SUITE)
    assert result.exit_code == 2 and requests == []
    assert "judge model claude-unlisted-1 with judge_thinking (budget_tokens 1500) cannot be asked" in result.output
    assert "Traceback" not in result.output


def test_saved_figures_of_a_judge_without_thinking_are_stale_once_it_thinks(write):
    from evalkit.engine import load_suites
    from evalkit.suite.calibration import fingerprints

    plain = fingerprints(load_suites([write("a.suite.yml", SUITE)])[0])
    thinking = fingerprints(load_suites([write("b.suite.yml", THINKING + SUITE)])[0])
    assert plain[0] != thinking[0] and plain[1] == thinking[1]  # the judge changed, the gold set did not
