"""The fixture lists keep seed 003's exact format; the suite files run them with their targets."""

from pathlib import Path

import help_agents_demo as demo
import pytest
import yaml

from evalkit.engine import load_suites, make_client, run
from evalkit.run.runner import RunOptions
from evalkit.testing.scripted import ScriptedProvider

SUITE_DIR = Path(__file__).resolve().parents[3] / "suites" / "help_agents"
PROGRAMMATIC = {
    "code_generate.yml": ["syntax", "has_main", "code_node", "runs"],
    "progress_messages.yml": ["count", "max_words", "distinct", "forbidden_phrases"],
}


@pytest.mark.parametrize("name, at_least", [("code_generate.yml", 8), ("progress_messages.yml", 5)])
def test_fixture_lists_are_lists_of_id_input_checks(name, at_least):
    cases = yaml.safe_load((SUITE_DIR / name).read_text())
    assert isinstance(cases, list) and len(cases) >= at_least
    assert len({c["id"] for c in cases}) == len(cases)
    for case in cases:
        assert set(case) == {"id", "input", "checks"}
        types = [c["type"] for c in case["checks"]]
        assert types[:-1] == PROGRAMMATIC[name] and types[-1] == "llm_judge", case["id"]


def test_the_documents_cases_are_there_verbatim():
    cases = {c["id"]: c for c in yaml.safe_load((SUITE_DIR / "code_generate.yml").read_text())}
    assert cases["basic_hello_world"]["input"] == {
        "query": "Write a function that returns 'Hello, World!'",
        "context": "",
    }
    assert (
        cases["fix_broken_code"]["input"]["context"]
        == "def main(input: str, **kwargs) -> str:\n    return input.upper("
    )
    health = yaml.safe_load((SUITE_DIR / "progress_messages.yml").read_text())[0]
    assert health["input"] == {"chatbot_name": "HealthBot", "chatbot_description": "A health advice chatbot"}
    assert health["checks"][:2] == [{"type": "count", "expected": 30}, {"type": "max_words", "per_message": 6}]


def test_the_folder_loads_both_suites_with_their_targets():
    suites = load_suites([SUITE_DIR])
    assert {s.name: s.target.function for s in suites} == {
        "help_agents.code_generate": "help_agents.agents:code_generate",
        "help_agents.progress_messages": "help_agents.agents:progress_messages",
    }
    assert {len(s.cases) for s in suites} == {9, 6}


def _verdicts(variant):
    client = make_client(ScriptedProvider(demo.script(variant)), no_cache=True, deprecated=None)
    report = run(load_suites([SUITE_DIR]), client, RunOptions())
    return {c.id: c.verdict for s in report.suites for c in s.cases}


def test_demo_pass_variant_passes_every_case():
    assert set(_verdicts("pass").values()) == {"pass"}


def test_demo_fail_variant_fails_instructively():
    failed = {cid for cid, v in _verdicts("fail").items() if v != "pass"}
    assert failed == {
        "basic_hello_world",
        "fix_broken_code",
        "parse_json_input",
        "generic_chatbot",
        "spanish_travel_planner",
        "kids_homework_helper",
    }
