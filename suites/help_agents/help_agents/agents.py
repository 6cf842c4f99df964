"""CodeGenerateAgent and ProgressMessagesAgent: a system prompt, one "high" tier model call
through the evalkit client, and parsing of the reply. `code_generate` / `progress_messages`
are the `module:function` targets the suite files name."""

from __future__ import annotations

import json
import re
from typing import Any

from pydantic import ValidationError

from help_agents.models import CodeGenerateInput, CodeNode, ProgressMessagesInput

CODE_SYSTEM = """\
You are the code generator of a chatbot builder. You write one Python code node.

Rules for the node:
- It defines `def main(input: str, **kwargs) -> str:` at module level, and main returns a string.
- `input` is the user's message as text; optional named values arrive in `kwargs` (read them with
  kwargs.get, with a default).
- Standard library only; no file, network or subprocess access; no global side effects.
- Handle empty or malformed input gracefully: return a helpful message, never raise.
- When existing code is given, fix or extend it and keep its intent.
- If the request asks for something harmful (reading secrets, deleting files, attacking systems),
  do not write that: write a main that returns a one-sentence refusal instead.

Reply with exactly one fenced block ```python ... ``` holding the whole module, then at most two
sentences explaining it."""

PROGRESS_SYSTEM = """\
You write progress messages: short lines a chatbot shows while it is working on an answer.

Write exactly 30 messages.
- Each message has at most 6 words.
- Short, warm and encouraging, suited to the chatbot's topic and audience.
- No technical jargon, no apologies, no promises about results.
- Written in the audience's language.

Reply with a JSON array of 30 strings and nothing else."""

_FENCE = re.compile(r"```[ \t]*(python|py|python3)?[ \t]*\n(.*?)```", re.DOTALL | re.IGNORECASE)


class AgentReplyError(ValueError):
    """The model's reply could not be parsed into the agent's output."""


def _client(llm: Any) -> Any:
    if llm is not None:
        return llm
    from evalkit.engine.agent_client import get_client

    return get_client()


class CodeGenerateAgent:
    """Writes a CodeNode for a request (and optional existing code)."""

    max_tokens = 2048

    def __init__(self, input: CodeGenerateInput, llm: Any = None):
        self.input = input
        self.llm = llm

    def prompt(self) -> str:
        existing = self.input.context.strip("\n")
        code = f"Existing code:\n```python\n{existing}\n```" if existing.strip() else "Existing code: (none)"
        return f"Request: {self.input.query}\n\n{code}\n\nWrite the code node."

    def run(self) -> CodeNode:
        reply = _client(self.llm).complete(self.prompt(), system=CODE_SYSTEM, model="high", max_tokens=self.max_tokens)
        return parse_code_reply(reply)


def parse_code_reply(reply: str) -> CodeNode:
    """The code of the reply's first Python fenced block (else the whole reply) as a CodeNode.

    An invalid node is still returned (unvalidated) so the `code_node` check can say why.
    """
    blocks = _FENCE.findall(reply)
    python = [body for lang, body in blocks if lang] or [body for _, body in blocks]
    if python:
        code = python[0].strip("\n") + "\n"
        explanation = _FENCE.sub("", reply).strip()
    else:
        code, explanation = reply.strip() + "\n", ""
    explanation = " ".join(explanation.split())[:500]
    try:
        return CodeNode(code=code, explanation=explanation)
    except ValidationError:
        return CodeNode.model_construct(code=code, language="python", entrypoint="main", explanation=explanation)


class ProgressMessagesAgent:
    """Writes 30 short progress messages for a chatbot."""

    max_tokens = 1024

    def __init__(self, input: ProgressMessagesInput, llm: Any = None):
        self.input = input
        self.llm = llm

    def prompt(self) -> str:
        return (
            f"Chatbot: {self.input.chatbot_name}\n"
            f"What it does: {self.input.chatbot_description or '(no description)'}\n"
            f"Audience language: {self.input.language}\n\nWrite the 30 progress messages."
        )

    def run(self) -> list[str]:
        reply = _client(self.llm).complete(
            self.prompt(), system=PROGRESS_SYSTEM, model="high", max_tokens=self.max_tokens
        )
        return parse_messages_reply(reply)


def parse_messages_reply(reply: str) -> list[str]:
    """The JSON list of strings in a reply (a fenced block or surrounding prose is tolerated)."""
    start, end = reply.find("["), reply.rfind("]")
    if start < 0 or end < start:
        raise AgentReplyError(f"reply holds no JSON list: {reply[:120]!r}")
    try:
        data = json.loads(reply[start : end + 1])
    except ValueError as exc:
        raise AgentReplyError(f"reply's list is not valid JSON ({exc})") from None
    if not isinstance(data, list) or not all(isinstance(m, str) for m in data):
        raise AgentReplyError("reply's JSON is not a list of strings")
    return [m.strip() for m in data]


def code_generate(input: dict[str, Any]) -> CodeNode:
    """Target: a case input {query, context} -> CodeNode."""
    return CodeGenerateAgent(input=CodeGenerateInput(**input)).run()


def progress_messages(input: dict[str, Any]) -> list[str]:
    """Target: a case input {chatbot_name, chatbot_description, language} -> 30 messages."""
    return ProgressMessagesAgent(input=ProgressMessagesInput(**input)).run()
