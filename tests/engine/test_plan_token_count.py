"""`evalkit plan` with a key counts input tokens with the API's token counting endpoint (exact),
without one estimates them, and says which (against the loopback fake, real anthropic client)."""

from __future__ import annotations

import json

from click.testing import CliRunner

from evalkit.cli.commands import main
from evalkit.engine import load_suites, plan_calls
from evalkit.llm.budget import text_tokens
from evalkit.testing.script import Script, estimate_tokens, request_text

MODEL = "claude-haiku-4-5-20251001"
SUITE = f"""
target: {{prompt: "Answer briefly: {{{{ q }}}}"}}
model: {MODEL}
cases:
  - {{id: a, input: {{q: "what is a tempo run, and why would a marathoner do one every week?"}}}}
  - {{id: b, input: {{q: "what is a tempo run, and why would a marathoner do one every week?"}}}}
  - {{id: c, input: {{q: "how long should a long run be?"}}}}
"""


def test_with_a_key_the_plan_counts_input_tokens_exactly(write, tmp_path, fake_anthropic, anthropic_environ):
    suites = load_suites([write("s.yml", SUITE)])
    fake = fake_anthropic(Script().reply("ok"))
    anthropic_environ(fake)
    plan = plan_calls(suites, no_cache=True)
    counted = fake.counted
    assert not fake.requests  # counting is no model call
    assert len(counted) == 2  # a and b send the same request: counted once
    # b's request is a's: the run shares it, so the plan pays for a and c only, at the endpoint's counts.
    exact = sum(estimate_tokens(request_text(body)) for body in counted)
    [line] = plan.lines
    assert line.target_calls == 2 and line.free == 1
    assert line.tokens[MODEL][0] == exact
    assert exact != sum(text_tokens(json.dumps(body)) for body in counted)  # not what the estimate gives
    assert "input tokens: 2 distinct requests counted exactly by the API's token counting endpoint" in plan.render()


def test_without_a_key_or_with_estimate_tokens_the_plan_estimates_and_says_so(
    write, monkeypatch, fake_anthropic, anthropic_env
):
    path = write("s.yml", SUITE)
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    plan = plan_calls(load_suites([path]), no_cache=True)
    assert "input tokens: estimated (4 characters a token of the request)" in plan.render()
    fake = fake_anthropic(Script().reply("ok"))
    env = anthropic_env(fake)
    out = CliRunner().invoke(main, ["plan", str(path), "--no-cache", "--estimate-tokens"], env=env)
    assert not fake.counted
    assert out.exit_code == 0 and "input tokens: estimated" in out.output, out.output
    fake = fake_anthropic(Script().reply("ok"))
    out = CliRunner().invoke(main, ["plan", str(path), "--no-cache"], env=anthropic_env(fake))
    assert len(fake.counted) == 2
    assert out.exit_code == 0 and "counted exactly by the API's token counting endpoint" in out.output, out.output


def test_when_counting_fails_the_plan_estimates_and_says_why(write, anthropic_environ):
    anthropic_environ("http://127.0.0.1:9")  # nothing listens
    plan = plan_calls(load_suites([write("s.yml", SUITE)]), no_cache=True)
    text = plan.render()
    assert "input tokens: estimated (4 characters a token): the token counting endpoint failed (" in text
    assert "after 0 requests" in text
    [line] = plan.lines
    assert line.target_calls == 2 and line.tokens[MODEL][0] > 0
