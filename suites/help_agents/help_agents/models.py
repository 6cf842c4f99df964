"""The agents' inputs and the CodeNode schema a generated code node must satisfy."""

from __future__ import annotations

import ast
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

MAX_CODE_CHARS = 20_000


class CodeGenerateInput(BaseModel):
    """What a user asks the code generator for, and the code they already have (may be broken)."""

    model_config = ConfigDict(extra="forbid")
    query: str
    context: str = ""


class ProgressMessagesInput(BaseModel):
    """The chatbot the progress messages are for, and the language of its audience."""

    model_config = ConfigDict(extra="forbid")
    chatbot_name: str = Field(min_length=1)
    chatbot_description: str = ""
    language: str = "English"


class CodeNode(BaseModel):
    """A code node of a chatbot flow: a Python module whose `main(input, **kwargs)` is run."""

    model_config = ConfigDict(extra="forbid")
    code: str = Field(min_length=1, max_length=MAX_CODE_CHARS)
    language: Literal["python"] = "python"
    entrypoint: Literal["main"] = "main"
    explanation: str = ""

    @field_validator("code")
    @classmethod
    def _defines_entrypoint(cls, code: str) -> str:
        try:
            tree = ast.parse(code)
        except SyntaxError as exc:
            raise ValueError(f"code does not parse (line {exc.lineno}: {exc.msg})") from None
        if not any(isinstance(n, ast.FunctionDef) and n.name == "main" for n in tree.body):
            raise ValueError("code defines no module-level function `main`")
        return code
