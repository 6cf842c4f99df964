"""run_checks, llm_judge and load_fixtures: each programmatic check on good and bad outputs."""

import re
import textwrap

import pytest

from evalkit import llm_judge, load_fixtures, run_checks
from evalkit.engine import agent_client as runtime
from evalkit.errors import SuiteError
from evalkit.testing.script import Script
from evalkit.testing.scripted import ScriptedProvider

GOOD = "def main(input: str, **kwargs) -> str:\n    return 'Hello, World!'\n"
BROKEN = "def main(input: str, **kwargs) -> str:\n    return input.upper(\n"
WRONG_SIGNATURE = "def main(text):\n    return text\n"
CODE_CHECKS = [{"type": "syntax"}, {"type": "has_main"}]
MESSAGE_CHECKS = [{"type": "count", "expected": 30}, {"type": "max_words", "per_message": 6}]


def test_good_code_passes_syntax_and_has_main():
    items = run_checks(GOOD, CODE_CHECKS)
    assert [i.status for i in items] == ["pass", "pass"]


def test_syntax_error_fails_syntax():
    with pytest.raises(AssertionError, match=r"check1:syntax: syntax error at line 2"):
        run_checks(BROKEN, [{"type": "syntax"}])


def test_wrong_main_signature_fails_has_main():
    with pytest.raises(AssertionError) as info:
        run_checks(WRONG_SIGNATURE, CODE_CHECKS)
    message = str(info.value)
    assert message.startswith("1 of 2 checks failed:")
    assert "check2:has_main: main has the wrong signature" in message
    assert "no `**kwargs`" in message and "return annotation is missing" in message


def test_code_node_check_revalidates_the_pydantic_output():
    from pydantic import BaseModel, field_validator

    class Node(BaseModel):
        code: str

        @field_validator("code")
        @classmethod
        def _not_empty(cls, v):
            if not v.strip():
                raise ValueError("empty code")
            return v

    assert run_checks(Node(code=GOOD), [{"type": "code_node"}])[0].status == "pass"
    with pytest.raises(AssertionError, match="not a valid Node: code: Value error, empty code"):
        run_checks(Node.model_construct(code="  "), [{"type": "code_node"}])


def test_thirty_short_messages_pass():
    assert all(i.status == "pass" for i in run_checks(["Checking your tips"] * 30, MESSAGE_CHECKS))


def test_twenty_nine_messages_fail_count():
    with pytest.raises(AssertionError, match="check1:count: 29 messages, expected 30"):
        run_checks(["Checking your tips"] * 29, MESSAGE_CHECKS)


def test_a_seven_word_message_fails_max_words():
    messages = ["Checking your tips"] * 29 + ["one two three four five six seven"]
    with pytest.raises(AssertionError, match=r"check2:max_words: 1 message\(s\) over 6 words: #30 has 7 words"):
        run_checks(messages, MESSAGE_CHECKS)


def test_three_failing_checks_are_reported_in_one_message():
    with pytest.raises(AssertionError) as info:
        run_checks(BROKEN, CODE_CHECKS + [{"type": "contains", "value": "Hello"}])
    lines = str(info.value).splitlines()
    assert lines[0] == "3 of 3 checks failed:"
    assert [line.split()[1] for line in lines[1:4]] == ["check1:syntax:", "check2:has_main:", "check3:contains:"]
    assert "  | def main(input: str, **kwargs) -> str:" in lines


def test_a_mistyped_check_is_a_suite_error_not_a_failure():
    with pytest.raises(SuiteError, match="unknown check type 'sintax'"):
        run_checks(GOOD, [{"type": "sintax"}])
    with pytest.raises(SuiteError, match="max_words"):
        run_checks(["x"], [{"type": "max_words"}])


def _judge_script(verdict_for):
    def respond(body):
        text = body["messages"][-1]["content"]
        ids = re.findall(r"exactly these ids: (.+?)\.\s*$", text, re.M)[-1].split(", ")
        return {"items": [{"id": i, "reason": f"reason for {i}", "verdict": verdict_for(i, text)} for i in ids]}

    return Script().respond(respond, tool="record_verdicts")


@pytest.fixture
def scripted_judge():
    def use(verdict_for):
        script = _judge_script(verdict_for)
        provider = ScriptedProvider(script)
        runtime.configure(provider=lambda: provider, no_cache=True)
        return provider

    yield use
    runtime.reset()


def test_llm_judge_returns_passed_and_reason_from_the_low_tier(scripted_judge, monkeypatch):
    monkeypatch.setenv("SYSTEM_AGENT_MODELS_LOW", "judge-model-x")
    provider = scripted_judge(lambda cid, text: "pass" if "Hello" in text else "fail")
    assert llm_judge("print('Hello')", "Says hello") == (True, "reason for criterion")
    assert llm_judge("print('bye')", "Says hello") == (False, "reason for criterion")
    assert {r["model"] for r in provider.requests} == {"judge-model-x"}


def test_run_checks_sends_every_criterion_in_one_judge_call(scripted_judge):
    provider = scripted_judge(lambda cid, text: "fail" if cid == "check3:llm_judge" else "pass")
    checks = [{"type": "syntax"}, {"type": "llm_judge", "criteria": "A"}, {"type": "llm_judge", "criteria": "B"}]
    with pytest.raises(AssertionError) as info:
        run_checks(GOOD, checks)
    assert "FAIL  check3:llm_judge (B): reason for check3:llm_judge" in str(info.value)
    assert "check2" not in str(info.value).split("output:")[0]
    assert len(provider.requests) == 1


def test_load_fixtures_finds_the_file_upwards_and_returns_case_dicts(tmp_path):
    (tmp_path / "fixtures").mkdir()
    (tmp_path / "fixtures" / "cases.yml").write_text(
        textwrap.dedent("""
        - id: one
          input: {query: hi}
          checks:
            - type: syntax
    """)
    )
    (tmp_path / "evals").mkdir()
    cases = load_fixtures("cases.yml", base=tmp_path / "evals")
    assert cases == [{"id": "one", "input": {"query": "hi"}, "checks": [{"type": "syntax"}]}]


def test_load_fixtures_reports_a_bad_file_with_its_line(tmp_path):
    (tmp_path / "bad.yml").write_text("- id: one\n  checks:\n    - type: sintax\n")
    with pytest.raises(SuiteError, match="line 3: case one: unknown check type 'sintax'"):
        load_fixtures("bad.yml", base=tmp_path)


def test_load_fixtures_names_where_it_looked(tmp_path):
    with pytest.raises(FileNotFoundError, match="missing.yml not found"):
        load_fixtures("missing.yml", base=tmp_path)
