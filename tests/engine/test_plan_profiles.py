"""`evalkit plan` counts a callable target's prompts as rendered (not guessed), and shows the cost of
the other profiles beside the planned one: every case when tags select, else each tag's cases."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from evalkit.cli.commands import main
from evalkit.engine import load_suites, plan_calls

PACE_AI = (
    Path(__file__).resolve().parents[2] / "suites" / "pace_ai" / "suite.yml"
)  # the coach (its folder also holds the agent suite)

TARGET = """
PROMPT = "Coach me. " + "Context line for the runner. " * 400


async def run(input, llm):
    return await llm.complete(PROMPT + input["who"], system="Be brief.")


async def crashes(input, llm):
    raise RuntimeError("before any model call")
"""

SUITE = """\
name: rendered
target: {function: long_target:%s}
judge_model: claude-haiku-4-5-20251001
model: claude-sonnet-4-6
max_tokens: 400
cases:
  - {id: a, input: {who: Ada}, tags: [pr], rubric: [{id: kind, judge: "The reply is kind"}]}
  - {id: b, input: {who: Bob}, tags: [nightly], repeats: 2, rubric: [{id: kind, judge: "The reply is kind"}]}
"""


def _suite(tmp_path, function="run"):
    (tmp_path / "long_target.py").write_text(TARGET)
    path = tmp_path / "rendered.suite.yml"
    path.write_text(SUITE % function)
    return load_suites([path])


def test_a_callable_targets_prompt_is_counted_as_rendered(tmp_path):
    plan = plan_calls(_suite(tmp_path), cache_dir=tmp_path / "cache")
    (line,) = plan.lines
    assert line.rendered_runs == 3 and line.unknown_runs == 0 and line.target_calls == 3
    rendered_chars = len("Coach me. " + "Context line for the runner. " * 400)
    per_call = line.tokens["claude-sonnet-4-6"][0] / 3
    assert rendered_chars / 4 <= per_call <= rendered_chars / 4 + 100, per_call  # not the ~216-token guess
    assert not [p for p in (tmp_path / "cache").rglob("*") if p.is_file()]


def test_a_target_that_fails_before_its_call_is_still_a_guess(tmp_path):
    plan = plan_calls(_suite(tmp_path, "crashes"), cache_dir=tmp_path / "cache")
    (line,) = plan.lines
    assert line.unknown_runs == 3 and line.rendered_runs == 0
    assert "target calls: unknown for 3 runs" in plan.render()


def test_tags_select_and_every_case_is_priced_beside(tmp_path):
    suites = _suite(tmp_path)
    pr = plan_calls(suites, cases=["#pr"], cache_dir=tmp_path / "cache")
    every = plan_calls(suites, cache_dir=tmp_path / "cache")
    assert [ln.runs for ln in pr.lines] == [1]
    (nightly,) = pr.profiles
    assert nightly.name == "every case (no --tag: the nightly profile)"
    assert nightly.calls == every.calls() and round(nightly.cost, 6) == round(every.cost()[0], 6)
    assert nightly.cost > pr.cost()[0] > 0
    # Without --tag: each tag's cost, as `--tag T` would plan it.
    assert [(p.name, p.calls) for p in every.profiles] == [("--tag nightly", 4), ("--tag pr", 2)]
    assert "--tag pr: 2 model calls, about $" in every.render()


def test_the_pace_ai_pull_request_profile_fits_the_design_budget(tmp_path):
    out = CliRunner().invoke(main, ["plan", str(PACE_AI), "--tag", "pr", "--cache-dir", str(tmp_path / "cache")])
    assert out.exit_code == 0, out.output
    pr = plan_calls(load_suites([PACE_AI]), cases=["#pr"], cache_dir=tmp_path / "cache")
    assert pr.lines[0].rendered_runs == pr.lines[0].runs == 13  # scenario cases, once each
    assert pr.cost()[0] <= 0.30, pr.render()  # design 001: $0.10-0.30 a run
    assert "every case (no --tag: the nightly profile)" in out.output
    assert f"${pr.cost()[0]:.2f} interactive" in out.output


def test_a_synchronous_target_that_hangs_does_not_hold_the_plan(tmp_path):
    (tmp_path / "hangs.py").write_text("import time\n\ndef run(input, llm):\n    time.sleep(3600)\n")
    path = tmp_path / "hangs.suite.yml"
    path.write_text("name: hangs\ntarget: hangs:run\ntimeout: {target: 0.5}\ncases:\n  - {id: a, input: {}}\n")
    plan = plan_calls(load_suites([path]), cache_dir=tmp_path / "cache")
    assert plan.lines[0].unknown_runs == 1  # nothing rendered: the usual guess, after the target's timeout
