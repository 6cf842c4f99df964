"""What the loopback fake answers when run as a command (`evalkit.testing.fake_anthropic`'s `main`),
for a team's own CI without a key:

    python -m evalkit.testing.fake_anthropic --port 8765 --reply "Paris." --verdict pass &
    ANTHROPIC_API_KEY=offline ANTHROPIC_BASE_URL=http://127.0.0.1:8765 evalkit run

Every request that forces no tool (a target's) gets the `--reply` text (`--reply-file`: the text of
a file). A request that forces a tool (the judge's, extraction's) gets an input built from the
tool's own JSON Schema (a structured-output request: its output format's schema): one entry per criterion id with the `--verdict` and a reason saying the
verdict is the fake's, `null` for every field that may be null. It tells a suite's wiring from
its failures, never whether answers are good: the verdicts are the ones you chose.
"""

from __future__ import annotations

from typing import Any

from evalkit.testing.script import Script, requested_schema

OFFLINE_REASON = "offline fake: verdict set by --verdict, not judged"


def tool_input(schema: dict[str, Any], verdict: str) -> Any:
    """A value valid under `schema` (the subset evalkit's tools use): objects get every property,
    an array of objects whose `id` is an enum gets one entry per id, strings with an enum prefer
    `verdict`, and a type that allows null gets null."""
    kinds = schema.get("type")
    kinds = [kinds] if isinstance(kinds, str) else list(kinds or [])
    if "enum" in schema:
        choices = list(schema["enum"])
        return verdict if verdict in choices else choices[0] if choices else None
    if "object" in kinds or "properties" in schema:
        return {name: tool_input(sub, verdict) for name, sub in (schema.get("properties") or {}).items()}
    if "null" in kinds:
        return None
    if "array" in kinds:
        items = schema.get("items") or {}
        ids = ((items.get("properties") or {}).get("id") or {}).get("enum")
        if ids:
            return [{**tool_input(items, verdict), "id": one} for one in ids]
        return []
    if "string" in kinds:
        return OFFLINE_REASON
    if "boolean" in kinds:
        return False
    if "integer" in kinds or "number" in kinds:
        return 0
    return None


def offline_script(reply: str, verdict: str) -> Script:
    """The rules above: tool requests first (a target's rule must never answer the judge)."""

    def answer_tool(body: dict[str, Any]) -> dict[str, Any]:
        value: dict[str, Any] = tool_input(requested_schema(body), verdict)
        return value

    return Script().respond(answer_tool, tool="*").reply(reply)
