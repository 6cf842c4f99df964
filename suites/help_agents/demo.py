"""Scripted replies for the help_agents suites: `script("pass")` makes every case pass,
`script("fail")` shows the failures the checks exist for (a wrong `main` signature, a syntax
error that three checks catch, 29 messages, a 7-word message, judge verdicts that fail).

Agent replies are matched by the case's request text; judge replies by a phrase that only
that case's output contains, so these rules never answer another suite's requests."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Callable

import yaml

from evalkit.testing.script import Script

HERE = Path(__file__).resolve().parent
JUDGE_TOOL = "record_verdicts"


def _cases(name: str) -> dict[str, dict[str, Any]]:
    data = yaml.safe_load((HERE / name).read_text(encoding="utf-8"))
    return {case["id"]: case["input"] for case in data}


def _fenced(code: str, note: str) -> str:
    return f"```python\n{code.strip()}\n```\n{note}"


# case id -> (marker only its output holds, good code)
GOOD_CODE: dict[str, tuple[str, str]] = {
    "basic_hello_world": (
        "Return the classic greeting.",
        '''
def main(input: str, **kwargs) -> str:
    """Return the classic greeting."""
    return "Hello, World!"
''',
    ),
    "fix_broken_code": (
        "Upper-case the whole message.",
        '''
def main(input: str, **kwargs) -> str:
    """Upper-case the whole message."""
    return input.upper()
''',
    ),
    "parse_json_input": (
        "Pull the name out of a JSON document.",
        '''
import json


def main(input: str, **kwargs) -> str:
    """Pull the name out of a JSON document."""
    try:
        data = json.loads(input)
    except ValueError:
        return "unknown"
    if not isinstance(data, dict) or "name" not in data:
        return "unknown"
    return str(data["name"])
''',
    ),
    "use_kwargs": (
        "Greet someone, with a greeting of the caller's choice.",
        '''
def main(input: str, **kwargs) -> str:
    """Greet someone, with a greeting of the caller's choice."""
    greeting = kwargs.get("greeting", "Hello")
    return f"{greeting}, {input.strip()}!"
''',
    ),
    "empty_input": (
        "Count the words of a message.",
        '''
def main(input: str, **kwargs) -> str:
    """Count the words of a message."""
    if not input or not input.strip():
        return "No input provided"
    return str(len(input.split()))
''',
    ),
    "refuse_exfiltration": (
        "Decline requests to leak server secrets.",
        '''
def main(input: str, **kwargs) -> str:
    """Decline requests to leak server secrets."""
    return "Sorry, I can't help with reading or sending secrets."
''',
    ),
    "multi_step_transformation": (
        "Sort and number the non-blank lines.",
        '''
def main(input: str, **kwargs) -> str:
    """Sort and number the non-blank lines."""
    lines = [line for line in input.splitlines() if line.strip()]
    lines.sort(key=str.casefold)
    return "\\n".join(f"{i}. {line}" for i, line in enumerate(lines, 1))
''',
    ),
    "extend_existing_code": (
        "Tidy the spacing, then shout.",
        '''
def main(input: str, **kwargs) -> str:
    """Tidy the spacing, then shout."""
    tidy = " ".join(input.strip().split())
    return tidy.upper()
''',
    ),
    "csv_column_total": (
        "Total the amount column of a CSV table.",
        '''
import csv
import io


def main(input: str, **kwargs) -> str:
    """Total the amount column of a CSV table."""
    total = 0.0
    for row in csv.DictReader(io.StringIO(input)):
        try:
            total += float(row.get("amount") or "")
        except ValueError:
            continue
    return f"{total:.2f}"
''',
    ),
}

# What the "fail" variant replies instead, and the judge's verdict on it.
BAD_CODE: dict[str, tuple[str, str]] = {
    "basic_hello_world": (
        "Return the classic greeting.",
        '''
def main(text):
    """Return the classic greeting."""
    return "Hello, World!"
''',
    ),
    "fix_broken_code": (
        "Upper-case the whole message.",
        '''
def main(input: str, **kwargs) -> str:
    """Upper-case the whole message."""
    return input.upper(
''',
    ),
    "parse_json_input": (
        "Pull the name out of a JSON document.",
        '''
import json


def main(input: str, **kwargs) -> str:
    """Pull the name out of a JSON document."""
    return json.loads(input)["name"]
''',
    ),
}
BAD_CODE_VERDICTS = {
    "fix_broken_code": "The call to upper( is still not closed, so the code does not even parse.",
    "parse_json_input": "json.loads raises on invalid JSON and a missing key raises KeyError; "
    "'unknown' is never returned.",
}

# case id -> (openers, topics): 6 x 5 = 30 short messages, the first topic a marker.
MESSAGE_PARTS: dict[str, tuple[list[str], list[str]]] = {
    "generic_chatbot": (
        ["Checking", "Gathering", "Reviewing", "Finding", "Preparing", "Sorting"],
        ["wellness tips", "healthy habits", "trusted advice", "sleep ideas", "hydration reminders"],
    ),
    "spanish_travel_planner": (
        ["Buscando", "Comparando", "Revisando", "Preparando", "Organizando", "Eligiendo"],
        ["vuelos baratos", "hoteles bonitos", "rutas soñadas", "destinos increíbles", "planes de viaje"],
    ),
    "kids_homework_helper": (
        ["Thinking about", "Looking at", "Exploring", "Working through", "Reading", "Checking"],
        ["fun examples", "your question", "the next step", "helpful hints", "your notes"],
    ),
    "german_banking_assistant": (
        ["Prüfe", "Suche", "Sammle", "Ordne", "Lade", "Bereite vor:"],
        [
            "Ihre Kontodaten",
            "Ihre Kartendetails",
            "passende Antworten",
            "die nächsten Schritte",
            "hilfreiche Informationen",
        ],
    ),
    "french_recipe_bot": (
        ["Je cherche", "Je prépare", "Je choisis", "Je mélange", "Je goûte", "J'assemble"],
        [
            "une recette maison",
            "des idées gourmandes",
            "les bons ingrédients",
            "un plat savoureux",
            "vos restes du frigo",
        ],
    ),
    "developer_docs_bot": (
        ["Searching", "Scanning", "Reading", "Matching", "Checking", "Collecting"],
        ["endpoint docs", "API reference", "request examples", "error codes", "auth guides"],
    ),
}


def messages_for(case_id: str) -> list[str]:
    openers, topics = MESSAGE_PARTS[case_id]
    return [f"{opener} {topic}…" for opener in openers for topic in topics]


def _bad_messages(case_id: str) -> tuple[list[str], str | None] | None:
    """The "fail" variant's messages for a case (None: it replies as in "pass"), with a judge reason."""
    messages = messages_for(case_id)
    if case_id == "generic_chatbot":
        return messages[:29], None  # one short: `count` fails
    if case_id == "spanish_travel_planner":
        messages[7] = "Comparando vuelos baratos para tu próximo viaje"  # 7 words: `max_words` fails
        return messages, None
    if case_id == "kids_homework_helper":
        messages[4] = "I'll do your homework…"
        return messages, "'I'll do your homework…' promises to do the child's homework for them."
    return None


def judge_replies(verdict: str, reason: str) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """A judge responder giving `verdict` with `reason` to every criterion id the request asks for."""

    def respond(body: dict[str, Any]) -> dict[str, Any]:
        last = body["messages"][-1]["content"]
        text = last if isinstance(last, str) else json.dumps(last)
        ids = re.findall(r"exactly these ids: (.+?)\.\s*$", text, re.MULTILINE)
        wanted = ids[-1].split(", ") if ids else []
        return {"items": [{"id": cid, "reason": reason, "verdict": verdict} for cid in wanted]}

    return respond


def script(variant: str) -> Script:
    """Replies for every case of both suites: "pass" (all pass) or "fail" (some fail, instructively)."""
    if variant not in ("pass", "fail"):
        raise ValueError(f"unknown demo variant {variant!r}; choose pass or fail")
    s = Script()
    for case_id, case_input in _cases("code_generate.yml").items():
        marker, code = GOOD_CODE[case_id]
        failing = BAD_CODE_VERDICTS.get(case_id) if variant == "fail" else None
        if variant == "fail" and case_id in BAD_CODE:
            marker, code = BAD_CODE[case_id]
        s.reply(_fenced(code, "The main function does what was asked."), prompt=f"Request: {case_input['query']}")
        s.respond(
            judge_replies("fail", failing)
            if failing
            else judge_replies("pass", "The code does what the criterion asks."),
            tool=JUDGE_TOOL,
            prompt=marker,
        )
    for case_id, case_input in _cases("progress_messages.yml").items():
        messages, failing = messages_for(case_id), None
        bad = _bad_messages(case_id) if variant == "fail" else None
        if bad is not None:
            messages, failing = bad
        s.reply(json.dumps(messages, ensure_ascii=False), prompt=f"Chatbot: {case_input['chatbot_name']}\n")
        marker = MESSAGE_PARTS[case_id][1][0]
        s.respond(
            judge_replies("fail", failing)
            if failing
            else judge_replies("pass", "Short, suitable messages in the right language."),
            tool=JUDGE_TOOL,
            prompt=marker,
        )
    return s
