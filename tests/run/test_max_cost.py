"""`--max-cost` / `max_cost:`: the budget stops a run. End to end through the real anthropic client
against the loopback fake: a 1,000-case run stops within one call's cost of its budget, the cases it
did not start are reported "not run: budget" (never as passes), and the run fails."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from evalkit.cli.commands import main
from evalkit.engine import load_suites, make_client, run
from evalkit.llm.budget import estimated_cost
from evalkit.llm.client import ModelClient
from evalkit.llm.providers.anthropic import AnthropicProvider
from evalkit.llm.providers.interface import ModelRequest
from evalkit.render.comment import render_comment
from evalkit.render.html import render_html
from evalkit.render.junit import render_junit
from evalkit.results.gates import exit_code
from evalkit.results.report import Report
from evalkit.run.runner import RunOptions
from evalkit.testing.fake_anthropic import FakeAnthropicServer
from evalkit.testing.script import Script
from evalkit.testing.scripted import ScriptedProvider

MODEL = "claude-haiku-4-5-20251001"
CASES = 1000
CONCURRENCY = 8
PROMPT = "Summarise: {{ text }}"
TEXT = "word " * 400  # ~500 input tokens a call
REPLY = "y" * 200  # 50 output tokens: the reply fills max_tokens, so the estimate is close to the cost


def suite_text(max_cost: float | None = None) -> str:
    cases = [
        {"id": f"c{i:04d}", "input": {"text": f"{i} {TEXT}"}, "checks": [{"type": "contains", "value": "y"}]}
        for i in range(CASES)
    ]
    head = {"name": "big", "target": {"prompt": PROMPT}, "model": MODEL, "max_tokens": 50, "cases": cases}
    if max_cost is not None:
        head["max_cost"] = max_cost
    return json.dumps(head)  # JSON is YAML


def one_call() -> float:
    """The estimate of one case's call (what the budget holds for it before it is sent)."""
    request = ModelRequest.from_prompt(PROMPT.replace("{{ text }}", f"999 {TEXT}"), model=MODEL, max_tokens=50)
    cost = estimated_cost(request)
    assert cost is not None
    return cost


def run_big(write, tmp_path, *, suite_budget=None, max_cost=None, cache_dir=None):
    suites = load_suites([write("big.yml", suite_text(suite_budget))])
    with FakeAnthropicServer(Script().reply(REPLY)) as fake:
        client = make_client(
            AnthropicProvider(api_key="test-key", base_url=fake.url),
            concurrency=CONCURRENCY,
            no_cache=cache_dir is None,
            cache_dir=cache_dir,
            deprecated=None,
        )
        report = run(suites, client, RunOptions(max_cost=max_cost))
        sent = fake.request_count
    return report, client, sent


def test_a_budget_stops_a_thousand_case_run_within_one_call_of_it(write, tmp_path):
    budget = 0.10
    report, client, sent = run_big(write, tmp_path, max_cost=budget)
    spent = client.usage.cost_usd
    assert 0 < sent < CASES
    assert spent <= budget  # never past it
    assert budget - spent <= one_call(), (budget, spent, one_call())  # within one call's cost of it
    [suite] = report.suites
    by_verdict: dict[str, list[str]] = {}
    for case in suite.cases:
        by_verdict.setdefault(case.verdict, []).append(case.id)
    # Every case is reported; those not sent are "not run: budget", never a pass.
    assert len(suite.cases) == CASES
    assert len(by_verdict["pass"]) == sent and len(by_verdict["not_run"]) == CASES - sent
    assert set(by_verdict) == {"pass", "not_run"}
    not_run = [c for c in suite.cases if c.verdict == "not_run"]
    assert all(c.reasons[0].startswith("not run: budget") and c.usage.calls == 0 for c in not_run)
    # Most were never started; those the runner's window had started were queued for a slot: never sent.
    assert sum(not c.runs for c in not_run) > len(not_run) / 2
    assert all("not run: budget" in (r.error or "") for c in not_run for r in c.runs)
    assert suite.verdict == "fail" and report.verdict == "fail" and exit_code(report.verdict) == 1
    assert report.budget is not None and report.budget.not_run == CASES - sent
    assert report.budget.limit_usd == budget and report.budget.spent_usd == pytest.approx(spent, abs=1e-6)
    assert report.budget.stopped and "would pass the budget of $0.10" in report.budget.stopped
    comment = render_comment(report)
    assert f"{CASES - sent} cases not run" in comment and "$0.1000 budget" in comment
    assert f"{CASES - sent} not run: budget" in comment  # the suite's counts
    page = render_html(report)
    assert "<strong>Budget reached</strong>" in page and f"{CASES - sent} cases not run" in page


def test_a_suite_budget_does_the_same(write, tmp_path):
    report, client, sent = run_big(write, tmp_path, suite_budget=0.05)
    assert sent < CASES and client.usage.cost_usd <= 0.05
    assert report.budget is not None and report.budget.limit_usd == 0.05
    assert report.suites[0].count("not_run") == CASES - sent


def test_run_again_with_more_budget_pays_only_for_the_cases_not_run(write, tmp_path):
    first, _, sent = run_big(write, tmp_path, max_cost=0.05, cache_dir=tmp_path / "cache")
    assert sent < CASES
    # The calls already paid for come from the response cache: free, and never refused.
    second, client, sent_again = run_big(write, tmp_path, max_cost=1000, cache_dir=tmp_path / "cache")
    assert sent_again == CASES - sent and second.verdict == "pass"
    assert client.usage.cache_hits == sent


def test_a_budget_large_enough_changes_nothing(write, tmp_path):
    report, client, sent = run_big(write, tmp_path, max_cost=1000)
    assert sent == CASES and report.verdict == "pass" and exit_code(report.verdict) == 0
    assert report.suites[0].count("pass") == CASES and not report.suites[0].count("not_run")
    assert report.budget is not None and report.budget.stopped is None and report.budget.not_run == 0
    assert report.budget.spent_usd == pytest.approx(client.usage.cost_usd, abs=1e-6)
    assert "budget" not in render_comment(report).lower()


SMALL = """
name: small
target: {prompt: "Say {{ w }}"}
model: claude-haiku-4-5-20251001
max_tokens: 50
cases:
""" + "".join(
    f"  - {{id: c{i}, input: {{w: '{i} {TEXT}'}}, checks: [{{type: contains, value: y}}]}}\n" for i in range(40)
)


def test_the_cli_says_the_budget_stopped_the_run_and_what_it_spent(write, tmp_path, fake_anthropic, anthropic_env):
    suite = write("small.yml", SMALL)
    out = tmp_path / "r.json"
    fake = fake_anthropic(Script().reply(REPLY))
    env = anthropic_env(fake)
    result = CliRunner().invoke(
        main, ["run", str(suite), "--max-cost", "0.01", "--concurrency", "2", "-o", str(out), "--no-cache"], env=env
    )
    sent = fake.request_count
    assert result.exit_code == 1, result.output
    assert 0 < sent < 40
    assert "budget: stopped the run: $" in result.output and f"of $0.01, {40 - sent} cases not run" in result.output
    assert f"{40 - sent} not run: budget" in result.output  # the suite's line
    saved = Report.load(out)
    assert saved.budget is not None and saved.budget.not_run == 40 - sent and saved.budget.spent_usd <= 0.01
    junit = render_junit(saved)
    assert junit.count('type="not_run"') == 40 - sent


@pytest.mark.parametrize(
    "args, text, message",
    [
        (["--max-cost", "-1"], None, "--max-cost '-1' must be more than 0 US dollars"),
        (["--max-cost", "abc"], None, "--max-cost 'abc' is not an amount of US dollars"),
        (["--max-cost", "nan"], None, "--max-cost 'nan' must be more than 0 US dollars"),
        ([], "max_cost: abc\n", "line 1: max_cost: 'abc' is not an amount of US dollars (e.g. 5 or 0.50)"),
        ([], "max_cost: -1\n", "line 1: max_cost: '-1' must be more than 0 US dollars"),
        ([], "max_cost: .inf\n", "line 1: max_cost: 'inf' must be more than 0 US dollars"),
    ],
)
def test_a_bad_budget_is_one_line_and_exit_2(write, args, text, message):
    suite = write("s.yml", (text or "") + "target: {prompt: 'Hi'}\ncases: [{id: a}]\n")
    result = CliRunner().invoke(main, ["run", str(suite), *args], env={"ANTHROPIC_API_KEY": "k"})
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    if text:  # a suite file's problems come as every suite file's do: the file, then one line a problem
        assert lines[0].endswith("s.yml: 1 problem") and len(lines) == 2
        lines = lines[1:]
    assert len(lines) == 1 and message in lines[0], result.output


def test_a_callable_targets_refused_call_is_not_run_not_an_error(write, tmp_path):
    # The target's code runs in a worker process; its calls come back through the client, budget and all.
    write("maxcost_agent.py", "def answer(input, client):\n    return client.complete('Say ' + input['w'])\n")
    suite = write(
        "s.yml",
        "target: maxcost_agent:answer\nmodel: claude-haiku-4-5-20251001\nmax_tokens: 50\n"
        "cases: [{id: a, input: {w: hi}, checks: [{type: contains, value: y}]}, {id: b, input: {w: ho}}]\n",
    )
    provider = ScriptedProvider(Script().reply(REPLY))
    report = run(load_suites([suite]), ModelClient(provider), RunOptions(max_cost=1e-9))
    assert not provider.requests
    assert [c.verdict for c in report.suites[0].cases] == ["not_run", "not_run"], report.suites[0].cases[0].errors
    assert report.verdict == "fail" and report.budget is not None and report.budget.not_run == 2


def test_a_case_whose_judge_call_is_refused_is_not_run_not_a_verdict(write):
    suite = write(
        "s.yml",
        "target: {prompt: 'Say {{ w }}'}\nmodel: claude-haiku-4-5-20251001\nmax_tokens: 50\n"
        "judge_model: claude-haiku-4-5-20251001\n"
        "cases: [{id: a, input: {w: hi}, rubric: [{judge: 'The answer is polite.'}]}]\n",
    )
    provider = ScriptedProvider(Script().reply(REPLY))
    # Room for the target's call (about $0.0003 at max_tokens 50), not for the judge's (larger max_tokens).
    report = run(load_suites([suite]), ModelClient(provider), RunOptions(max_cost=0.001))
    assert len(provider.requests) == 1  # the target's call only
    [case] = report.suites[0].cases
    assert case.verdict == "not_run" and case.reasons[0].startswith(
        "not run: budget: the budget stopped the run during"
    )
    assert case.runs[0].output == REPLY  # what the target said is kept
    assert report.budget is not None and 0 < report.budget.spent_usd <= 0.001 and report.verdict == "fail"
