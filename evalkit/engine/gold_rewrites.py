"""Gold outputs edited to break a judged item, for `evalkit mutate`: a scripted rewrite, no model.

For a gold output labelled *pass* on an item the judge decides (`judge:`, or an `llm_judge` check),
the rewrite removes every sentence that names one of the item's key terms: the words of five letters
or more in its criterion (common words aside), matched by their first five letters, so "injury"
matches "injuries". A reply that no longer says what the item asks for should fail it; an output
with no such sentence gets no rewrite. The rewrite is mechanical: it can miss a rule put in other
words, and a sentence that only mentions a term goes too.

Offline, an item with a code witness that reads the output (not extracted fields) is decided by that
witness: a fail kills the rewrite. The judge alone decides the rest: "needs a judge" unless a model
client is given (`evalkit mutate --judge`), which asks the suite's judge as a run would.
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass, replace

from evalkit.engine.judge_calibration import gold_case_input
from evalkit.engine.selftest import code_verdicts
from evalkit.llm.client import ModelClient
from evalkit.scoring.grading import score_output
from evalkit.scoring.judge_input import JudgeInput, JudgeSettings
from evalkit.suite.model import GoldOutput, Item, Suite
from evalkit.trace.steps import judged_trace

# Words too common in criteria to say what an item is about.
_COMMON = frozenset(
    {
        "about",
        "above",
        "after",
        "again",
        "being",
        "below",
        "could",
        "every",
        "gives",
        "their",
        "there",
        "these",
        "those",
        "which",
        "while",
        "would",
        "should",
        "other",
        "reply",
        "replies",
        "answer",
        "output",
        "response",
        "explains",
        "mentions",
        "without",
        "where",
        "because",
        "least",
        "makes",
        "under",
    }
)
_WORD = re.compile(r"[A-Za-z][A-Za-z'-]{4,}")
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")


def key_terms(criterion: str) -> list[str]:
    """The stems (first five letters, lower case) of the criterion's words that say what it asks."""
    stems: list[str] = []
    for word in _WORD.findall(criterion):
        stem = word.lower()[:5]
        if word.lower() not in _COMMON and stem not in stems:
            stems.append(stem)
    return stems


def break_output(text: str, criterion: str) -> tuple[str, list[str]] | None:
    """`text` without its sentences that name a key term of `criterion`, and the terms they named;
    None when no sentence names one."""
    stems = key_terms(criterion)
    kept, named = [], []
    for sentence in (s for s in _SENTENCE.split(text) if s.strip()):
        hits = [t for t in stems if any(w.lower().startswith(t) for w in _WORD.findall(sentence))]
        if hits:
            named += [t for t in hits if t not in named]
        else:
            kept.append(sentence.strip())
    return (" ".join(kept), named) if named else None


@dataclass(frozen=True)
class GoldRewrite:
    """A gold output labelled pass on a judged item, rewritten to break it."""

    suite: Suite
    gold: GoldOutput
    item: Item
    output: str
    terms: tuple[str, ...]

    @property
    def key(self) -> str:
        return f"gold:{self.suite.name}:{self.gold.case_id}:{self.gold.where}:{self.item.id}"

    @property
    def change(self) -> str:
        return (
            f"case {self.gold.case_id}, item {self.item.id}: sentences naming "
            f"{', '.join(repr(t) for t in self.terms)} removed"
        )


def gold_rewrites(suite: Suite) -> list[GoldRewrite]:
    """One rewrite per (text gold output, judged item it is labelled pass on) that has a sentence to remove."""
    found = []
    for gold in suite.gold:
        if not isinstance(gold.output, str):
            continue
        items = {it.id: it for it in suite.case(gold.case_id).gold_items}
        for item_id, label in gold.labels.items():
            item = items.get(item_id)
            if label != "pass" or item is None or item.judge is None:
                continue
            broken = break_output(gold.output, item.judge)
            if broken is not None:
                found.append(GoldRewrite(suite, gold, item, broken[0], tuple(broken[1])))
    return found


@dataclass(frozen=True)
class RewriteVerdict:
    status: str  # killed | survived | needs a judge
    by: str


def decide(rewrite: GoldRewrite, client: ModelClient | None, judge_model: str | None = None) -> RewriteVerdict:
    """Whether the suite notices the rewrite: its code witness offline, else the judge when `client` is given."""
    item = rewrite.item
    if item.check is not None and not item.check.needs_fields:
        got = code_verdicts(rewrite.suite, replace(rewrite.gold, output=rewrite.output)).get(item.id)
        if got is not None and got.status in ("fail", "error"):
            return RewriteVerdict("killed", f"code witness: {got.status}: {got.reason}"[:200])
    if client is None:
        return RewriteVerdict("needs a judge", "the judge decides this item: run with --judge")
    verdict, reason = asyncio.run(_ask_judge(client, rewrite, judge_model))
    if verdict == "fail":
        return RewriteVerdict("killed", f"judge: fail: {reason}"[:200])
    if verdict == "pass":
        return RewriteVerdict("survived", f"the judge still passes it: {reason}"[:200])
    return RewriteVerdict("needs a judge", f"the judge gave no verdict: {reason}"[:200])


async def _ask_judge(client: ModelClient, rewrite: GoldRewrite, judge_model: str | None) -> tuple[str, str]:
    suite, gold, item = rewrite.suite, rewrite.gold, rewrite.item
    assert item.judge is not None  # gold_rewrites() chose judged items only
    model = suite.tier_models(None, judge_model)["low"]
    ask = JudgeInput(
        rewrite.output,
        criteria={item.id: item.judge},
        case_input=gold_case_input(suite.case(gold.case_id), gold),
        facts=gold.facts,
        trace=judged_trace(gold.trace),
    )
    outcome, _, _ = await score_output(
        client.bind(model=model), ask, JudgeSettings(model, thinking=suite.judge_thinking)
    )
    if outcome is None or outcome.error:
        return "error", (outcome.error if outcome is not None else "no verdict") or "no verdict"
    got = outcome.verdicts[item.id]
    return got.verdict, got.reason
