"""`evalkit plan`: count the calls a run would make, by the runner's own rules, and estimate tokens
and dollars.

The rules the runner follows, and the plan with it: every run of a case (repeats) calls its target;
a prompt target makes one request (one per answered user turn of a conversation, each turn's reply
judged on its own), built here exactly as the run builds it, so identical requests
are counted once (the client shares them within a run) and requests already in the response cache
are free. The judge is asked max(judge_repeats) times per run when a judged item applies (`when:`
decided on the input; a condition on facts counts as applying unless a previous run recorded them);
extraction is one call per run of a case with fields, folded into the judge's first call when a judged
item applies (one call, not two: evalkit/scoring/grading.py). Judge and extraction requests hold the
target's output: they are known, shared and looked up in the cache only when that output is (a
cached prompt-target reply). A callable target's calls cannot be known before it runs: the plan
says so, or counts them as measured per run in a previous run's results (`--results`).

A prompt target with `tools:` runs a loop of model calls, each request holding the tool calls and
results before it: the plan runs that loop against a stand-in for the model (evalkit/run/dry_run.py)
that answers from the response cache. Where every reply is cached the loop's requests and the run's
trajectory (which its judge request holds) are exact; from the first reply not cached on, the loop's
remaining turns are estimated (`TOOL_TURNS_GUESS`, see `_Planner.loop_turns`) and the plan says so.

This module is long because the plan follows every kind of run the runner makes (prompt, callable,
tool loop, conversation; target, judge and extraction calls) in one walk that shares one ledger of
requests seen, and splitting that walk would split the ledger's rules across modules."""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from typing import Any, Callable

from evalkit.checks.base import output_text
from evalkit.errors import EvalkitError, one_line
from evalkit.llm.budget import request_tokens
from evalkit.llm.budget import text_tokens as _tokens
from evalkit.llm.cache import ResponseCache
from evalkit.llm.pricing import cost_usd
from evalkit.llm.prompt_prefix import CHARS_PER_TOKEN, PrefixLedger
from evalkit.llm.providers.interface import ModelRequest
from evalkit.results.report import Report
from evalkit.run.conversation import render_turn, size, target_prompt
from evalkit.run.dry_run import DryRun, dry_run_missing, tool_loop
from evalkit.run.targets import prompt_request
from evalkit.scoring.extract import extract_request
from evalkit.scoring.grading import grade_request
from evalkit.scoring.judge import judge_request
from evalkit.scoring.structured import Route, route_for
from evalkit.suite.conditions import condition_holds
from evalkit.suite.model import TAG_PREFIX, Case, Item, JudgeThinking, Suite, describe_selection
from evalkit.trace.steps import Step, judged_trace

JUDGE_TOKENS_PER_ITEM = 90  # a short reason and a verdict
EXTRACT_TOKENS_PER_FIELD = 12
CALIBRATION_REPEATS = 3  # `evalkit calibrate`'s default --repeats
# A tool loop whose replies are not cached: the model turns it is counted as taking, when no cached
# run of the same case shows how many it takes (never more than the target's `max_steps`).
TOOL_TURNS_GUESS = 3


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
    rendered_runs: int = 0  # runs of a callable target whose requests were seen as rendered (dry_run)
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

    def add(self, model: str, input_tokens: int, output_tokens: int, calls: int = 1, *, batchable: bool = True,
            read: int = 0, write: int = 0) -> None:
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
        one_batch = cost_usd(model, fresh, output_tokens, cache_read_tokens=read, cache_write_tokens=write,
                             batch=batchable)
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
        rows = ["suite                     cases  runs  target  judge  extract  both  free  est. tokens in/out  "
                "interactive  batch"]
        for ln in self.lines:
            i = sum(t[0] for t in ln.tokens.values())
            o = sum(t[1] for t in ln.tokens.values())
            target = f"{ln.target_calls}+?" if ln.unknown_runs else str(ln.target_calls)
            rows.append(f"{ln.suite[:25]:25} {ln.cases:5} {ln.runs:5} {target:>7} {ln.judge_calls:6} "
                        f"{ln.extraction_calls:8} {ln.graded_calls:5} {ln.free:5}  {f'{i:,}/{o:,}':18}  {_dollars(ln.cost):>11}  "
                        f"{_dollars(ln.batch_cost)}")
        total, unpriced = self.cost()
        unknown = sum(ln.unknown_runs for ln in self.lines)
        free = sum(ln.free for ln in self.lines)
        rows.append(f"total: {self.calls()}{' + the callable targets’ own' if unknown else ''} model calls "
                    f"({free} more requests are identical to another or cached: free), about ${total:.2f} "
                    f"interactive, ${self.batch_cost():.2f} with --batch (Message Batches prices; a Python "
                    f"target's own calls stay at full price)")
        if unknown:
            rows.append(f"target calls: unknown for {unknown} runs of callable targets (their code decides; "
                        f"the dollars assume one call per run) — `--results` a previous run's results to "
                        f"count them as measured")
        elif self.measured_in:
            rows.append(f"callable targets' calls: as measured per run in {self.measured_in}")
        rendered = sum(ln.rendered_runs for ln in self.lines)
        if rendered:
            rows.append(f"callable targets: {rendered} runs were run up to their model calls with a stand-in for "
                        f"the model (no call made): their requests are counted as rendered")
        loops, estimated = sum(ln.tool_loops for ln in self.lines), sum(ln.estimated_loops for ln in self.lines)
        if estimated:
            rows.append(f"tool loops: {estimated} of {loops} estimated: followed from the response cache up to the "
                        f"first reply it lacks, then counted as taking as many model turns as this case's cached "
                        f"runs took (else {TOOL_TURNS_GUESS}; at most the target's max_steps)")
        elif loops:
            rows.append(f"tool loops: all {loops} exact: every reply is in the response cache, so each request "
                        f"and the runs' trajectories are known")
        if self.thinking_room:
            rows.append(f"thinking: billed as output tokens; each judge call is counted with the whole room its "
                        f"model may think in ({self.thinking_room:,} tokens), a target's within its max_tokens")
        rows += [f"warning: {w}" for w in self.warnings]
        for p in self.profiles:
            rows.append(f"{p.name}: {p.calls} model calls, about ${p.cost:.2f} interactive, ${p.batch_cost:.2f} "
                        f"with --batch")
        for ln in self.lines:
            if ln.confirm_calls:
                rows.append(f"{ln.suite}: confirm_failures: up to {ln.confirm_calls} more judge calls, counted above "
                            f"as if every judged item failed on every run (they are made only for items that fail)")
            if ln.calibration_calls:
                rows.append(f"{ln.suite}: `evalkit calibrate` makes {ln.calibration_calls} judge and extraction "
                            f"calls on its gold outputs (×{CALIBRATION_REPEATS}; not part of a run)")
        read, write = sum(ln.cache_read for ln in self.lines), sum(ln.cache_write for ln in self.lines)
        if read or write:
            rows.append(f"prompt cache: of the input tokens, about {read:,} read from the cache and {write:,} written "
                        f"to it (priced at the model's cache rates; a prefix under the model's minimum is not cached)")
        if any(ln.graded_calls for ln in self.lines):
            rows.append("both: the judge and the extraction of one output in one call")
        if unpriced:
            rows.append(f"no price known for: {', '.join(unpriced)} (its calls are left out of the dollars)")
        rows.append(self.tokens.describe() if self.tokens is not None else _ESTIMATED)  # exact or estimated: which
        rows.append("Token figures are estimates; judge and extraction calls whose target output is not known "
                    "yet are counted as new (a real run may share or find some in the cache).")
        return "\n".join(rows)


_ESTIMATED = ("input tokens: estimated (4 characters a token of the request); with ANTHROPIC_API_KEY set, "
              "`evalkit plan` counts them with the API's token counting endpoint")


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
            return (f"input tokens: estimated (4 characters a token): the token counting endpoint failed "
                    f"({self.failed}) after {len(self.known)} requests")
        return (f"input tokens: {len(self.known)} distinct requests counted exactly by the API's token counting "
                f"endpoint; {len(self.estimated)} estimated (4 characters a token: requests that hold an output "
                f"not known yet)")


def _dollars(amount: float) -> str:
    return f"${amount:.4f}"


def _stand_in(out_tokens: int) -> str:
    """An output not known yet, as text of its estimated size: the judge's and the extraction's requests
    are then built as the run builds them (and counted as new: their cache keys are not the run's)."""
    return "x" * (out_tokens * CHARS_PER_TOKEN)


class _Planner:
    """Walks the runs a run would make, counting each request once, as the client's memo does."""

    def __init__(self, cache: ResponseCache | None, previous: Report | None,
                 dry: dict[tuple[str, str, int], DryRun] | None = None, tokens: InputCount | None = None,
                 *, capabilities: Callable[[str], Any] | None = None):
        self.cache = cache
        self.capabilities = capabilities  # a model's Capabilities: the judge's route, as the run picks it
        self.seen: set[str] = set()
        self.previous = {(s.name, c.id): c for s in previous.suites for c in s.cases} if previous else {}
        self.dry = dry if dry is not None else {}  # (suite path, case id, repeat) -> the target's dry run
        self.tokens = tokens if tokens is not None else InputCount(None)
        self.prefixes = PrefixLedger()  # prompt-cache prefixes written by the requests counted so far
        self.thinking: JudgeThinking | None = None  # the judge_thinking of the suite whose case is being walked
        self.thinking_room = 0  # the most output tokens a judge call may think with
        self.confirm = 0  # the confirm_failures of the suite whose case is being walked

    def caps(self, model: str) -> Any:
        """`model`'s Capabilities as the run knows them (None: the plan was given no table)."""
        return self.capabilities(model) if self.capabilities is not None else None

    def route(self, model: str, thinking: JudgeThinking | None = None) -> Route:
        """How the run would ask `model` for a structured reply (evalkit.scoring.structured)."""
        return route_for(self.capabilities(model) if self.capabilities is not None else None, thinking)

    def request(self, line: Line, kind: str, key: str, model: str, *, in_tokens: int, out_tokens: int,
                batchable: bool = True, request: ModelRequest | None = None) -> Any:
        """Count one request by its cache key; returns its cached reply when there is one."""
        hit = self.cache.get(key) if self.cache is not None else None
        if key in self.seen or hit is not None:
            line.free += 1
            line.cached += hit is not None and key not in self.seen
        else:
            self.new(line, kind, model, in_tokens, out_tokens=out_tokens, batchable=batchable, request=request)
        self.seen.add(key)
        return hit

    def new(self, line: Line, kind: str, model: str, in_tokens: int, *, out_tokens: int, batchable: bool = True,
            request: ModelRequest | None = None) -> None:
        """Count a request the run pays for; the prompt-cache prefixes it marks are read once written."""
        setattr(line, kind, getattr(line, kind) + 1)
        _, read, write = self.prefixes.split(request.to_api_body(), in_tokens) if request else (in_tokens, 0, 0)
        line.add(model, in_tokens, out_tokens, batchable=batchable, read=read, write=write)

    def exact(self, line: Line, kind: str, request: ModelRequest, key: str, *, out_tokens: int) -> Any:
        return self.request(line, kind, key, request.model, in_tokens=self.tokens.tokens(request),
                            out_tokens=out_tokens,
                            request=request)

    def case(self, line: Line, suite: Suite, case: Case, runs: int, *, tiers: dict[str, str]) -> None:
        tmodel, jmodel = tiers["high"], tiers["low"]
        self.thinking = suite.judge_thinking
        self.confirm = suite.confirm_failures
        out_tokens = suite.max_tokens // 2
        guess = _tokens(json.dumps(case.input, default=str)) + 200  # a callable target's prompt: unknown
        before = self.previous.get((suite.name, case.id))
        fields = {n: suite.fields[n] for n in case.fields}
        for r in range(runs):
            past = before.runs[r] if before is not None and r < len(before.runs) else None
            facts: dict[str, Any] | None = past.facts if past is not None else None
            output: str | None = None
            truncated = False
            judged_input: Any = None
            trace: list[Step] | None = None  # the judge sees a run's trajectory: its requests hold it
            target = suite.target
            dry = self.dry.get((str(suite.path), case.id, r))
            sent = dict(dry.requests) if dry else {}
            rendered = {key: self.tokens.tokens(req) for key, req in sent.items()}
            if dry is not None and tool_loop(suite):
                facts = {}
                output, truncated, trace, judged_input = self.tool_runs(line, suite, case, r, dry=dry,
                                                                        rendered=rendered,
                                                                        tiers=tiers, out_tokens=out_tokens, past=past)
                if dry.failed:
                    continue  # the loop failed on cached replies (max_steps): a run fails there too, unscored
            elif target is not None and target.template is not None and case.turns:
                facts = {}
                output, truncated, judged_input = self.prompt_conversation(line, suite, case, r, tiers=tiers,
                                                                           out_tokens=out_tokens)
            elif target is not None and target.template is not None:
                facts = {}
                try:
                    pmodel = tiers.get(target.model or "", target.model or tmodel)
                    req = prompt_request(target, case.input, model=pmodel, max_tokens=suite.max_tokens,
                                         temperature=suite.temperature, capabilities=self.caps(pmodel))
                except Exception:  # a template that does not render: `validate` names it; count the call
                    line.target_calls += 1
                    line.add(tmodel, guess, out_tokens)
                else:
                    hit = self.exact(line, "target_calls", req, req.cache_key(r), out_tokens=out_tokens)
                    if hit is not None:
                        output, truncated = hit.text, hit.stop_reason == "max_tokens"
            elif past is not None and past.target_requests is not None:
                hits = [self.request(line, "target_calls", key, tmodel, in_tokens=rendered.get(key, guess),
                                     out_tokens=out_tokens,
                                     batchable=False, request=sent.get(key)) for key in past.target_requests]
                # Every call served from the cache: the target will give the same output as last time.
                if all(h is not None for h in hits) and len(past.output) == past.output_chars:
                    output, truncated, trace = past.output, past.truncated, past.trace
            elif dry is not None and dry.requests:
                line.rendered_runs += 1
                for key, req in dry.requests:
                    self.request(line, "target_calls", key, req.model, in_tokens=rendered[key],
                                 out_tokens=out_tokens, batchable=False,
                                 request=req)
                if dry.known:  # every reply was cached: the run's output is known, so are its judge requests
                    output, truncated, trace = output_text(dry.output), dry.truncated, dry.trace
                facts = dry.facts if dry.facts is not None else facts
            else:
                line.unknown_runs += 1
                line.add(tmodel, guess, out_tokens, calls=case.target_calls, batchable=False)
            if past is not None and past.error:
                continue  # the target failed last time: no judge or extraction followed
            if case.turns and not (target is not None and target.template is not None):
                for turn in case.turns:  # a callable target's replies are not known: each turn's scoring, new
                    self.score(line, replace(case, items=list(turn.items)), r, jmodel, output=None, truncated=False,
                               facts=facts or {},
                               out_tokens=out_tokens, fields={n: suite.fields[n] for n in turn.fields})
            # A conversation's judge reads the messages its final reply answered beside the input (as a run's does).
            self.score(line, case, r, jmodel, output=output, truncated=truncated, facts=facts, out_tokens=out_tokens,
                       fields=fields, judged_input=judged_input, trace=trace)

    def tool_runs(self, line: Line, suite: Suite, case: Case, r: int, *, dry: DryRun, rendered: dict[str, int],
                  tiers: dict[str, str], out_tokens: int, past: Any) -> tuple[str | None, bool, Any, Any]:
        """A run of a prompt target with tools, from its dry run: the requests it sent (exact while the
        cache answered), the turns of each loop the cache did not finish (estimated), and a
        conversation's turns scored; the final reply, whether it was cut off, its trajectory and what
        its judge reads as the input (each None when not known)."""
        target = suite.target
        assert target is not None
        for key, req in dry.requests:  # a tool loop waits on each reply: never a Message Batch
            self.request(line, "target_calls", key, req.model, in_tokens=rendered[key], out_tokens=out_tokens,
                         batchable=False,
                         request=req)
        last = dry.requests[-1][1] if dry.requests else None
        grow = rendered[dry.requests[-1][0]] if dry.requests else 0
        for loop in dry.loops:
            line.tool_loops += 1
            if not loop.cut:
                continue
            line.estimated_loops += 1
            for _ in range(self.loop_turns(suite, case, past, len(dry.loops)) - loop.requests):
                grow += out_tokens  # each turn adds a reply (its tool calls) and their results
                self.new(line, "target_calls", last.model if last else tiers["high"], grow, out_tokens=out_tokens,
                         batchable=False)
        for seen in dry.turns:
            self.score(line, replace(case, items=list(seen.turn.items)), r, tiers["low"],
                       output=seen.reply if seen.known else None, truncated=seen.truncated, facts={},
                       out_tokens=out_tokens, fields={n: suite.fields[n] for n in seen.turn.fields},
                       judged_input={"input": case.input, "conversation": seen.messages},
                       trace=seen.trace if seen.known else None)
        if not dry.known:
            return None, False, None, None
        judged_input = {"input": case.input, "conversation": dry.messages} if case.turns else None
        return output_text(dry.output), dry.truncated, dry.trace, judged_input

    def loop_turns(self, suite: Suite, case: Case, past: Any, loops: int) -> int:
        """The model turns a tool loop the cache does not finish is counted as taking: as many as this
        case's loops the cache finished took (their mean, rounded up), else as many as the previous
        run's (`--results`) loops took (its requests over its `loops` loops, rounded up), else
        TOOL_TURNS_GUESS; never more than `max_steps`."""
        assert suite.target is not None
        finished = [loop.requests for (path, cid, _), d in self.dry.items() if path == str(suite.path)
                    and cid == case.id for loop in d.loops if not loop.cut]
        if finished:
            turns = -(-sum(finished) // len(finished))
        elif past is not None and past.target_requests and not past.error:
            turns = -(-len(past.target_requests) // max(loops, 1))
        else:
            turns = TOOL_TURNS_GUESS
        return max(1, min(turns, suite.target.max_steps))

    def score(self, line: Line, case: Case, r: int, jmodel: str, *, output: str | None, truncated: bool,
              facts: dict[str, Any] | None, out_tokens: int, fields: dict[str, Any], judged_input: Any = None,
              trace: list[Step] | None = None) -> None:
        """The judge's and the extraction's calls on one reply (a conversation's turn: `case` holds its items;
        `judged_input`: what its judge reads as the input, when not the case's)."""
        judged = [it for it in case.items if it.judge is not None and _applies(it, case, facts)]
        if judged:
            self.judge(line, judged, case, r, jmodel=jmodel, output=output, truncated=truncated, facts=facts or {},
                       out_tokens=out_tokens,
                       fields=fields if fields else None, judged_input=judged_input, trace=trace)
        elif fields:
            req = extract_request(jmodel, output if output is not None else _stand_in(out_tokens), fields,
                                  route=self.route(jmodel))
            if output is not None:
                self.exact(line, "extraction_calls", req, req.cache_key(r),
                           out_tokens=EXTRACT_TOKENS_PER_FIELD * len(fields))
            else:  # counted as new, its size as the run would send it
                self.new(line, "extraction_calls", jmodel, self.tokens.guess(req),
                         out_tokens=EXTRACT_TOKENS_PER_FIELD * len(fields), request=req)

    def prompt_conversation(self, line: Line, suite: Suite, case: Case, r: int, *, tiers: dict[str, str],
                            out_tokens: int) -> tuple[str | None, bool, Any]:
        """A prompt target's calls for a conversation case, one per user turn that no scripted turn
        answers, and each turn's scoring; the final reply (when known), whether it was cut off, and what
        the judge of the final reply reads as the case's input. A request after a reply the cache does
        not hold is counted as new, with a stand-in for that reply."""
        target = suite.target
        assert target is not None
        model = tiers.get(target.model or "", target.model or tiers["high"])
        prompt = target_prompt(target, case.input)
        messages: list[dict[str, Any]] = []
        outputs: list[str] = []
        known, reply, truncated = True, None, False
        for turn in case.turns:
            if turn.role == "assistant":
                messages.append({"role": "assistant", "content": turn.text})
                outputs.append(turn.text)
                continue
            try:
                text = render_turn(case, turn, prompt, outputs, before=size(messages))
            except EvalkitError:  # `validate` names it; the run stops at this turn
                return None, False, None
            messages.append({"role": "user", "content": text})
            if turn.scripted:
                continue
            req = prompt_request(target, case.input, model=model, max_tokens=suite.max_tokens,
                                 temperature=suite.temperature, messages=messages, capabilities=self.caps(model))
            hit = self.exact(line, "target_calls", req, req.cache_key(r), out_tokens=out_tokens) if known else None
            if not known:
                self.new(line, "target_calls", req.model, self.tokens.guess(req), out_tokens=out_tokens, request=req)
            known = hit is not None
            reply, truncated = (hit.text, hit.stop_reason == "max_tokens") if hit is not None else (None, False)
            self.score(line, replace(case, items=list(turn.items)), r, tiers["low"], output=reply,
                       truncated=truncated, facts={}, out_tokens=out_tokens,
                       fields={n: suite.fields[n] for n in turn.fields}, judged_input={"input": case.input,
                                                                                       "conversation": list(messages)})
            messages.append({"role": "assistant", "content": reply if reply is not None else _stand_in(out_tokens)})
            outputs.append(messages[-1]["content"])
        return reply, truncated, {"input": case.input, "conversation": messages[:-1]}

    def judge(self, line: Line, judged: list[Item], case: Case, r: int, *, jmodel: str, output: str | None,
              truncated: bool, facts: dict[str, Any], out_tokens: int, fields: dict[str, Any] | None = None,
              judged_input: Any = None, trace: list[Step] | None = None) -> None:
        """The judge's calls (judge_repeats: N calls, a majority per item); with fields, the first also
        extracts them (the run's rule: evalkit.scoring.grading.score_output). A judge that thinks has
        its output counted with the whole room its route gives thinking (at most what it may think)."""
        calls = max(it.judge_repeats for it in judged)
        criteria = {it.id: it.judge or "" for it in judged}
        route = self.route(jmodel, self.thinking)
        self.thinking_room = max(self.thinking_room, route.room)
        verdict_tokens = JUDGE_TOKENS_PER_ITEM * len(judged) + route.room
        text = output if output is not None else _stand_in(out_tokens)
        case_input = case.input if judged_input is None else judged_input
        for k in range(calls):  # each sample is cached apart (BoundClient.sampled)
            if k == 0 and fields:
                req = grade_request(jmodel, text, criteria, fields, case_input=case_input, facts=facts,
                                    truncated=truncated, trace=judged_trace(trace), route=route)
                kind, out = "graded_calls", verdict_tokens + EXTRACT_TOKENS_PER_FIELD * len(fields)
            else:
                req = judge_request(jmodel, text, criteria, case_input=case_input, facts=facts, truncated=truncated,
                                    trace=judged_trace(trace), route=route)
                kind, out = "judge_calls", verdict_tokens
            if output is not None:
                self.exact(line, kind, req, req.cache_key(f"{r}.{k}" if k else r), out_tokens=out)
            else:
                self.new(line, kind, jmodel, self.tokens.guess(req), out_tokens=out, request=req)
        # confirm_failures: asked only about the items that fail, so only an upper bound is known: every
        # judged item failing on every run, each confirming call a new one (never served by the cache).
        req = judge_request(jmodel, text, criteria, case_input=case_input, facts=facts, truncated=truncated,
                            trace=judged_trace(trace), route=route)
        for _ in range(self.confirm):
            self.new(line, "confirm_calls", jmodel, self.tokens.guess(req), out_tokens=verdict_tokens, request=req)


def _applies(item: Item, case: Case, facts: dict[str, Any] | None) -> bool:
    """The runner's `when:` rule; a condition that needs facts no run has recorded counts as applying."""
    if item.when is None:
        return True
    try:
        return condition_holds(item.when, input=case.input, facts=facts if facts is not None else {})
    except ValueError:
        return facts is None


def estimate(suites: list[Suite], *, model: str | None = None, judge_model: str | None = None,
             repeat: int | None = None, cases: list[str] | None = None, cache: ResponseCache | None = None,
             previous: Report | None = None, previous_path: str | None = None,
             count_tokens: Callable[[ModelRequest], int] | None = None,
             capabilities: Callable[[str], Any] | None = None) -> Estimate:
    """The calls a run of `suites` would make (see the module's docstring for the rules), and beside
    them the cost of the other profiles: every case when tags select, else each tag's cases."""
    selectors = list(cases or [])
    dry: dict[tuple[str, str, int], DryRun] = {}

    room = [0]

    def lines_for(chosen: list[str]) -> list[Line]:
        planner = _Planner(cache, previous, dry, tokens, capabilities=capabilities)
        lines = []
        for suite in suites:
            line = Line(suite.name)
            tiers = suite.tier_models(model, judge_model)
            planned = [(case, repeat or case.repeats) for case in suite.select(chosen) if not case.skip]
            dry_run_missing(suite, planned, tiers, cache, dry)
            for case, runs in planned:
                line.cases += 1
                line.runs += runs
                planner.case(line, suite, case, runs, tiers=tiers)
            line.calibration_calls = calibration_calls(suite)
            lines.append(line)
        room[0] = max(room[0], planner.thinking_room)
        return lines

    tokens = InputCount(count_tokens)  # one memo for every profile: a request is counted once
    result = Estimate(lines_for(selectors), measured_in=previous_path if previous is not None else None,
                      tokens=tokens, thinking_room=room[0])
    ids = [s for s in selectors if not s.startswith(TAG_PREFIX)]
    if len(ids) < len(selectors):  # tags select: the nightly profile is every case (of the same ids)
        others = [(f"every case{' ' + describe_selection(ids) if ids else ''} (no --tag: the nightly profile)", ids)]
    else:
        tags = sorted({t for s in suites for c in s.select(ids) for t in c.tags})
        others = [(describe_selection([*ids, TAG_PREFIX + t]), [*ids, TAG_PREFIX + t]) for t in tags]
    for name, chosen in others:
        lines = lines_for(chosen)
        result.profiles.append(Profile(name, sum(ln.cost for ln in lines), sum(ln.batch_cost for ln in lines),
                                       sum(ln.calls for ln in lines)))
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
