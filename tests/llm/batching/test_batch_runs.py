"""`--batch` end to end: the real anthropic client against the loopback fake's Message Batches
endpoints (create, retrieve, results), compared with the same run made call by call."""

from __future__ import annotations

import asyncio
import json

import pytest
from click.testing import CliRunner

from evalkit.engine import load_suites, make_client, run, run_async
from evalkit.llm.batching import PollPolicy, store_path_for, use_batches
from evalkit.llm.pricing import cost_usd
from evalkit.llm.providers.anthropic import AnthropicProvider
from evalkit.run.runner import RunOptions
from evalkit.testing.script import Script, requested_tool
from tests.conftest import verdicts

FAST = PollPolicy(first=0.02, factor=1.5, most=0.1, gather=0.05, max_wait=1.0)
MODEL = "claude-sonnet-4-6"
# A criterion long enough that the judge's prefix is over the model's prompt-cache minimum (1,024 tokens).
SAFE = "Advises rest when injured. " + "A runner who reports pain, swelling or a limp is told to stop and rest. " * 60

SUITE = f"""
name: coach
model: {MODEL}
judge_model: {MODEL}
target: {{prompt: "Coach {{{{ who }}}} for a race."}}
fields: {{weekly_km: {{type: number}}}}
cases:
  - id: ada
    input: {{who: Ada}}
    checks: [{{type: contains, value: Ada}}, {{type: field, field: weekly_km, max: 60}}]
    rubric: [{{id: safe, judge: "{SAFE}"}}]
  - id: bob
    input: {{who: Bob}}
    checks: [{{type: contains, value: Bob}}, {{type: field, field: weekly_km, max: 60}}]
    rubric: [{{id: safe, judge: "{SAFE}"}}]
  - id: cy
    input: {{who: Cy}}
    checks: [{{type: contains, value: Cy}}, {{type: field, field: weekly_km, max: 60}}]
    rubric: [{{id: safe, judge: "{SAFE}"}}]
"""


def coach_script() -> Script:
    script = Script()
    for name, km in (("Ada", 40), ("Bob", 55), ("Cy", 20)):
        script.reply(f"Plan for {name}: {km} km a week", prompt=f"Coach {name}")
        script.tool_reply(
            "record_verdicts", verdicts({"safe": "fail" if name == "Bob" else "pass"}), prompt=f"Plan for {name}"
        )
        script.tool_reply("record_fields", {"weekly_km": km}, prompt=f"Plan for {name}")
    return script


def client_for(fake, tmp_path, *, batch_results=None, poll=FAST):
    client = make_client(AnthropicProvider(api_key="k", base_url=fake.url), no_cache=True, deprecated=None)
    if batch_results is not None:
        use_batches(client, batch_results, poll=poll)
    return client


def outcome(report):
    return [
        (c.id, c.verdict, [(i.id, i.status, i.reason) for r in c.runs for i in r.items], [r.fields for r in c.runs])
        for s in report.suites
        for c in s.cases
    ]


def test_a_batch_run_gives_the_verdicts_of_an_interactive_run_in_two_waves(write, tmp_path, fake_anthropic):
    suite = write("coach.yml", SUITE)
    fake = fake_anthropic(coach_script())
    interactive = run(load_suites([suite]), client_for(fake, tmp_path), RunOptions())
    assert fake.batches.creates == 0 and fake.request_count == 6  # a target, the judge with the extraction
    fake.reset_counts()
    batched = run(load_suites([suite]), client_for(fake, tmp_path, batch_results=tmp_path / "r.json"), RunOptions())
    assert fake.request_count == 0  # nothing went call by call
    waves = [fake.batches.requests_of(b) for b in fake.batches.batch_ids]
    assert outcome(batched) == outcome(interactive)
    assert [c.verdict for c in batched.suites[0].cases] == ["pass", "fail", "pass"]
    # Targets first, then the judge and extraction calls for their outputs (one call an output).
    assert [len(w) for w in waves] == [3, 3]
    # The targets' wave asks for no structured reply; the judge's does (a forced tool or an output format).
    assert all(requested_tool(r["params"]) is None for r in waves[0])
    assert all(requested_tool(r["params"]) for r in waves[1])
    # The judge model takes structured outputs: its batched params carry the format as an interactive call does.
    assert all(r["params"]["tools"][0].get("strict") is True and "output_config" not in r["params"] for r in waves[1])
    assert batched.usage.calls == 6
    assert not store_path_for(tmp_path / "r.json").exists()  # a finished run leaves nothing to resume


def test_batch_calls_are_priced_at_batch_rates(write, tmp_path, fake_anthropic):
    suite = write("coach.yml", SUITE)
    fake = fake_anthropic(coach_script())  # each its own fake: prompt-cache writes alike
    interactive = run(load_suites([suite]), client_for(fake, tmp_path), RunOptions())
    fake = fake_anthropic(coach_script())
    batched = run(load_suites([suite]), client_for(fake, tmp_path, batch_results=tmp_path / "r.json"), RunOptions())
    usage = batched.usage
    assert usage.cache_read_tokens > 0
    assert (usage.cache_read_tokens, usage.cache_write_tokens) == (
        interactive.usage.cache_read_tokens,
        interactive.usage.cache_write_tokens,
    )
    assert usage.unpriced_calls == 0 and usage.cost_usd > 0
    assert (usage.input_tokens, usage.output_tokens) == (
        interactive.usage.input_tokens,
        interactive.usage.output_tokens,
    )
    assert usage.cost_usd == pytest.approx(interactive.usage.cost_usd / 2)
    assert cost_usd(MODEL, 1_000_000, 0, batch=True) == pytest.approx(cost_usd(MODEL, 1_000_000, 0) / 2)


def test_an_interrupted_batch_run_resumes_by_batch_id_without_resubmitting(write, tmp_path, fake_anthropic):
    suite = write("coach.yml", SUITE)
    results = tmp_path / "r.json"
    fake = fake_anthropic(coach_script(), batch_delay=3600)

    async def interrupted() -> None:
        task = asyncio.ensure_future(run_async(load_suites([suite]), client_for(fake, tmp_path, batch_results=results)))
        while fake.batches.creates == 0:
            await asyncio.sleep(0.01)
        await asyncio.sleep(0.1)  # a few polls of a batch that is still in progress
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(interrupted())
    saved = json.loads(store_path_for(results).read_text())["batches"]
    assert list(saved) == fake.batches.batch_ids and len(next(iter(saved.values()))) == 3
    fake.batches.processing_delay = 0  # the batch ends while nobody watches
    report = run(load_suites([suite]), client_for(fake, tmp_path, batch_results=results), RunOptions())
    target_batches = [
        b
        for b in fake.batches.batch_ids
        if all(requested_tool(r["params"]) is None for r in fake.batches.requests_of(b))
    ]
    assert len(target_batches) == 1  # the targets' batch was picked up by id, not submitted again
    assert fake.batches.creates == 2 and fake.batches.batched_requests == 3 + 3
    assert [c.verdict for c in report.suites[0].cases] == ["pass", "fail", "pass"]
    assert report.usage.calls == 6
    assert not store_path_for(results).exists()


@pytest.mark.parametrize("kind", ["expired", "errored"])
def test_a_failed_request_is_retried_once_in_the_next_batch_then_is_an_error_row(write, tmp_path, kind, fake_anthropic):
    suite = write("coach.yml", SUITE)
    fake = fake_anthropic(coach_script())
    fake.batches.fail(kind, prompt="Coach Bob")  # every time: the retry fails too
    fake.batches.fail(kind, prompt="Coach Cy", times=1)  # once: the retry succeeds
    report = run(load_suites([suite]), client_for(fake, tmp_path, batch_results=tmp_path / "r.json"), RunOptions())
    bob_sent = sum(
        1
        for b in fake.batches.batch_ids
        for r in fake.batches.requests_of(b)
        if "Coach Bob" in json.dumps(r["params"]) and requested_tool(r["params"]) is None
    )
    cases = {c.id: c for c in report.suites[0].cases}
    assert bob_sent == 2  # one retry, no more
    assert cases["bob"].verdict == "error"
    assert f"Message Batches request {kind}" in cases["bob"].runs[0].error
    assert "after a retry" in cases["bob"].runs[0].error
    assert cases["cy"].verdict == "pass" and cases["ada"].verdict == "pass"


def test_callable_targets_call_the_model_as_usual_and_the_output_says_so(write, tmp_path, fake_anthropic):
    write(
        "agent.py",
        """
        def coach(case, llm):
            return llm.complete(f"Coach {case['who']} for a race.")
    """,
    )
    suite = write("coach.yml", SUITE.replace('target: {prompt: "Coach {{ who }} for a race."}', "target: agent:coach"))
    fake = fake_anthropic(coach_script())
    client = client_for(fake, tmp_path)
    from evalkit.llm.batching import batch_run  # the CLI's own setup, with its notes

    notes: list[str] = []
    batch_run(client, tmp_path / "r.json", load_suites([suite]), None, notes.append)
    client.batcher.poll = FAST
    report = run(load_suites([suite]), client, RunOptions())
    assert fake.request_count == 3  # the agent's own calls, one by one
    assert fake.batches.batched_requests == 3  # the judge and the extraction, one call an output
    assert [c.verdict for c in report.suites[0].cases] == ["pass", "fail", "pass"]
    assert notes and "coach" in notes[0] and "one by one" in notes[0]
    assert notes[0] in report.warnings


def test_the_cli_runs_with_batch(write, tmp_path, monkeypatch, fake_anthropic, anthropic_environ):
    from evalkit.cli.commands import main

    suite = write("coach.yml", SUITE)
    fake = fake_anthropic(coach_script())
    anthropic_environ(fake)
    monkeypatch.setattr("evalkit.llm.batching.setup.PollPolicy", lambda: FAST)
    result = CliRunner().invoke(main, ["run", str(suite), "--batch", "--no-cache", "-o", str(tmp_path / "out.json")])
    assert fake.batches.creates == 2 and fake.request_count == 0
    assert result.exit_code == 1, result.output  # bob fails its rubric item
    assert "Message Batch msgbatch_" in result.output and "3 requests submitted" in result.output
    assert (tmp_path / "out.json").exists() and not (tmp_path / "out.batches.json").exists()


@pytest.mark.parametrize(
    "family",
    [
        "claude-haiku-4-5",
        "claude-sonnet-4-6",
        "claude-opus-4-8",
        "claude-haiku-5-5",
        "claude-sonnet-5-5",
        "claude-fable-5-1",
    ],
)
def test_a_batch_run_on_each_model_family_is_refused_nothing(write, tmp_path, family, fake_anthropic):
    """Batch params are held to the same published rules as a call (no sampling parameter, no forced
    tool while thinking): every batched request succeeds, on a model of each family."""
    suite = write("coach.yml", SUITE.replace(MODEL, family))
    fake = fake_anthropic(coach_script(), unknown_models="404")
    batched = run(load_suites([suite]), client_for(fake, tmp_path, batch_results=tmp_path / "r.json"), RunOptions())
    waves = [fake.batches.requests_of(b) for b in fake.batches.batch_ids]
    assert [c.verdict for c in batched.suites[0].cases] == ["pass", "fail", "pass"]
    assert [len(w) for w in waves] == [3, 3] and all(r["params"]["model"] == family for w in waves for r in w)
    assert not any({"temperature", "top_p", "top_k"} & set(r["params"]) for w in waves for r in w)
