"""What a run checks before calling any model, shared by `validate`, `run` and the Action (through
the engine): targets import and take (input[, client]); every prompt renders with every case's
input; `when:` conditions evaluate; field checks fit their fields' types; `--case` selects
something. Every problem is a `Problem`, raised together in one SuiteError (exit 2)."""

from __future__ import annotations

import inspect
from typing import Any

from evalkit._runtime.import_names import import_object
from evalkit._runtime.user_calls import USER_EXITS, describe_exit, takes_messages
from evalkit.checks.fields import FieldCheck
from evalkit.errors import Problem, SuiteError, TargetError, UsageError
from evalkit.run.conversation import render_turn, target_prompt
from evalkit.suite.conditions import condition_holds
from evalkit.suite.model import Case, Suite, Target, Tool, describe_selection
from evalkit.suite.prompts import render_prompt
from evalkit.suite.spec import FieldSpec


def preflight(
    suites: list[Suite], *, target: str | None = None, cases: list[str] | None = None, need_target: bool = False
) -> list[Suite]:
    """`suites` if they are ready to run; else SuiteError listing every configuration problem, or
    UsageError if the `cases` globs select no case at all. `need_target`: refuse a suite that names
    no target when none is given (`run` and `validate` both do; a library caller may not)."""
    globs = list(cases or [])
    if globs and not any(s.select(globs) for s in suites):
        known = ", ".join(c.id for s in suites for c in s.cases[:5])
        raise UsageError(f"{describe_selection(globs)} matches no case (cases include: {known})")
    errors = []
    for suite in suites:
        problems = suite_problems(suite, target=target, cases=suite.select(globs))
        if need_target and target is None and suite.target is None:
            problems.insert(
                0, Problem("this suite names no target; pass --target module:function", file=str(suite.path), line=None)
            )
        if problems:
            errors.append(SuiteError(str(suite.path), problems))
    if errors:
        raise SuiteError.merge(errors, f"{len(errors)} suite files")
    return suites


def suite_problems(suite: Suite, *, target: str | None, cases: list[Case]) -> list[Problem]:
    file = str(suite.path)
    problems: list[Problem] = []
    chosen = Target(function=target) if target else suite.target
    runnable = [c for c in cases if not c.skip]
    talks = next((c for c in runnable if c.turns), None)  # a conversation case: the target gets `messages=`
    if chosen is not None and chosen.function:
        message = _callable_problem(chosen.function, suite, conversation=talks is not None)
        if message:
            problems.append(
                Problem(message, file=file, line=None)
                if talks is None or "messages" not in message
                else Problem(message, file=_case_file(talks, file), line=talks.line, case_id=talks.id)
            )
    problems += conversation_problems(chosen, runnable, file)
    if chosen is not None and not target:
        problems += [
            Problem(message, file=file, line=None)
            for tool in chosen.tools
            if tool.function
            for message in [_tool_problem(tool, suite)]
            if message
        ]
    if chosen is not None and chosen.template is not None:
        for case in runnable:
            if case.turns:  # its turns say whether they use the template (`prompt`): checked with them
                continue
            try:
                render_prompt(chosen.template, case.input)
            except Exception as exc:  # TargetError for undefined names; a sandbox refusal; any other
                problems.append(Problem(str(exc), file=_case_file(case, file), line=case.line, case_id=case.id))
    for case in runnable:
        for item in case.items:
            if item.when is not None:
                try:
                    condition_holds(item.when, input=case.input, facts=_AnyFacts())  # type: ignore[arg-type]  # a stand-in that answers any fact, to check the expression alone
                except ValueError as exc:
                    problems.append(
                        Problem(
                            f"rubric item {item.id}: {exc}",
                            file=_case_file(case, file),
                            line=item.line or case.line,
                            case_id=case.id,
                        )
                    )
            if isinstance(item.check, FieldCheck) and item.check.field in suite.fields:
                message = field_check_problem(item.check, suite.fields[item.check.field])
                if message:
                    problems.append(
                        Problem(message, file=_case_file(case, file), line=item.line or case.line, case_id=case.id)
                    )
    return _unique(problems)


def conversation_problems(target: Target | None, cases: list[Case], file: str) -> list[Problem]:
    """Each user turn's template rendered as a run renders it, a stand-in for each reply before it, and
    measured against the limits as a run measures it (`run`, `validate` and `plan` refuse the same turns)."""
    problems = []
    for case in cases:
        if not case.turns:
            continue
        prompt = target_prompt(target, case.input)
        outputs: list[str] = []
        grown = 0  # the conversation's characters so far
        for turn in case.turns:
            if turn.role == "assistant":
                outputs.append(turn.text)
                grown += len(turn.text)
                continue
            try:
                grown += len(render_turn(case, turn, prompt, outputs, before=grown))
            except TargetError as exc:
                problems.append(Problem(str(exc), file=_case_file(case, file), line=turn.line, case_id=case.id))
            if not turn.scripted:
                outputs.append(f"(the reply to turn {turn.number})")
                grown += len(outputs[-1])
    return problems


def plan_problems(suites: list[Suite], *, target: str | None = None, cases: list[str] | None = None) -> None:
    """SuiteError for what `plan` must refuse as a run would without importing user code: conversation
    turns that do not render or are over the limits (the same `conversation_problems` a run's preflight asks)."""
    errors = []
    for suite in suites:
        chosen = Target(function=target) if target else suite.target
        problems = conversation_problems(
            chosen, [c for c in suite.select(list(cases or [])) if not c.skip], str(suite.path)
        )
        if problems:
            errors.append(SuiteError(str(suite.path), _unique(problems)))
    if errors:
        raise SuiteError.merge(errors, f"{len(errors)} suite files")


def _callable_problem(function: str, suite: Suite, conversation: bool = False) -> str | None:
    try:
        fn = import_object(function, suite.dir)
    except ValueError as exc:
        return f"target {function}: {exc}"
    except USER_EXITS as exc:  # sys.exit() at import time must not end evalkit with the module's code
        return f"target {function}: importing it {describe_exit(exc).removeprefix('target ')}"
    except Exception as exc:  # importing user code runs it: its own error is this suite's problem
        return f"target {function}: importing it raised {type(exc).__name__}: {exc}"
    if not callable(fn):
        return f"target {function} is a {type(fn).__name__}, not a function"
    if conversation and not takes_messages(fn):
        return (
            f"target {function} takes no `messages` parameter, which a conversation case needs (the "
            f"conversation so far, passed as `messages=`)"
        )
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return None  # a builtin without a signature: it will tell at run time
    positional = [
        p
        for p in sig.parameters.values()
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.name != "messages"
    ]
    takes_client = len(positional) >= 2 or any(p in sig.parameters for p in ("llm", "client"))
    try:
        sig.bind(*([None, None] if takes_client else [None]), **({"messages": []} if conversation else {}))
    except TypeError:
        return (
            f"target {function}{sig} cannot be called as {function.split(':')[-1]}(input) or "
            f"(input, client): {'it needs more arguments' if len(positional) > 2 else 'wrong parameters'}"
        )
    return None


def _tool_problem(tool: Tool, suite: Suite) -> str | None:
    """A tool's `function:` that cannot answer it: not importable, not callable, or unable to take the
    arguments its input_schema declares (as keywords, the way the tool loop calls it)."""
    assert tool.function is not None
    try:
        fn = import_object(tool.function, suite.dir)
    except ValueError as exc:
        return f"tool {tool.name}: function {tool.function}: {exc}"
    except USER_EXITS as exc:
        return f"tool {tool.name}: importing {tool.function} {describe_exit(exc).removeprefix('target ')}"
    except Exception as exc:  # importing user code runs it: its own error is this suite's problem
        return f"tool {tool.name}: importing {tool.function} raised {type(exc).__name__}: {exc}"
    if not callable(fn):
        return f"tool {tool.name}: {tool.function} is a {type(fn).__name__}, not a function"
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return None  # a builtin without a signature: a wrong call is told to the model at run time
    properties = list((tool.input_schema.get("properties") or {}))
    required = set(tool.input_schema.get("required") or [])
    try:
        sig.bind(**{name: None for name in properties if name in required})
    except TypeError as exc:
        return (
            f"tool {tool.name}: {tool.function}{sig} cannot be called with the arguments its input_schema "
            f"requires ({', '.join(sorted(required)) or 'none'}): {exc}"
        )
    takes_any = any(p.kind == p.VAR_KEYWORD for p in sig.parameters.values())
    unknown = [name for name in properties if name not in sig.parameters and not takes_any]
    if unknown:
        return f"tool {tool.name}: {tool.function}{sig} takes no parameter {', '.join(unknown)} that its input_schema declares"
    return None


def field_check_problem(check: FieldCheck, spec: FieldSpec) -> str | None:
    """Why a field check can never pass on a field of this type (`equals: thirty` on an integer)."""

    def fits(value: Any) -> bool:
        if spec.type in ("number", "integer"):
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                return False
            return spec.type == "number" or float(value).is_integer()
        if spec.type == "boolean":
            return isinstance(value, bool)
        if spec.type == "enum":
            return value in (spec.values or [])
        return isinstance(value, str)

    expected = {
        "number": "a number",
        "integer": "an integer",
        "boolean": "true or false",
        "enum": f"one of {spec.values}",
        "string": "text",
    }[spec.type]
    for name in ("equals", "one_of"):
        value = getattr(check, name)
        for v in (value if name == "one_of" else [value]) if value is not None else []:
            if not fits(v):
                return (
                    f"field check on {check.field}: {name} {v!r} can never match field type "
                    f"{spec.type} (expected {expected})"
                )
    if (check.min is not None or check.max is not None) and spec.type not in ("number", "integer"):
        return f"field check on {check.field}: min/max on field type {spec.type} (only for number and integer)"
    return None


class _AnyFacts:
    """Facts are only known once a target ran: at preflight any fact reads as a value that
    compares, indexes and tests without error, so only the input's names are checked."""

    def __getattr__(self, name: str) -> "_AnyFacts":
        if name.startswith("__"):
            raise AttributeError(name)
        return self

    def __getitem__(self, key: Any) -> "_AnyFacts":
        return self

    def __call__(self, *args: Any, **kwargs: Any) -> "_AnyFacts":
        return self

    def __bool__(self) -> bool:
        return False

    def __lt__(self, other: Any) -> bool:
        return False

    __le__ = __gt__ = __ge__ = __lt__

    def __eq__(self, other: Any) -> bool:
        return False

    def __hash__(self) -> int:
        return 0

    def __iter__(self) -> Any:
        return iter(())

    def __len__(self) -> int:
        return 0

    def __contains__(self, item: Any) -> bool:
        return False

    def __add__(self, other: Any) -> "_AnyFacts":
        return self

    __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = __truediv__ = __rtruediv__ = __add__


def _case_file(case: Case, default: str) -> str:
    return str(case.file) if case.file else default


def _unique(problems: list[Problem]) -> list[Problem]:
    seen: list[Problem] = []
    for p in problems:
        if p not in seen:
            seen.append(p)
    return seen
