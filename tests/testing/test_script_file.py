"""`python -m evalkit.testing.fake_anthropic --script FILE`: a script file's rules answer by prompt and
turn, with tool_use steps and verdicts; every mistake in the file is one line naming where it is."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import anthropic
import pytest

from evalkit.testing.fake_anthropic import FakeAnthropicServer
from evalkit.testing.script import JUDGE_TOOL
from evalkit.testing.script_file import ScriptFileError, load_script

SCRIPT = """\
replies:
  - {prompt: weather, turn: 1, tool_use: [{name: forecast, input: {city: Oslo}}], text: Checking.}
  - {prompt: weather, turn: 2, reply: "Rain in Oslo."}
verdict: pass
verdicts: {cites: fail}
"""
JUDGE = {
    "name": JUDGE_TOOL,
    "input_schema": {
        "type": "object",
        "properties": {
            "items": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "id": {"type": "string", "enum": ["polite", "cites"]},
                        "reason": {"type": "string"},
                        "verdict": {"type": "string", "enum": ["pass", "fail"]},
                    },
                },
            }
        },
    },
}


def ask(client: anthropic.Anthropic, messages: list, **extra) -> anthropic.types.Message:
    return client.messages.create(model="claude-haiku-4-5", max_tokens=64, messages=messages, **extra)


def test_a_script_file_answers_by_turn_with_tool_use_and_verdicts(tmp_path):
    path = tmp_path / "s.yml"
    path.write_text(SCRIPT)
    with FakeAnthropicServer(load_script(path)) as fake:
        client = anthropic.Anthropic(api_key="k", base_url=fake.url, max_retries=0)
        first = ask(client, [{"role": "user", "content": "weather tomorrow?"}])
        assert first.stop_reason == "tool_use"
        call = next(b for b in first.content if b.type == "tool_use")
        assert (call.name, call.input) == ("forecast", {"city": "Oslo"})
        second = ask(
            client,
            [
                {"role": "user", "content": "weather tomorrow?"},
                {"role": "assistant", "content": [b.model_dump() for b in first.content]},
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": call.id, "content": "rain"}]},
            ],
        )
        assert second.content[0].text == "Rain in Oslo."
        judged = ask(
            client,
            [{"role": "user", "content": "grade it"}],
            tools=[JUDGE],
            tool_choice={"type": "tool", "name": JUDGE_TOOL},
        )
        items = {i["id"]: i["verdict"] for i in judged.content[0].input["items"]}
        assert items == {"polite": "pass", "cites": "fail"}


@pytest.mark.parametrize(
    "text, message",
    [
        ("replies: [{repy: hi}]", "replies[0]: give exactly one of reply, tool_use"),
        ("replies: [{reply: hi, trun: 2}]", "replies[0]: unknown key 'trun'"),
        ("replies: [{reply: hi, turn: 0}]", "replies[0]: turn: expected a whole number from 1"),
        ("replies: [{tool_use: [{name: x, args: {}}]}]", "replies[0]: tool_use[0]: expected {name"),
        ("verdict: maybe", "verdict: 'maybe' is not one of pass, fail"),
        ("verdicts: {a: yes}", "verdicts: expected a mapping"),
        ("reply: hi", "unknown key 'reply'"),
        ("replies: [oops", "not valid YAML at line"),
        ("- 1", "expected a mapping"),
    ],
)
def test_each_mistake_in_a_script_file_is_named(tmp_path, text, message):
    path = tmp_path / "s.yml"
    path.write_text(text)
    with pytest.raises(ScriptFileError, match=message.replace("[", r"\[").replace("{", r"\{")) as caught:
        load_script(path)
    assert str(path) in str(caught.value) and "\n" not in str(caught.value)


def test_the_command_refuses_a_bad_script_in_one_line(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"replies": [{"reply": 5}]}))
    for args in (["--script", str(bad)], ["--script", str(tmp_path / "missing.yml")]):
        done = subprocess.run(
            [sys.executable, "-m", "evalkit.testing.fake_anthropic", "--port", "0", *args],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 2
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("fake_anthropic: --script "), done.stderr
    both = subprocess.run(
        [sys.executable, "-m", "evalkit.testing.fake_anthropic", "--script", str(bad), "--verdict", "fail"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert both.returncode == 2 and "give the verdicts in the script file" in both.stderr


def test_the_docs_show_a_script_file_for_an_agent_and_a_conversation():
    page = (Path(__file__).resolve().parents[2] / "docs" / "offline.md").read_text()
    assert "--script agent.script.yml" in page and "--script chat.script.json" in page
    assert "evalkit run examples/agent_trajectory/suite.yml" in page
    assert "evalkit run examples/multi_turn/suite.yml" in page
