"""The agents: prompts, the "high" tier call through the evalkit client, parsing of replies."""

import pytest
from help_agents import (
    AgentReplyError,
    CodeGenerateAgent,
    CodeGenerateInput,
    CodeNode,
    ProgressMessagesAgent,
    ProgressMessagesInput,
)
from help_agents.agents import parse_code_reply, parse_messages_reply
from pydantic import ValidationError


class FakeLLM:
    def __init__(self, reply):
        self.reply, self.calls = reply, []

    def complete(self, prompt, **kwargs):
        self.calls.append((prompt, kwargs))
        return self.reply


def test_code_agent_calls_the_high_tier_and_returns_a_code_node():
    llm = FakeLLM("Here it is:\n```python\ndef main(input: str, **kwargs) -> str:\n    return input\n```\nEchoes.")
    node = CodeGenerateAgent(input=CodeGenerateInput(query="Echo the input", context="x = 1"), llm=llm).run()
    assert isinstance(node, CodeNode)
    assert node.code == "def main(input: str, **kwargs) -> str:\n    return input\n"
    assert node.explanation == "Here it is: Echoes."
    prompt, kwargs = llm.calls[0]
    assert "Request: Echo the input" in prompt and "```python\nx = 1\n```" in prompt
    assert kwargs["model"] == "high" and "def main(input: str, **kwargs) -> str" in kwargs["system"]


def test_an_invalid_node_is_returned_for_the_code_node_check_to_reject():
    node = parse_code_reply("```python\ndef main(input: str, **kwargs) -> str:\n    return input.upper(\n```")
    with pytest.raises(ValidationError, match="code does not parse"):
        CodeNode.model_validate(node.model_dump())


def test_a_reply_without_a_fence_is_taken_as_code():
    assert parse_code_reply("def main(input, **kw):\n    return ''").code.startswith("def main")


def test_code_node_requires_a_main():
    with pytest.raises(ValidationError, match="no module-level function `main`"):
        CodeNode(code="def helper():\n    pass\n")


def test_progress_agent_parses_a_json_list():
    llm = FakeLLM('```json\n["Uno dos", " Tres "]\n```')
    messages = ProgressMessagesAgent(input=ProgressMessagesInput(chatbot_name="Bot", language="Spanish"), llm=llm).run()
    assert messages == ["Uno dos", "Tres"]
    prompt, kwargs = llm.calls[0]
    assert "Chatbot: Bot\n" in prompt and "Audience language: Spanish" in prompt and kwargs["model"] == "high"


@pytest.mark.parametrize("reply", ["no list here", "[1, 2]", '["a", ]'])
def test_progress_agent_rejects_a_reply_that_is_not_a_list_of_strings(reply):
    with pytest.raises(AgentReplyError):
        parse_messages_reply(reply)


def test_the_model_is_told_there_is_no_existing_code_when_the_context_is_blank():
    llm = FakeLLM("```python\ndef main(input: str, **kwargs) -> str:\n    return input\n```")
    CodeGenerateAgent(input=CodeGenerateInput(query="Echo", context="  \n\t\n"), llm=llm).run()
    assert "Existing code: (none)" in llm.calls[0][0] and "```python" not in llm.calls[0][0]


def test_the_model_is_told_what_the_chatbot_does():
    llm = FakeLLM('["Looking up your order"]')
    ProgressMessagesAgent(
        input=ProgressMessagesInput(chatbot_name="Shopbot", chatbot_description="tracks parcels"), llm=llm
    ).run()
    assert "What it does: tracks parcels" in llm.calls[0][0]


@pytest.mark.parametrize("reply", ["no list here", "the list ends ] before [ it starts", "an open [ list"])
def test_a_reply_without_a_list_says_so(reply):
    with pytest.raises(AgentReplyError, match="holds no JSON list"):
        parse_messages_reply(reply)
