"""A `Script` read from a file (YAML or JSON), for the fake's command line:
`python -m evalkit.testing.fake_anthropic --script script.yml`.

    replies:                      # the first rule that matches a target's request answers it
      - tool_use: [{name: find_order, input: {order_id: A-1001}}]
        prompt: A-1001            # only requests whose text contains this
        turn: 1                   # the model's 1st answer (1 + the assistant messages the request holds)
      - reply: "Refund R-77 is on its way."
        prompt: A-1001
        turn: 2
    verdict: pass                 # what every judged criterion gets (default pass)
    verdicts: {says_so: fail}     # a criterion id's own verdict

A rule also takes `model` (only that model's requests) and `times` (it answers that many, then stands
aside); a `tool_use` rule may carry `text` (said before the calls). The judge's and the extraction's
requests are answered as the plain command answers them (evalkit.testing.offline_server), with these
verdicts. Every mistake in the file is a `ScriptFileError` naming the file and where in it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from evalkit.testing.offline_server import OFFLINE_REASON, tool_input
from evalkit.testing.script import Script, requested_schema

VERDICTS = ("pass", "fail")
_TOP = ("replies", "verdict", "verdicts")
_MATCH = ("prompt", "turn", "model", "times")
_KINDS = ("reply", "tool_use")


class ScriptFileError(ValueError):
    """A script file that cannot be played: the message is one line, naming the file and the place."""


def load_script(path: Path) -> Script:
    """The Script a file describes (see the module's docstring)."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ScriptFileError(f"{path}: cannot read it ({getattr(exc, 'strerror', None) or exc})") from None
    data = _parse(path, text)
    return script_from(data, str(path))


def _parse(path: Path, text: str) -> Any:
    if path.suffix.lower() == ".json":
        try:
            return json.loads(text)
        except ValueError as exc:
            raise ScriptFileError(f"{path}: not valid JSON ({exc})") from None
    import yaml

    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or "not valid YAML"
        raise ScriptFileError(f"{path}: not valid YAML{where} ({problem})") from None


def script_from(data: Any, name: str = "script") -> Script:
    """The Script of already-parsed data (a mapping as the module's docstring shows)."""
    if not isinstance(data, dict):
        raise ScriptFileError(f"{name}: expected a mapping with {', '.join(_TOP)}, got {type(data).__name__}")
    unknown = sorted(set(data) - set(_TOP))
    if unknown:
        raise ScriptFileError(f"{name}: unknown key {unknown[0]!r} (choose from {', '.join(_TOP)})")
    verdict = data.get("verdict", "pass")
    if verdict not in VERDICTS:
        raise ScriptFileError(f"{name}: verdict: {verdict!r} is not one of {', '.join(VERDICTS)}")
    overrides = data.get("verdicts") or {}
    if not isinstance(overrides, dict) or any(v not in VERDICTS for v in overrides.values()):
        raise ScriptFileError(f"{name}: verdicts: expected a mapping of criterion ids to pass or fail")
    replies = data.get("replies") or []
    if not isinstance(replies, list):
        raise ScriptFileError(f"{name}: replies: expected a list of rules")
    script = Script()
    script.respond(_judge(verdict, {str(k): str(v) for k, v in overrides.items()}), tool="*")
    for i, rule in enumerate(replies):
        _add_rule(script, rule, f"{name}: replies[{i}]")
    return script


def _add_rule(script: Script, rule: Any, where: str) -> None:
    if not isinstance(rule, dict):
        raise ScriptFileError(f"{where}: expected a mapping with reply or tool_use, got {type(rule).__name__}")
    kinds = [k for k in _KINDS if k in rule]
    if len(kinds) != 1:
        raise ScriptFileError(f"{where}: give exactly one of reply, tool_use")
    allowed = (*_KINDS, *_MATCH, *(("text",) if kinds == ["tool_use"] else ()))
    unknown = sorted(set(rule) - set(allowed))
    if unknown:
        raise ScriptFileError(f"{where}: unknown key {unknown[0]!r} (choose from {', '.join(allowed)})")
    match = _match(rule, where)
    if kinds == ["reply"]:
        if not isinstance(rule["reply"], str):
            raise ScriptFileError(f"{where}: reply: expected text")
        script.reply(rule["reply"], **match)
        return
    calls = rule["tool_use"]
    if not isinstance(calls, list) or not calls:
        raise ScriptFileError(f"{where}: tool_use: expected a list of {{name, input}} calls")
    parsed: list[tuple[str, dict[str, Any]]] = []
    for j, call in enumerate(calls):
        if (
            not isinstance(call, dict)
            or set(call) - {"name", "input"}
            or not isinstance(call.get("name"), str)
            or not isinstance(call.get("input", {}), dict)
        ):
            raise ScriptFileError(f"{where}: tool_use[{j}]: expected {{name: <tool>, input: {{...}}}}")
        parsed.append((call["name"], dict(call.get("input") or {})))
    text = rule.get("text", "")
    if not isinstance(text, str):
        raise ScriptFileError(f"{where}: text: expected text")
    script.tool_use(parsed, text=text, **match)


def _match(rule: dict[str, Any], where: str) -> dict[str, Any]:
    match: dict[str, Any] = {}
    for key in ("turn", "times"):
        if key in rule:
            value = rule[key]
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ScriptFileError(f"{where}: {key}: expected a whole number from 1, got {value!r}")
            match[key] = value
    for key in ("prompt", "model"):
        if key in rule:
            if not isinstance(rule[key], str) or not rule[key]:
                raise ScriptFileError(f"{where}: {key}: expected text")
            match[key] = rule[key]
    return match


def _judge(verdict: str, overrides: dict[str, str]) -> Any:
    """Answers every request that forces a tool (the judge's, the extraction's) from its schema."""

    def answer(body: dict[str, Any]) -> dict[str, Any]:
        value: dict[str, Any] = tool_input(requested_schema(body), verdict)
        for items in value.values():
            for item in items if isinstance(items, list) else []:
                if isinstance(item, dict) and item.get("id") in overrides:
                    item["verdict"] = overrides[item["id"]]
                    item["reason"] = OFFLINE_REASON.replace("--verdict", "the script's verdicts")
        return value

    return answer
