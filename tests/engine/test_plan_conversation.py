"""`evalkit plan` on conversation cases: one target call per user turn that no scripted turn answers,
each turn's judge, counted exactly as a run against the loopback fake makes them."""

from __future__ import annotations

import collections

from evalkit.engine import load_suites, make_client, plan_calls, run
from evalkit.llm.providers.anthropic import AnthropicProvider
from evalkit.run.runner import RunOptions
from evalkit.testing.script import Script, requested_tool
from tests.conftest import verdicts

SUITE = """
name: coach
target:
  prompt: "Plan a week for {{ runner }}."
model: claude-haiku-4-5-20251001
repeats: 2
cases:
  - id: niggle
    input: {runner: ada}
    conversation:
      - user: "{{ prompt }}"
        rubric: [{id: plan, judge: "Gives a week's plan"}]
      - user: "Remind me what you said"
      - assistant: "Easy runs all week."
      - user: "My knee hurts. Change the plan."
    rubric: [{id: rest, judge: "Says to rest"}]
"""


def script() -> Script:
    return (
        Script()
        .reply("Rest three days.", prompt="knee hurts")
        .reply("Mon easy, Wed tempo.", prompt="Plan a week for ada.")
        .tool_reply("record_verdicts", verdicts({"turn 1: plan": "pass"}), prompt="turn 1: plan")
        .tool_reply("record_verdicts", verdicts({"rest": "pass"}))
    )


def test_the_plan_counts_a_conversation_as_the_run_makes_it(write, tmp_path, fake_anthropic):
    suites = load_suites([write("coach.yml", SUITE)])
    blind = plan_calls(suites, cache_dir=tmp_path / "cache", count_tokens=False)
    (line,) = blind.lines
    # per repeat: turns 1 and 4 call the target (turn 2 is answered by the scripted turn 3); two judges
    assert (line.target_calls, line.judge_calls, line.free) == (4, 4, 0)
    fake = fake_anthropic(script())
    client = make_client(
        AnthropicProvider(api_key="k", base_url=fake.url), cache_dir=tmp_path / "cache", deprecated=None
    )
    report = run(suites, client, RunOptions())
    kinds = collections.Counter(requested_tool(b) or "target" for b in fake.requests)
    assert report.verdict == "pass", report.suites[0].cases[0].runs[0]
    assert kinds == {"target": 4, "record_verdicts": 4}
    # on the cache the run filled, every request is built exactly as the run built it: all free
    (cached,) = plan_calls(suites, cache_dir=tmp_path / "cache", count_tokens=False).lines
    assert (cached.target_calls, cached.judge_calls, cached.free) == (0, 0, 8)


def test_a_callable_target_s_conversation_is_dry_run_turn_by_turn(write, tmp_path):
    write("chat.py", "def chat(case_input, client, messages):\n    return client.complete(messages)\n")
    suites = load_suites(
        [
            write(
                "chat.yml",
                """
        target: chat:chat
        model: claude-haiku-4-5-20251001
        cases:
          - id: c
            conversation: [{user: "hi"}, {user: "again"}, {assistant: "scripted"}, {user: "bye"}]
        """,
            )
        ]
    )
    (line,) = plan_calls(suites, cache_dir=tmp_path / "cache", count_tokens=False).lines
    # turns 1 and 4 reach the model (turn 2 is answered by the scripted turn 3), each request seen as rendered
    assert (line.rendered_runs, line.unknown_runs, line.target_calls) == (1, 0, 2)
