"""Conversation cases run end to end: the target called once per user turn with the conversation so far
(the real anthropic client against the loopback fake for prompt targets; callable targets in their
worker process), each turn's reply scored on its own items."""

from __future__ import annotations

import asyncio
import re

from evalkit.engine import load_suites, make_client, run
from evalkit.llm.providers.anthropic import AnthropicProvider
from evalkit.run.runner import RunOptions
from evalkit.testing.script import Script, requested_tool
from evalkit.testing.scripted import ScriptedProvider
from tests.conftest import verdicts

COACH = """
name: coach
target:
  prompt: "Plan a week for {{ runner }} at {{ weekly_km }} km."
  system: "You are a running coach."
model: claude-haiku-4-5-20251001
cases:
  - id: niggle
    input: {runner: ada, weekly_km: 40}
    conversation:
      - user: "{{ prompt }}"
        checks: [{type: contains, value: week}]
        rubric: [{id: plan, judge: "Gives a week's plan"}]
      - user: "Earlier you said: {{ outputs[0] }} Is that turn {{ turn }}?"
      - assistant: "Yes, and stretch after each run."
      - user: "My left knee hurts since yesterday's run. Change the plan."
        checks:
          - {type: not_contains, value: tempo}
          - {type: contains, value: swim}
    checks: [{type: contains, value: Rest}]
"""


def fake_client(fake, tmp_path):
    return make_client(
        AnthropicProvider(api_key="test-key", base_url=fake.url), cache_dir=tmp_path / "cache", deprecated=None
    )


def coach_script() -> Script:
    # A request holds every earlier turn too: the latest turn's rule comes first.
    return (
        Script()
        .reply("Rest three days, then easy runs.", prompt="knee hurts")
        .reply("Turn two: a week of easy running.", prompt="Earlier you said")
        .reply("This week: Mon easy, Wed tempo, Sat long.", prompt="Plan a week for ada at 40 km.")
        .tool_reply("record_verdicts", verdicts({"turn 1: plan": "pass"}))
    )


def test_each_user_turn_is_a_call_with_the_conversation_so_far(write, tmp_path, fake_anthropic):
    suite = write("coach.yml", COACH)
    fake = fake_anthropic(coach_script())
    report = run(load_suites([suite]), fake_client(fake, tmp_path), RunOptions())
    bodies = [b for b in fake.requests if requested_tool(b) is None]
    judged = [b for b in fake.requests if requested_tool(b)]
    turn1 = "Plan a week for ada at 40 km."
    reply1 = "This week: Mon easy, Wed tempo, Sat long."
    turn2 = f"Earlier you said: {reply1} Is that turn 2?"
    assert [b["messages"] for b in bodies] == [
        [{"role": "user", "content": turn1}],
        # turn 2 is answered by the scripted turn 3: not sent; both are in the next request
        [
            {"role": "user", "content": turn1},
            {"role": "assistant", "content": reply1},
            {"role": "user", "content": turn2},
            {"role": "assistant", "content": "Yes, and stretch after each run."},
            {"role": "user", "content": "My left knee hurts since yesterday's run. Change the plan."},
        ],
    ]
    assert all(b["system"] == "You are a running coach." for b in bodies)
    # the judge of turn 1 read turn 1's reply, with the message it answered
    assert len(judged) == 1 and reply1 in str(judged[0]["messages"]) and turn1 in str(judged[0]["messages"])
    case = report.suites[0].cases[0]
    run_ = case.runs[0]
    assert run_.output == "Rest three days, then easy runs."
    items = {i.id: i.status for i in run_.items}
    assert items == {
        "turn 1: check1:contains": "pass",
        "turn 1: plan": "pass",
        "turn 4: check1:not_contains": "pass",
        "turn 4: check2:contains": "fail",
        "check1:contains": "pass",
    }
    assert next(i for i in run_.items if i.id == "turn 4: check2:contains").text.startswith("turn 4: ")
    assert case.verdict == "fail"
    assert [(s.role, s.text) for s in run_.trace] == [
        ("user", turn1),
        ("assistant", reply1),
        ("user", turn2),
        ("assistant", "Yes, and stretch after each run."),
        ("user", "My left knee hurts since yesterday's run. Change the plan."),
        ("assistant", "Rest three days, then easy runs."),
    ]


def test_a_failing_turn_is_an_error_row_naming_it_and_nothing_after_it_runs(write, tmp_path, fake_anthropic):
    suite = write(
        "s.yml",
        """
        target: {prompt: "unused"}
        cases:
          - id: c
            conversation:
              - user: "first"
                checks: [{type: contains, value: one}]
              - user: "second"
              - user: "third"
        """,
    )
    script = Script().reply("three", prompt="third").fault("400", prompt="second").reply("one", prompt="first")
    fake = fake_anthropic(script)
    report = run(load_suites([suite]), fake_client(fake, tmp_path), RunOptions())
    sent = [b["messages"][-1]["content"] for b in fake.requests]
    case = report.suites[0].cases[0]
    assert sent == ["first", "second"]  # turn 3 never ran
    assert case.verdict == "error"
    assert case.runs[0].error.startswith("turn 2: target's model call failed")
    assert case.runs[0].items == []
    assert [(s.role, s.text) for s in case.runs[0].trace] == [
        ("user", "first"),
        ("assistant", "one"),
        ("user", "second"),
    ]


def test_an_undefined_name_in_a_turn_is_an_error_row(write, tmp_path):
    suite = write(
        "s.yml",
        """
        target: {prompt: "Hi"}
        cases:
          - id: c
            conversation:
              - user: "Hello"
              - user: "You said {{ outputs[3] }}"
        """,
    )
    script = Script().reply("Hi there", prompt="Hello")
    client = make_client(ScriptedProvider(script), no_cache=True, deprecated=None)
    report = run(load_suites([suite]), client, RunOptions())
    run_ = report.suites[0].cases[0].runs[0]
    assert run_.error is not None and run_.error.startswith("turn 2: template:")
    assert [s.text for s in run_.trace] == ["Hello", "Hi there"]


AGENT = """
import itertools

LATER = itertools.count(20, 20)  # this worker process's calls: a value that differs on every repeat

def agent(case_input, messages):
    km = case_input["km"] + len(messages) if len(messages) == 1 else next(LATER)
    return f"{len(messages)} messages; last: {messages[-1]['content']}; km {km}"

def forgetful(case_input):
    return "no history"
"""


def km_from_output(body):
    return {"km": int(re.findall(r"km (\d+)", body["messages"][0]["content"])[-1])}


def test_a_callable_target_receives_the_messages_in_its_worker_process(write, tmp_path):
    write("agent.py", AGENT)
    suite = write(
        "s.yml",
        """
        target: agent:agent
        fields: {km: {type: number}}
        cases:
          - id: c
            input: {km: 10}
            repeats: 3
            conversation:
              - user: "one"
                fields: [km]
              - user: "two {{ outputs[0] }}"
                fields: [km]
                checks: [{type: contains, value: "3 messages"}]
        """,
    )
    script = Script().respond(km_from_output, tool="record_fields")
    client = make_client(ScriptedProvider(script), no_cache=True, deprecated=None)
    report = run(load_suites([suite]), client, RunOptions())
    case = report.suites[0].cases[0]
    assert sorted(r.output for r in case.runs) == [
        f"3 messages; last: two 1 messages; last: one; km 11; km {km}" for km in (20, 40, 60)
    ]
    assert [r.fields["turn 1.km"] for r in case.runs] == [11] * 3
    assert sorted(r.fields["turn 2.km"] for r in case.runs) == [20, 40, 60]
    # repeats extract the case's fields from the final reply too (as for any case)
    assert all(r.fields["km"] == r.fields["turn 2.km"] for r in case.runs)
    agreed = {f.field: f.agreed for f in case.field_agreement}
    assert agreed == {"km": False, "turn 1.km": True, "turn 2.km": False}
    assert all([(i.id, i.status) for i in r.items] == [("turn 2: check1:contains", "pass")] for r in case.runs)
    assert case.verdict == "fail" and any("agreement" in reason for reason in case.reasons)


def test_a_callable_target_without_messages_is_refused_before_any_call(write, tmp_path):
    write("agent.py", AGENT)
    suite = write(
        "s.yml",
        """
        target: agent:forgetful
        cases:
          - id: c
            conversation: [{user: "one"}]
        """,
    )
    client = make_client(ScriptedProvider(Script()), no_cache=True, deprecated=None)
    report = run(load_suites([suite]), client, RunOptions())
    run_ = report.suites[0].cases[0].runs[0]
    assert run_.error == "target agent:forgetful takes no `messages` parameter, which a conversation case needs"


def test_an_async_callable_target_in_its_worker_gets_the_messages_as_keywords(write):
    write(
        "agent.py",
        """
        async def agent(case_input, client, **kwargs):
            return " | ".join(f"{m['role']}: {m['content']}" for m in kwargs["messages"])
        """,
    )
    suite = write(
        "s.yml",
        """
        target: agent:agent
        cases:
          - id: c
            conversation:
              - user: "hi"
              - assistant: "hello"
              - user: "bye"
        """,
    )
    client = make_client(ScriptedProvider(Script()), no_cache=True, deprecated=None)
    report = run(load_suites([suite]), client, RunOptions())
    assert report.suites[0].cases[0].runs[0].output == "user: hi | assistant: hello | user: bye"


def test_a_callable_target_in_process_gets_the_messages_and_a_plain_case_none(tmp_path):
    from evalkit.run.targets import resolve_target
    from evalkit.suite.model import Target

    (tmp_path / "inproc.py").write_text(
        "def sync(case_input, messages=None):\n    return repr(messages)\n\n"
        "async def coro(case_input, client, messages=None):\n    return repr(messages)\n"
    )
    client = make_client(ScriptedProvider(Script()), no_cache=True, deprecated=None).bind(model="m")
    said = [{"role": "user", "content": "hi"}]

    async def both(name):
        fn = resolve_target(Target(function=f"inproc:{name}"), tmp_path)
        assert fn.takes_messages
        return [(await fn.call({}, client, 5, messages=said)).output, (await fn.call({}, client, 5)).output]

    for name in ("sync", "coro"):
        assert asyncio.run(both(name)) == [repr(said), "None"]


def test_a_prompt_target_sends_the_messages_with_its_own_settings():
    from evalkit.run.targets import prompt_request
    from evalkit.suite.model import Target

    target = Target(template="Plan for {{ runner }}", system="Coach.", max_tokens=99, temperature=0.5)
    said = [{"role": "user", "content": "a"}, {"role": "assistant", "content": "b"}, {"role": "user", "content": "c"}]
    req = prompt_request(target, {"runner": "ada"}, model="m", max_tokens=10, temperature=None, messages=said)
    assert req.to_api_body() == {
        "model": "m",
        "max_tokens": 99,
        "messages": said,
        "system": "Coach.",
        "temperature": 0.5,
    }
    alone = prompt_request(target, {"runner": "ada"}, model="m", max_tokens=10, temperature=None)
    assert alone.messages == ({"role": "user", "content": "Plan for ada"},)
    # the history is part of the request, so each turn is its own cache entry, and repeats stay apart
    assert req.cache_key(0) != alone.cache_key(0) and req.cache_key(0) != req.cache_key(1)


def test_a_turn_s_own_trace_is_spliced_into_the_conversation(write):
    from evalkit.run.conversation import run_conversation
    from evalkit.run.targets import TargetCall
    from evalkit.suite.loader import load_suite
    from evalkit.trace.steps import Step

    case = load_suite(
        write(
            "s.yml",
            """
        cases:
          - id: c
            conversation: [{user: "weather?"}, {user: "and tomorrow?"}]
        """,
        )
    ).cases[0]
    replies = iter(["Sunny.", "Rain."])

    async def call(messages):
        reply = next(replies)
        return TargetCall(
            output=reply,
            facts={"turns": len(messages)},
            trace=[
                Step.message("user", messages[-1]["content"]),
                Step.tool_call("forecast", {"day": len(messages)}),
                Step.message("assistant", reply),
            ],
        )

    async def never(*_):
        raise AssertionError("no turn has items")

    talked = asyncio.run(run_conversation(case, None, call, never, lambda: False))
    assert [(s.type, s.role or s.name) for s in talked.final.trace] == [
        ("message", "user"),
        ("tool_call", "forecast"),
        ("message", "assistant"),
        ("message", "user"),
        ("tool_call", "forecast"),
        ("message", "assistant"),
    ]
    assert talked.final.output == "Rain." and talked.final.facts == {"turns": 3}
    assert talked.messages == [
        {"role": "user", "content": "weather?"},
        {"role": "assistant", "content": "Sunny."},
        {"role": "user", "content": "and tomorrow?"},
    ]


def test_a_turn_of_a_prompt_target_with_tools_runs_its_tool_loop_and_the_trace_holds_it(
    write, tmp_path, fake_anthropic
):
    suite = write(
        "s.yml",
        """
        model: claude-haiku-4-5-20251001
        target:
          prompt: "unused"
          tools:
            - name: get_weather
              input_schema: {type: object, properties: {city: {type: string}}}
        cases:
          - id: c
            tool_results:
              get_weather: [{result: {sky: rain}}]
            conversation:
              - user: "Hello"
              - user: "What should I wear in Paris?"
                checks: [{type: contains, value: raincoat}]
        """,
    )
    # model turns count the assistant messages a request holds: turn 1's reply makes the second turn's 2
    script = (
        Script()
        .reply("Hi!", turn=1)
        .tool_use([("get_weather", {"city": "Paris"})], text="Checking.", turn=2)
        .reply("A raincoat.", turn=3)
    )
    fake = fake_anthropic(script)
    report = run(load_suites([suite]), fake_client(fake, tmp_path), RunOptions())
    bodies = fake.requests
    run_ = report.suites[0].cases[0].runs[0]
    assert run_.output == "A raincoat." and [(i.id, i.status) for i in run_.items] == [
        ("turn 2: check1:contains", "pass")
    ]
    assert len(bodies) == 3 and all(b["tools"][0]["name"] == "get_weather" for b in bodies)
    assert [m["role"] for m in bodies[2]["messages"]] == ["user", "assistant", "user", "assistant", "user"]
    assert [(s.type, s.role or s.name) for s in run_.trace] == [
        ("message", "user"),
        ("message", "assistant"),
        ("message", "user"),
        ("message", "assistant"),
        ("tool_call", "get_weather"),
        ("message", "assistant"),
    ]
    assert run_.trace[4].result == {"sky": "rain"}


TWO_TURNS = """
target: {prompt: "unused"}
cases:
  - id: c
    conversation: [{user: "first"}, {user: "second"}]
"""


def test_a_turn_cut_off_at_max_tokens_fails_its_own_complete_check(write):
    suite = write("s.yml", TWO_TURNS)
    script = Script().reply("fine", prompt="second").reply("cut", stop_reason="max_tokens", prompt="first")
    client = make_client(ScriptedProvider(script), no_cache=True, deprecated=None)
    run_ = run(load_suites([suite]), client, RunOptions()).suites[0].cases[0].runs[0]
    assert [(i.id, i.status) for i in run_.items] == [("turn 1: complete", "fail")]
    assert run_.truncated is False and run_.output == "fine"


def test_a_final_reply_cut_off_fails_the_case_s_complete_check_once(write):
    suite = write("s.yml", TWO_TURNS)
    script = Script().reply("cut", stop_reason="max_tokens", prompt="second").reply("fine", prompt="first")
    client = make_client(ScriptedProvider(script), no_cache=True, deprecated=None)
    run_ = run(load_suites([suite]), client, RunOptions()).suites[0].cases[0].runs[0]
    assert [(i.id, i.status) for i in run_.items] == [("complete", "fail")] and run_.truncated is True


EARLIER = """
from typing import ClassVar
from evalkit import Check, Outcome, register_check


@register_check
class KmDropped(Check):
    type: ClassVar[str] = "km_dropped"
    needs_fields: ClassVar[bool] = True

    def referenced_fields(self):
        return {"km"}

    def evaluate(self, ctx):
        first, last = ctx.fields.get("turn 1.km"), ctx.fields.get("km")
        return Outcome(first is not None and last < first, f"turn 1: {first}, final: {last}")
"""


def test_a_conversation_s_case_level_checks_see_the_earlier_turns_fields(write, tmp_path):
    write("agent.py", AGENT)
    write("earlier_checks.py", EARLIER)
    suite = write(
        "s.yml",
        """
        target: agent:agent
        plugins: [earlier_checks]
        fields: {km: {type: number}}
        cases:
          - id: c
            input: {km: 10}
            checks: [{type: km_dropped}]
            conversation:
              - user: "one"
                fields: [km]
              - user: "two {{ outputs[0] }}"
        """,
    )
    script = Script().respond(km_from_output, tool="record_fields")
    client = make_client(ScriptedProvider(script), no_cache=True, deprecated=None)
    report = run(load_suites([suite]), client, RunOptions())
    run_ = report.suites[0].cases[0].runs[0]
    item = next(i for i in run_.items if i.id.endswith("km_dropped"))
    # turn 1 said km 11, the final reply km 20: the check saw both (and the stored fields are unchanged)
    assert (item.status, item.reason) == ("fail", "turn 1: 11.0, final: 20.0")
    assert run_.fields == {"turn 1.km": 11, "km": 20}
