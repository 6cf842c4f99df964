"""Both agents end to end against the loopback Messages-API fake, through the real anthropic
client: the CLI (`evalkit run`), the suite files as pytest items, and seed 003's pytest tests
give the same verdict for every case."""

import json
import re
from pathlib import Path

import help_agents_demo as demo
import pytest
from click.testing import CliRunner

from evalkit.cli.commands import main

pytest_plugins = ["pytester"]

SUITE_DIR = Path(__file__).resolve().parents[3] / "suites" / "help_agents"
EXPECTED_FAILURES = {
    "pass": set(),
    "fail": {
        "basic_hello_world",
        "fix_broken_code",
        "parse_json_input",
        "generic_chatbot",
        "spanish_travel_planner",
        "kids_homework_helper",
    },
}
VERBOSE_LINE = re.compile(r"::(?:test_\w+\[)?([\w-]+)\]? (PASSED|FAILED|SKIPPED|ERROR)")


@pytest.fixture(params=["pass", "fail"])
def fake(request, monkeypatch, tmp_path, fake_anthropic, anthropic_environ):
    server = fake_anthropic(demo.script(request.param))
    anthropic_environ(server)
    monkeypatch.setenv("EVALKIT_CACHE_DIR", str(tmp_path / f"cache-{request.param}"))
    server.variant = request.param
    return server


def _cli_verdicts(tmp_path, *args):
    out = tmp_path / "cli.json"
    result = CliRunner().invoke(main, ["run", *args, "--no-cache", "-o", str(out)])
    assert result.exit_code in (0, 1), result.output
    report = json.loads(out.read_text())
    return {c["id"]: c["verdict"] for s in report["suites"] for c in s["cases"]}, result.exit_code


def _pytest_verdicts(pytester, *args):
    result = pytester.runpytest_subprocess(*args, "-v", "-p", "no:cacheprovider", "--evalkit-no-cache")
    verdicts = {
        m.group(1): {"PASSED": "pass", "FAILED": "fail"}.get(m.group(2), m.group(2).lower())
        for m in map(VERBOSE_LINE.search, result.outlines)
        if m
    }
    return verdicts, result


@pytest.mark.slow
def test_cli_and_pytest_give_the_same_verdicts(fake, pytester, tmp_path):
    expected = {
        cid: "fail" if cid in EXPECTED_FAILURES[fake.variant] else "pass"
        for cid in list(demo.GOOD_CODE) + list(demo.MESSAGE_PARTS)
    }

    # The CLI on the folder: both *.suite.yml files, each with its target.
    folder, code = _cli_verdicts(tmp_path, str(SUITE_DIR))
    assert folder == expected
    assert code == (1 if EXPECTED_FAILURES[fake.variant] else 0)
    # The CLI on a fixture list, with the target given on the command line.
    listed, _ = _cli_verdicts(
        tmp_path, str(SUITE_DIR / "code_generate.yml"), "--target", "help_agents.agents:code_generate"
    )
    assert listed == {k: v for k, v in expected.items() if k in demo.GOOD_CODE}

    # pytest on the suite files: one item per case, run by the same engine.
    items, result = _pytest_verdicts(
        pytester, str(SUITE_DIR / "code_generate.suite.yml"), str(SUITE_DIR / "progress_messages.suite.yml")
    )
    assert items == expected, result.stdout.str()

    # pytest on seed 003's test files (agent.run() + run_checks), no -m needed when named.
    tests, result = _pytest_verdicts(pytester, str(SUITE_DIR / "evals"))
    assert tests == expected, result.stdout.str()
    if fake.variant == "fail":
        result.stdout.fnmatch_lines(["*5 of 5 checks failed:*", "*FAIL  check1:syntax: syntax error at line 3*"])


def test_pytest_dash_m_eval_dash_k_runs_one_case(fake, pytester):
    result = pytester.runpytest_subprocess(
        str(SUITE_DIR / "evals"), "-m", "eval", "-k", "basic_hello_world", "-p", "no:cacheprovider"
    )
    result.assert_outcomes(**({"passed": 1} if fake.variant == "pass" else {"failed": 1}), deselected=14)
