"""The plan's figures from its run (evalkit/engine/plan_run.py): each request the estimating provider
answered is one call a run pays for, put on its suite's line by kind (target, judge, extraction, both,
confirm_failures), with its input tokens (counted by the API when a key is set and the request is the
one a run sends, else estimated) and its estimated output, priced per call."""

from __future__ import annotations

import json
from typing import Any

from evalkit.engine.plan_provider import Answered, thinking_room
from evalkit.engine.plan_run import PlannedRun
from evalkit.engine.planning import InputCount, Line
from evalkit.llm import PrefixLedger, text_tokens
from evalkit.scoring import EXTRACT_TOOL, asked_ids
from evalkit.suite.model import Suite

KINDS = {None: "target_calls", EXTRACT_TOOL: "extraction_calls", "record_verdicts": "judge_calls",
         "record_verdicts_and_fields": "graded_calls"}
UNKNOWN_PROMPT = 200  # a callable target's prompt beyond its input, when its calls are not known


def price(planned: PlannedRun, suites: list[Suite], chosen: list[str], tokens: InputCount, *,
          repeat: int | None, tiers: dict[str, dict[str, str]]) -> tuple[list[Line], int]:
    """One line per suite, and the most output tokens a judge call may think with."""
    lines = {suite.name: _line(suite, chosen, repeat) for suite in suites}
    usage = {s.name: s.usage for s in planned.report.suites}
    for name, line in lines.items():
        line.free = usage[name].cache_hits if name in usage else 0
        line.cached = planned.cached.get(name, 0)
        loops = planned.loops.get(name)
        line.tool_loops, line.estimated_loops = (loops.made, loops.estimated) if loops else (0, 0)
        line.rendered_runs = planned.rendered.get(name, 0)
        line.unknown_runs = len(planned.unknown.get(name, []))
    prefixes = PrefixLedger()  # prompt-cache prefixes written by the calls counted so far
    confirms = _confirming(planned.answered, suites)
    room = 0
    for a in planned.answered:
        line = lines[a.mark.suite] if a.mark is not None else next(iter(lines.values()))
        kind = "confirm_calls" if id(a) in confirms else KINDS.get(a.tool, "judge_calls")
        setattr(line, kind, getattr(line, kind) + 1)
        request = a.request
        in_tokens = tokens.guess(request) if a.estimated_input else tokens.tokens(request)
        _, read, write = prefixes.split(request.to_api_body(), in_tokens)
        own = a.tool is None and a.mark is not None and a.mark.own_calls
        line.add(request.model, in_tokens, a.output_tokens, batchable=not own, read=read, write=write)
        room = max(room, thinking_room(request) if a.tool is not None else 0)
    for suite in suites:  # runs whose calls are not known: one call each, the usual guess
        line, model = lines[suite.name], tiers[suite.name]["high"]
        for case_input in planned.unknown.get(suite.name, []):
            line.target_calls += 1
            line.add(model, text_tokens(json.dumps(case_input, default=str)) + UNKNOWN_PROMPT, suite.max_tokens // 2,
                     batchable=False)
    return list(lines.values()), room


def _line(suite: Suite, chosen: list[str], repeat: int | None) -> Line:
    line = Line(suite.name)
    for case in suite.select(chosen):
        if not case.skip:
            line.cases += 1
            line.runs += repeat or case.repeats
    return line


def _confirming(answered: list[Answered], suites: list[Suite]) -> set[int]:
    """The judge requests that are confirm_failures' (ids of the Answered): a run's judge requests on the
    same items beyond the judge_repeats its items ask for (the first of them the combined call, if any)."""
    repeats = {(suite.name, it.id): it.judge_repeats for suite in suites for case in suite.cases
               for it in [*case.items, *(i for turn in case.turns for i in turn.items)]}
    runs: dict[tuple[int, tuple[str, ...]], list[Answered]] = {}
    for a in answered:
        if a.tool in ("record_verdicts", "record_verdicts_and_fields") and a.mark is not None:
            runs.setdefault((id(a.mark), tuple(asked_ids(a.request))), []).append(a)
    confirming: set[int] = set()
    for asked in runs.values():
        suite: Any = asked[0].mark.suite if asked[0].mark else ""
        ids = asked_ids(asked[0].request)
        wanted = max((repeats.get((suite, i), 1) for i in ids), default=1)
        confirming.update(id(a) for a in asked[wanted:])
    return confirming
