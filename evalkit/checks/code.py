"""Checks on generated Python code: it parses, defines the expected `main`, fits a schema."""

from __future__ import annotations

import ast
from typing import Any

from pydantic import BaseModel, ValidationError

from evalkit._runtime.import_names import import_object
from evalkit.checks.base import Check, CheckContext, Outcome


def code_of(output: Any) -> str:
    """The code in an output: a string, or the `code` of a dict or object."""
    if isinstance(output, str):
        return output
    if isinstance(output, dict) and isinstance(output.get("code"), str):
        return str(output["code"])
    code = getattr(output, "code", None)
    if isinstance(code, str):
        return code
    raise ValueError(f"output has no code (got {type(output).__name__}, expected a string or a `code` field)")


class Syntax(Check):
    """The code parses as Python (`ast.parse`)."""

    type = "syntax"

    def evaluate(self, ctx: CheckContext) -> Outcome:
        try:
            ast.parse(code_of(ctx.output))
        except SyntaxError as exc:
            return Outcome(False, f"syntax error at line {exc.lineno}: {exc.msg}")
        return Outcome(True, "parses as Python")


class HasMain(Check):
    """The code defines `def main(input: str, **kwargs) -> str` at module level."""

    type = "has_main"

    def evaluate(self, ctx: CheckContext) -> Outcome:
        try:
            tree = ast.parse(code_of(ctx.output))
        except SyntaxError as exc:
            return Outcome(False, f"cannot look for main: syntax error at line {exc.lineno}")
        mains = [n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == "main"]
        if not mains:
            return Outcome(False, "no module-level `def main` found")
        problems = _signature_problems(mains[-1])
        if problems:
            return Outcome(False, "main has the wrong signature: " + "; ".join(problems))
        return Outcome(True, "defines main(input: str, **kwargs) -> str")


def _signature_problems(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> list[str]:
    def ann(node: ast.expr | None) -> str | None:
        return ast.unparse(node) if node is not None else None

    args = fn.args
    problems = []
    if isinstance(fn, ast.AsyncFunctionDef):
        problems.append("main is async")
    positional = args.posonlyargs + args.args
    if len(positional) != 1 or positional[0].arg != "input":
        problems.append(f"expected one parameter `input`, got ({', '.join(a.arg for a in positional)})")
    elif ann(positional[0].annotation) != "str":
        problems.append("`input` is not annotated `str`")
    if args.kwarg is None:
        problems.append("no `**kwargs`")
    if args.vararg is not None or args.kwonlyargs:
        problems.append("unexpected extra parameters")
    if ann(fn.returns) != "str":
        problems.append(f"return annotation is {ann(fn.returns) or 'missing'}, expected str")
    return problems


class CodeNode(Check):
    """The output validates against a pydantic model, `model: module:Class`.

    Without `model`, an output that already is a pydantic object is re-validated
    against its own class.
    """

    type = "code_node"
    calls_user_code = True  # the model's validators are the team's code
    model: str | None = None

    def evaluate(self, ctx: CheckContext) -> Outcome:
        output = ctx.output
        if self.model is None and isinstance(output, BaseModel):
            cls, data = type(output), output.model_dump()
        elif self.model is None and ctx.output_model is None:
            return Outcome(False, "code_node needs `model: module:Class` for a non-pydantic output")
        else:
            # The named model, or the class of the pydantic object a target returned from its worker
            # (its output crossed as the object's JSON dump).
            spec = self.model or ctx.output_model
            cls = import_object(spec, ctx.suite_dir)  # type: ignore[arg-type]  # one of the two is set (above)
            if not (isinstance(cls, type) and issubclass(cls, BaseModel)):
                raise ValueError(f"{spec} is not a pydantic model class")
            data = output.model_dump() if isinstance(output, BaseModel) else output
            if isinstance(data, str):
                data = {"code": data}
        try:
            cls.model_validate(data)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"]) or "(root)"
            return Outcome(
                False,
                f"not a valid {cls.__name__}: {where}: {first['msg']} "
                f"({exc.error_count()} error{'s' if exc.error_count() != 1 else ''})",
            )
        return Outcome(True, f"valid {cls.__name__}")


# The registry lists these as built-ins (they are not registered by import side effect).
CHECKS = (Syntax, HasMain, CodeNode)
