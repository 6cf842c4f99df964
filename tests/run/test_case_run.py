"""CaseRun: what scoring reads of one run, built once and passed whole (judge input, settings, checks)."""

from __future__ import annotations

from evalkit.engine import make_client
from evalkit.run.case_run import CaseRun
from evalkit.suite.loader import load_suite
from evalkit.testing.script import Script
from evalkit.testing.scripted import ScriptedProvider

SUITE = """
name: coach
target: {prompt: "Coach {{ who }}"}
judge_thinking: {effort: low}
confirm_failures: 2
timeout: {judge: 42, check: 3}
fields: {weekly_km: {type: number}, rest_days: {type: number}}
cases:
  - id: ada
    input: {who: Ada}
    fields: [weekly_km]
    checks: [{type: contains, value: Ada}]
    rubric:
      - {id: safe, judge: "Advises rest when injured", judge_repeats: 3}
      - {id: plain, judge: "Plain words"}
"""


def _run(write, **kwargs) -> CaseRun:
    suite = load_suite(write("coach.yml", SUITE))
    client = make_client(ScriptedProvider(Script()), no_cache=True, deprecated=None).bind(model="m")
    return CaseRun(suite, suite.cases[0], client, {"plan": "x"}, "Plan for Ada", facts={"acwr": 1.4}, **kwargs)


def test_the_judge_reads_the_judged_items_the_case_fields_and_the_suites_settings(write):
    run = _run(write, truncated=True)
    applicable, recorded = run.items()
    ask = run.judge_input(applicable)
    assert dict(ask.criteria) == {"safe": "Advises rest when injured", "plain": "Plain words"} and not recorded
    assert dict(ask.repeats) == {"safe": 3, "plain": 1} and list(ask.fields) == ["weekly_km"]
    assert ask.output_text == "Plan for Ada" and ask.truncated and ask.facts == {"acwr": 1.4}
    assert ask.case_input == {"who": "Ada"}
    settings = run.judge_settings("judge-m")
    assert (settings.model, settings.timeout, settings.confirm) == ("judge-m", 42, 2)
    assert settings.thinking is not None and settings.thinking.effort == "low"


def test_a_conversations_turn_shows_the_judge_the_messages_and_its_checks_the_earlier_fields(write):
    said = [{"role": "user", "content": "my knee hurts"}]
    run = _run(write, conversation=said, earlier_fields={"turn 1.weekly_km": 40})
    assert run.judge_input(run.items()[0]).case_input == {"input": {"who": "Ada"}, "conversation": said}
    ctx = run.check_context({"weekly_km": 20})
    assert ctx.fields == {"turn 1.weekly_km": 40, "weekly_km": 20} and ctx.timeout == 3
    assert run.check_context(None).fields is None  # no extraction: no fields, not the earlier turns' alone
