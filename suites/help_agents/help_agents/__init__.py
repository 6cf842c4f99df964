"""The help agents of seed 003: CodeGenerateAgent writes a code node, ProgressMessagesAgent
writes the short messages a chatbot shows while it works."""

from help_agents.agents import (
    AgentReplyError,
    CodeGenerateAgent,
    ProgressMessagesAgent,
    code_generate,
    progress_messages,
)
from help_agents.models import CodeGenerateInput, CodeNode, ProgressMessagesInput

__all__ = [
    "AgentReplyError",
    "CodeGenerateAgent",
    "CodeGenerateInput",
    "CodeNode",
    "ProgressMessagesAgent",
    "ProgressMessagesInput",
    "code_generate",
    "progress_messages",
]
