"""A refusal evalkit's own request shape caused stops the run at the first one, exit 3, one line; a
refusal of the suite's own setting names it (exit 2); agent code's own request stays its case's
error row (evalkit/llm/refusals.py). Through the real CLI and anthropic client against the fake."""

from __future__ import annotations

from click.testing import CliRunner

from evalkit.cli.commands import main
from evalkit.errors import ProviderError
from evalkit.llm.providers.interface import ModelRequest
from evalkit.llm.refusals import run_stop
from evalkit.scoring.judge import JUDGE_TOOL
from evalkit.testing.script import Script, requested_tool
from tests.fakes import model_env

CASES = "\n".join(
    f"  - {{id: c{i}, input: {{who: p{i}}}, rubric: [{{id: polite, judge: It is polite}}]}}" for i in range(6)
)
HEAD = 'target: {prompt: "Greet {{ who }}"}\njudge_model: claude-haiku-5-5\n'


def _suite(extra: str = "") -> str:
    return HEAD + extra + "cases:\n" + CASES + "\n"


def _cli(tmp_path, fake, suite):
    env = model_env(fake.url, tmp_path / "c")
    return CliRunner().invoke(main, ["run", str(suite), "-o", str(tmp_path / "r.json"), "--concurrency", "1"], env=env)


def test_a_judge_request_the_api_refuses_stops_the_run_with_exit_3_and_one_line(write, tmp_path, fake_anthropic):
    script = Script().reply("Hello", prompt="Greet").fault("400", tool=JUDGE_TOOL, times=None)
    suite = write("s.yml", _suite())
    fake = fake_anthropic(script)
    result = _cli(tmp_path, fake, suite)
    judged = [b for b in fake.requests if requested_tool(b) == JUDGE_TOOL]
    assert result.exit_code == 3, result.output
    lines = [ln for ln in result.output.splitlines() if "evalkit's fault" in ln]
    assert len(lines) == 1 and "evalkit's fault, not your suite's" in lines[0]
    assert sum("400" in ln for ln in result.output.splitlines()) <= 2  # the first case's row, and the reason
    assert "claude-haiku-5-5" in lines[0] and "choose another judge model" in lines[0]
    assert len(judged) == 1  # no 400 per case: the first refusal stops every later call
    assert "Traceback" not in result.output


def test_a_refused_setting_of_the_suite_is_named_with_exit_2(write, tmp_path, fake_anthropic):
    def refuse(body):
        from evalkit.testing.script import _Refused

        return _Refused("`temperature` is deprecated for this model.")

    script = Script().respond(refuse, prompt="Greet")
    # The table says Haiku 4.5 takes sampling parameters; sources disagree, and this API says no.
    suite = write("s.yml", _suite("model: claude-haiku-4-5\ntemperature: 0.3\n"))
    fake = fake_anthropic(script)
    result = _cli(tmp_path, fake, suite)
    assert fake.request_count == 1
    assert result.exit_code == 2, result.output
    assert "model claude-haiku-4-5 refused temperature of this suite" in result.output
    assert "Traceback" not in result.output


def test_whose_fault_each_refusal_is():
    request = ModelRequest(model="m", messages=({"role": "user", "content": "hi"},), temperature=0.5)
    refused = ProviderError(
        "Anthropic API 400 invalid_request_error: `temperature` is deprecated for this model.", status=400
    )
    user = run_stop(refused, request, "target", evalkit_built=True)
    assert user is not None and not user.evalkit_fault and "temperature" in user.message
    assert run_stop(refused, request, "target", evalkit_built=False) is None  # agent code's own request
    judge = run_stop(refused, ModelRequest(model="m", messages=request.messages), "judge", evalkit_built=True)
    assert judge is not None and judge.evalkit_fault
    long = ProviderError("Anthropic API 400 invalid_request_error: prompt is too long: 300000 tokens", status=400)
    assert run_stop(long, request, "judge", evalkit_built=True) is None  # the case's own content: its error row
    replay = ProviderError(
        "Anthropic API 400 invalid_request_error: Expected `thinking` or `redacted_thinking`, but found `tool_use`.",
        status=400,
    )
    thinking = ModelRequest(model="m", messages=request.messages, thinking={"type": "adaptive"})
    stop = run_stop(replay, thinking, "target", evalkit_built=True)
    assert stop is not None and stop.evalkit_fault  # how evalkit repeats a reply, whoever set thinking
    assert run_stop(ProviderError("Anthropic API 429", status=429), request, "judge", True) is None
