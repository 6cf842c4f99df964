"""`evalkit plan`: the calls a run would make, found by running the runner against a provider that
never calls a model (evalkit/engine/plan_run.py), priced and presented here: one line per suite, the
other profiles beside the planned one, and what is estimated.

A request whose reply is in the response cache is free, as in a run; so is one identical to another
(the client shares it). Every other request is a call the run pays for, answered with an estimate: a
text of half the request's max_tokens, a judge that fails every item (so confirm_failures' calls are
the upper bound: every judged item failing on every run), a tool loop of TOOL_TURNS_GUESS model
turns. A target whose code fails on an estimated reply is scored as if it had returned one."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from evalkit.engine.plan_provider import Answered, thinking_room
from evalkit.engine.plan_run import TOOL_TURNS_GUESS as TOOL_TURNS_GUESS  # the tests and the render name it here
from evalkit.engine.plan_run import PlannedRun, plan_run
from evalkit.errors import one_line
from evalkit.llm import (
    CapabilityTable,
    ModelRequest,
    PrefixLedger,
    ResponseCache,
    cost_usd,
    request_tokens,
    text_tokens,
)
from evalkit.results import Report
from evalkit.scoring import EXTRACT_TOOL, asked_ids
from evalkit.suite.model import TAG_PREFIX, Suite, describe_selection

CALIBRATION_REPEATS = 3  # `evalkit calibrate`'s default --repeats


@dataclass
class Line:
    suite: str
    cases: int = 0
    runs: int = 0
    target_calls: int = 0
    judge_calls: int = 0
    extraction_calls: int = 0
    graded_calls: int = 0  # the judge and the extraction in one call
    confirm_calls: int = 0  # confirm_failures: at most, as if every judged item failed on every run
    free: int = 0  # requests the run will not pay for: identical to another, or in the response cache
    cached: int = 0  # of them: distinct requests found in the response cache
    unknown_runs: int = 0  # runs of a callable target whose calls are not known (no previous results)
    rendered_runs: int = 0  # runs of a callable target whose requests were made in the plan's run
    tool_loops: int = 0  # a prompt target's tool loops (one per run, one per answered turn of a conversation)
    estimated_loops: int = 0  # of them: cut at a reply not cached, their remaining turns estimated
    tokens: dict[str, list[int]] = field(default_factory=dict)  # model -> [input, output]
    cache_read: int = 0  # of the input tokens: read from the prompt cache, written to it
    cache_write: int = 0
    cost: float = 0.0  # interactive (Messages API) dollars
    batch_cost: float = 0.0  # the same run with `--batch` (a Python target's own calls stay interactive)
    unpriced: set[str] = field(default_factory=set)
    calibration_calls: int = 0  # `evalkit calibrate` on the gold outputs (not part of a run)

    @property
    def calls(self) -> int:
        return self.target_calls + self.judge_calls + self.extraction_calls + self.graded_calls + self.confirm_calls

    def add(
        self,
        model: str,
        input_tokens: int,
        output_tokens: int,
        calls: int = 1,
        *,
        batchable: bool = True,
        read: int = 0,
        write: int = 0,
    ) -> None:
        """`calls` calls of `input_tokens` each, of which `read` come from the prompt cache and `write`
        are written to it."""
        t = self.tokens.setdefault(model, [0, 0])
        t[0] += input_tokens * calls
        t[1] += output_tokens * calls
        self.cache_read += read * calls
        self.cache_write += write * calls
        # Priced per call: a long-context tier depends on one request's size, not on a total.
        # `run --batch` batches prompt-target, judge and extraction calls, not a Python target's own.
        fresh = input_tokens - read - write
        one = cost_usd(model, fresh, output_tokens, cache_read_tokens=read, cache_write_tokens=write)
        one_batch = cost_usd(
            model, fresh, output_tokens, cache_read_tokens=read, cache_write_tokens=write, batch=batchable
        )
        if one is None or one_batch is None:
            self.unpriced.add(model)
        else:
            self.cost += one * calls
            self.batch_cost += one_batch * calls


@dataclass
class Profile:
    """Another selection's cost beside the planned one (e.g. every case, the nightly run)."""

    name: str
    cost: float
    batch_cost: float
    calls: int


@dataclass
class Estimate:
    lines: list[Line]
    measured_in: str | None = None  # the results file callable targets' calls were measured in
    tokens: "InputCount | None" = None  # how the input tokens were had: counted by the API or estimated
    profiles: list[Profile] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)  # said before money is spent (Legacy models, thinking)
    thinking_room: int = 0  # output tokens a judge call may think with, counted in full (0: none thinks)

    def cost(self) -> tuple[float, list[str]]:
        """Interactive dollars of the priced calls, and the models without a known price."""
        return sum(ln.cost for ln in self.lines), sorted(set().union(*(ln.unpriced for ln in self.lines)))

    def batch_cost(self) -> float:
        return sum(ln.batch_cost for ln in self.lines)

    def calls(self) -> int:
        return sum(ln.calls for ln in self.lines)

    def render(self) -> str:
        rows = [
            "suite                     cases  runs  target  judge  extract  both  free  est. tokens in/out  "
            "interactive  batch"
        ]
        for ln in self.lines:
            i = sum(t[0] for t in ln.tokens.values())
            o = sum(t[1] for t in ln.tokens.values())
            target = f"{ln.target_calls}+?" if ln.unknown_runs else str(ln.target_calls)
            rows.append(
                f"{ln.suite[:25]:25} {ln.cases:5} {ln.runs:5} {target:>7} {ln.judge_calls:6} "
                f"{ln.extraction_calls:8} {ln.graded_calls:5} {ln.free:5}  {f'{i:,}/{o:,}':18}  {_dollars(ln.cost):>11}  "
                f"{_dollars(ln.batch_cost)}"
            )
        total, unpriced = self.cost()
        unknown = sum(ln.unknown_runs for ln in self.lines)
        free = sum(ln.free for ln in self.lines)
        rows.append(
            f"total: {self.calls()}{' + the callable targets’ own' if unknown else ''} model calls "
            f"({free} more requests are identical to another or cached: free), about ${total:.2f} "
            f"interactive, ${self.batch_cost():.2f} with --batch (Message Batches prices; a Python "
            f"target's own calls stay at full price)"
        )
        if unknown:
            rows.append(
                f"target calls: unknown for {unknown} runs of callable targets (their code decides; "
                f"the dollars assume one call per run) — `--results` a previous run's results to "
                f"count them as measured"
            )
        elif self.measured_in:
            rows.append(f"callable targets' calls: as measured per run in {self.measured_in}")
        rendered = sum(ln.rendered_runs for ln in self.lines)
        if rendered:
            rows.append(
                f"callable targets: {rendered} runs were run against a stand-in for the model (no call made): "
                f"their requests are counted as rendered"
            )
        loops, estimated = sum(ln.tool_loops for ln in self.lines), sum(ln.estimated_loops for ln in self.lines)
        if estimated:
            rows.append(
                f"tool loops: {estimated} of {loops} estimated: followed from the response cache up to the "
                f"first reply it lacks, then counted as taking as many model turns as this case's cached "
                f"runs took (else {TOOL_TURNS_GUESS}; at most the target's max_steps)"
            )
        elif loops:
            rows.append(
                f"tool loops: all {loops} exact: every reply is in the response cache, so each request "
                f"and the runs' trajectories are known"
            )
        if self.thinking_room:
            rows.append(
                f"thinking: billed as output tokens; each judge call is counted with the whole room its "
                f"model may think in ({self.thinking_room:,} tokens), a target's within its max_tokens"
            )
        rows += [f"warning: {w}" for w in self.warnings]
        for p in self.profiles:
            rows.append(
                f"{p.name}: {p.calls} model calls, about ${p.cost:.2f} interactive, ${p.batch_cost:.2f} with --batch"
            )
        for ln in self.lines:
            if ln.confirm_calls:
                rows.append(
                    f"{ln.suite}: confirm_failures: up to {ln.confirm_calls} more judge calls, counted above "
                    f"as if every judged item failed on every run (they are made only for items that fail)"
                )
            if ln.calibration_calls:
                rows.append(
                    f"{ln.suite}: `evalkit calibrate` makes {ln.calibration_calls} judge and extraction "
                    f"calls on its gold outputs (×{CALIBRATION_REPEATS}; not part of a run)"
                )
        read, write = sum(ln.cache_read for ln in self.lines), sum(ln.cache_write for ln in self.lines)
        if read or write:
            rows.append(
                f"prompt cache: of the input tokens, about {read:,} read from the cache and {write:,} written "
                f"to it (priced at the model's cache rates; a prefix under the model's minimum is not cached)"
            )
        if any(ln.graded_calls for ln in self.lines):
            rows.append("both: the judge and the extraction of one output in one call")
        if unpriced:
            rows.append(f"no price known for: {', '.join(unpriced)} (its calls are left out of the dollars)")
        rows.append(self.tokens.describe() if self.tokens is not None else _ESTIMATED)  # exact or estimated: which
        rows.append(
            "Token figures are estimates; judge and extraction calls whose target output is not known "
            "yet are counted as new (a real run may share or find some in the cache)."
        )
        return "\n".join(rows)


_ESTIMATED = (
    "input tokens: estimated (4 characters a token of the request); with ANTHROPIC_API_KEY set, "
    "`evalkit plan` counts them with the API's token counting endpoint"
)


@dataclass
class InputCount:
    """Input tokens counted exactly by the API's token counting endpoint (a key is set), memoised by request."""

    count: Callable[[ModelRequest], int] | None
    known: dict[str, int] = field(default_factory=dict)
    estimated: set[str] = field(default_factory=set)  # requests of the plan whose input was estimated
    failed: str | None = None  # why counting stopped (then every request is estimated)

    def __post_init__(self) -> None:
        self.counting = self.count is not None  # a key was set: the plan asked the endpoint

    def tokens(self, request: ModelRequest) -> int:
        """Counted when a counter is given and answers, else estimated."""
        key = json.dumps(request.to_api_body(), sort_keys=True)
        if key in self.known:
            return self.known[key]
        if self.count is not None:
            try:
                self.known[key] = self.count(request)
                return self.known[key]
            except Exception as exc:  # noqa: BLE001 - whatever stops counting, the plan goes on with estimates
                self.count, self.failed = None, one_line(exc)
        return self.guess(request, key)

    def guess(self, request: ModelRequest, key: str | None = None) -> int:
        """Estimated: a request not sent as planned (it holds a stand-in for an output not known yet)."""
        self.estimated.add(key or json.dumps(request.to_api_body(), sort_keys=True))
        return request_tokens(request)

    def describe(self) -> str:
        if not self.counting:
            return _ESTIMATED
        if self.failed:
            return (
                f"input tokens: estimated (4 characters a token): the token counting endpoint failed "
                f"({self.failed}) after {len(self.known)} requests"
            )
        return (
            f"input tokens: {len(self.known)} distinct requests counted exactly by the API's token counting "
            f"endpoint; {len(self.estimated)} estimated (4 characters a token: requests that hold an output "
            f"not known yet)"
        )


def _dollars(amount: float) -> str:
    return f"${amount:.4f}"


def estimate(
    suites: list[Suite],
    *,
    model: str | None = None,
    judge_model: str | None = None,
    repeat: int | None = None,
    cases: list[str] | None = None,
    cache: ResponseCache | None = None,
    previous: Report | None = None,
    previous_path: str | None = None,
    count_tokens: Callable[[ModelRequest], int] | None = None,
    capabilities: CapabilityTable | None = None,
) -> Estimate:
    """The calls a run of `suites` would make (see the module's docstring), and beside them the cost of
    the other profiles: every case when tags select, else each tag's cases. `previous`, a run's results,
    is shown as where callable targets' calls were seen; the plan runs them itself."""
    selectors = list(cases or [])
    tokens = InputCount(count_tokens)  # one memo for every profile: a request is counted once
    tiers = {suite.name: suite.tier_models(model, judge_model) for suite in suites}
    room = [0]

    def lines_for(chosen: list[str]) -> list[Line]:
        planned = plan_run(
            suites,
            cache_dir=Path(cache.dir) if cache is not None else None,
            capabilities=capabilities,
            model=model,
            judge_model=judge_model,
            repeat=repeat,
            cases=chosen,
        )
        lines, thinking = price(planned, suites, chosen, tokens, repeat=repeat, tiers=tiers)
        room[0] = max(room[0], thinking)
        for line in lines:
            line.calibration_calls = calibration_calls(next(s for s in suites if s.name == line.suite))
        return lines

    result = Estimate(lines_for(selectors), measured_in=previous_path if previous is not None else None, tokens=tokens)
    ids = [s for s in selectors if not s.startswith(TAG_PREFIX)]
    if len(ids) < len(selectors):  # tags select: the nightly profile is every case (of the same ids)
        others = [(f"every case{' ' + describe_selection(ids) if ids else ''} (no --tag: the nightly profile)", ids)]
    else:
        tags = sorted({t for s in suites for c in s.select(ids) for t in c.tags})
        others = [(describe_selection([*ids, TAG_PREFIX + t]), [*ids, TAG_PREFIX + t]) for t in tags]
    for name, chosen in others:
        lines = lines_for(chosen)
        result.profiles.append(
            Profile(
                name, sum(ln.cost for ln in lines), sum(ln.batch_cost for ln in lines), sum(ln.calls for ln in lines)
            )
        )
    result.thinking_room = room[0]
    return result


def calibration_calls(suite: Suite, repeats: int = CALIBRATION_REPEATS) -> int:
    """Calls `evalkit calibrate` makes: per gold output and repeat, one judge call when it labels a
    judge item, one extraction call when it records fields (one call for both, as a run asks)."""
    calls = 0
    for gold in suite.gold:
        items = {it.id: it for it in suite.case(gold.case_id).gold_items}
        judged = any(items[i].judge is not None and label != "n/a" for i, label in gold.labels.items())
        extracted = gold.fields is not None and bool(suite.fields)
        calls += repeats * (1 if judged and extracted else int(judged) + int(extracted))  # both: one call
    return calls


# Pricing: each request the estimating provider answered is one call a run pays for, put on its
# suite's line by kind, with its input tokens (counted, or estimated when it holds an estimated text).
KINDS = {
    None: "target_calls",
    EXTRACT_TOOL: "extraction_calls",
    "record_verdicts": "judge_calls",
    "record_verdicts_and_fields": "graded_calls",
}
UNKNOWN_PROMPT = 200  # a callable target's prompt beyond its input, when its calls are not known


def price(
    planned: PlannedRun,
    suites: list[Suite],
    chosen: list[str],
    tokens: InputCount,
    *,
    repeat: int | None,
    tiers: dict[str, dict[str, str]],
) -> tuple[list[Line], int]:
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
            line.add(
                model,
                text_tokens(json.dumps(case_input, default=str)) + UNKNOWN_PROMPT,
                suite.max_tokens // 2,
                batchable=False,
            )
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
    repeats = {
        (suite.name, it.id): it.judge_repeats
        for suite in suites
        for case in suite.cases
        for it in [*case.items, *(i for turn in case.turns for i in turn.items)]
    }
    runs: dict[tuple[int, tuple[str, ...]], list[Answered]] = {}
    for a in answered:
        if a.tool in ("record_verdicts", "record_verdicts_and_fields") and a.mark is not None:
            runs.setdefault((id(a.mark), tuple(asked_ids(a.request))), []).append(a)
    confirming: set[int] = set()
    for asked in runs.values():
        suite = asked[0].mark.suite if asked[0].mark else ""
        ids = asked_ids(asked[0].request)
        wanted = max((repeats.get((suite, i), 1) for i in ids), default=1)
        confirming.update(id(a) for a in asked[wanted:])
    return confirming
