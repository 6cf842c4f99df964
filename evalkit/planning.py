"""`evalkit plan`: count the calls a run would make and estimate tokens and dollars."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from evalkit.pricing import cost_usd
from evalkit.suite.model import Suite
from evalkit.suite.prompts import render_prompt

CHARS_PER_TOKEN = 4
JUDGE_SYSTEM_TOKENS = 150
JUDGE_TOKENS_PER_ITEM = 90  # a short reason and a verdict
EXTRACT_TOKENS_PER_FIELD = 12
CALIBRATION_REPEATS = 3  # `evalkit calibrate`'s default --repeats


@dataclass
class Line:
    suite: str
    cases: int = 0
    runs: int = 0
    target_calls: int = 0
    judge_calls: int = 0
    extraction_calls: int = 0
    tokens: dict[str, list[int]] = field(default_factory=dict)  # model -> [input, output]
    cost: float = 0.0  # interactive (Messages API) dollars
    batch_cost: float = 0.0  # the same run with `--batch` (a Python target's own calls stay interactive)
    unpriced: set[str] = field(default_factory=set)
    calibration_calls: int = 0  # `evalkit calibrate` on the gold outputs (not part of a run)

    def add(self, model: str, input_tokens: int, output_tokens: int, calls: int = 1, batchable: bool = True) -> None:
        t = self.tokens.setdefault(model, [0, 0])
        t[0] += input_tokens * calls
        t[1] += output_tokens * calls
        # Priced per call: a long-context tier depends on one request's size, not on a total.
        # `run --batch` batches prompt-target, judge and extraction calls, not a Python target's own.
        one, one_batch = cost_usd(model, input_tokens, output_tokens), cost_usd(model, input_tokens,
                                                                               output_tokens, batch=batchable)
        if one is None or one_batch is None:
            self.unpriced.add(model)
        else:
            self.cost += one * calls
            self.batch_cost += one_batch * calls


@dataclass
class Estimate:
    lines: list[Line]

    def cost(self) -> tuple[float, list[str]]:
        """Interactive dollars of the priced calls, and the models without a known price."""
        return sum(ln.cost for ln in self.lines), sorted(set().union(*(ln.unpriced for ln in self.lines)))

    def batch_cost(self) -> float:
        return sum(ln.batch_cost for ln in self.lines)

    def render(self) -> str:
        rows = ["suite                     cases  runs  target  judge  extract  est. tokens in/out  "
                "interactive  batch"]
        for ln in self.lines:
            i = sum(t[0] for t in ln.tokens.values())
            o = sum(t[1] for t in ln.tokens.values())
            rows.append(f"{ln.suite[:25]:25} {ln.cases:5} {ln.runs:5} {ln.target_calls:7} {ln.judge_calls:6} "
                        f"{ln.extraction_calls:8}  {f'{i:,}/{o:,}':18}  {_dollars(ln.cost):>11}  {_dollars(ln.batch_cost)}")
        total, unpriced = self.cost()
        calls = sum(ln.target_calls + ln.judge_calls + ln.extraction_calls for ln in self.lines)
        rows.append(f"total: {calls} model calls (at most; cached and shared replies cost nothing), "
                    f"about ${total:.2f} interactive, ${self.batch_cost():.2f} with --batch (Message Batches prices; "
                    f"a Python target's own calls stay at full price)")
        for ln in self.lines:
            if ln.calibration_calls:
                rows.append(f"{ln.suite}: `evalkit calibrate` makes {ln.calibration_calls} judge and extraction "
                            f"calls on its gold outputs (×{CALIBRATION_REPEATS}; not part of a run)")
        if unpriced:
            rows.append(f"no price known for: {', '.join(unpriced)} (its calls are left out of the dollars)")
        rows.append("Token figures are estimates: callable targets are assumed to make one call whose reply "
                    "fills about half of max_tokens.")
        return "\n".join(rows)


def _dollars(amount: float) -> str:
    return f"${amount:.4f}"


def _tokens(text: str) -> int:
    return max(1, len(text) // CHARS_PER_TOKEN)


def estimate(suites: list[Suite], *, model: str | None = None, judge_model: str | None = None,
             repeat: int | None = None, cases: list[str] | None = None) -> Estimate:
    lines = []
    for suite in suites:
        line = Line(suite.name)
        tiers = suite.tier_models(model, judge_model)
        tmodel, jmodel = tiers["high"], tiers["low"]
        out_tokens = suite.max_tokens // 2
        for case in suite.select(cases or []):
            if case.skip:
                continue
            runs = repeat or case.repeats
            line.cases += 1
            line.runs += runs
            if suite.target is not None and suite.target.template is not None:
                try:
                    prompt_tokens = _tokens(render_prompt(suite.target.template, case.input))
                except Exception:
                    prompt_tokens = _tokens(json.dumps(case.input, default=str)) + 200
            else:
                prompt_tokens = _tokens(json.dumps(case.input, default=str)) + 200
            line.target_calls += runs
            line.add(tmodel, prompt_tokens, out_tokens, runs,
                     batchable=suite.target is not None and suite.target.template is not None)
            judged = [i for i in case.items if i.judge is not None]
            if judged:
                calls = runs * max(i.judge_repeats for i in judged)  # judge_repeats: N calls, a majority
                line.judge_calls += calls
                criteria = sum(_tokens(i.judge or "") for i in judged)
                line.add(jmodel, JUDGE_SYSTEM_TOKENS + criteria + out_tokens + prompt_tokens // 2,
                         JUDGE_TOKENS_PER_ITEM * len(judged), calls)
            if case.fields:
                line.extraction_calls += runs
                line.add(jmodel, JUDGE_SYSTEM_TOKENS + out_tokens + 30 * len(case.fields),
                         EXTRACT_TOKENS_PER_FIELD * len(case.fields), runs)
        line.calibration_calls = calibration_calls(suite)
        lines.append(line)
    return Estimate(lines)


def calibration_calls(suite: Suite, repeats: int = CALIBRATION_REPEATS) -> int:
    """Calls `evalkit calibrate` makes: per gold output and repeat, one judge call when it labels a
    judge item, one extraction call when it records fields."""
    calls = 0
    for gold in suite.gold:
        items = {it.id: it for it in suite.case(gold.case_id).items}
        judged = any(items[i].judge is not None and label != "n/a" for i, label in gold.labels.items())
        calls += repeats * (int(judged) + int(gold.fields is not None and bool(suite.fields)))
    return calls
