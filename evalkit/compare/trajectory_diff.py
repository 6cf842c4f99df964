"""What changed in a case's trajectory between base and head (or model and model): the tools that
appeared or disappeared, the arguments a tool was called with, the tools that newly fail, the
calls and model turns a run took, and the order of the calls.

Only runs that recorded a trace count, and a case with no traced run on either side has nothing
to say (None). With repeats the counts are of runs: a tool "appeared" when some head runs called
it and no base run did ("called in 0/3 runs → 3/3"); calls and turns per run change when their
median does. Arguments are compared as sets of values per key over every call of the tool on a
side; values are shown cut to `VALUE_CHARS`. Everything kept here is plain text taken from
model and tool output: a view escapes it (markdown `clean`, HTML autoescape)."""

from __future__ import annotations

import json
import statistics
from collections import Counter
from collections.abc import Callable
from typing import Any, Literal

from pydantic import BaseModel, Field

from evalkit.results.report import CaseResult
from evalkit.trace.steps import Step, model_turns, tool_calls

VALUE_CHARS = 40  # of an argument's value shown in a change
NAME_CHARS = 60  # of a tool's name or an argument's key shown in a change
MAX_VALUES = 3  # distinct values of an argument shown a side
ABSENT = "(absent)"

ToolChangeKind = Literal["appeared", "disappeared", "newly fails", "no longer fails", "called more", "called less"]
_ICONS = {
    "appeared": "➕",
    "disappeared": "➖",
    "newly fails": "⚠️",
    "no longer fails": "✅",
    "called more": "🔢",
    "called less": "🔢",
}


def short_name(name: str, limit: int = NAME_CHARS) -> str:
    """A tool's name or an argument's key in a line: on one line, cut to `limit` characters."""
    text = " ".join(name.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def short_value(value: Any, limit: int = VALUE_CHARS) -> str:
    """An argument's value in a line: JSON (strings quoted), cut to `limit` characters with "…"."""
    text = json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


class ToolChange(BaseModel):
    """A tool called (or failing) on one side and not on the other, or called more or less often."""

    tool: str
    kind: ToolChangeKind
    base_runs: int = Field(description="Base runs that called the tool (for `newly fails`: where it failed).")
    head_runs: int
    base_of: int = Field(description="Base runs with a trace.")
    head_of: int
    base_calls: float = Field(default=0.0, description="Median calls of the tool a run, on base.")
    head_calls: float = 0.0
    failed_runs: int = Field(default=0, description="Of an appeared tool: head runs where it failed.")

    @property
    def text(self) -> str:
        if self.kind in ("called more", "called less"):
            return (
                f"{short_name(self.tool)}: {self.kind}, {_num(self.base_calls)} → {_num(self.head_calls)} "
                "calls a run" + (" (median)" if max(self.base_of, self.head_of) > 1 else "")
            )
        what = "failed" if self.kind in ("newly fails", "no longer fails") else "called"
        return (
            f"{short_name(self.tool)} {self.kind}: {what} in {self.base_runs}/{self.base_of} runs → "
            f"{self.head_runs}/{self.head_of}" + (f", failing in {self.failed_runs}" if self.failed_runs else "")
        )


class ArgumentChange(BaseModel):
    """One argument of a tool called on both sides whose values differ."""

    tool: str
    key: str
    base: list[str] = Field(description="Its distinct values on base (cut; `(absent)`: some call lacked it).")
    head: list[str]

    @property
    def text(self) -> str:
        return f"{short_name(self.tool)}: argument {short_name(self.key)} {_values(self.base)} → {_values(self.head)}"


class CountChange(BaseModel):
    """Tool calls or model turns a run, when the median differs."""

    what: Literal["tool calls", "model turns"]
    base: list[int] = Field(description="Per traced base run.")
    head: list[int]

    @property
    def text(self) -> str:
        def side(counts: list[int]) -> str:
            return (
                str(counts[0])
                if len(counts) == 1
                else ", ".join(map(str, counts))
                if len(counts) <= 5
                else f"median {_num(statistics.median(counts))} ({min(counts)}–{max(counts)})"
            )

        return f"{self.what} a run: {side(self.base)} → {side(self.head)}"


class TrajectoryDiff(BaseModel):
    """A case's trajectory changes; `empty` when the traces did the same things."""

    base_runs: int
    head_runs: int
    tools: list[ToolChange] = Field(default_factory=list)
    arguments: list[ArgumentChange] = Field(default_factory=list)
    counts: list[CountChange] = Field(default_factory=list)
    order: tuple[list[str], list[str]] | None = Field(
        default=None, description="The same calls in another order (every run of a side in one order)."
    )

    @property
    def empty(self) -> bool:
        return not (self.tools or self.arguments or self.counts or self.order)

    def changes(self) -> list[tuple[str, str]]:
        """One (icon, plain-text line) a change, most telling first."""
        found = [(_ICONS[t.kind], t.text) for t in self.tools]
        found += [("🔀", a.text) for a in self.arguments]
        if self.order is not None:
            found.append(
                (
                    "🔁",
                    "order: "
                    + " → ".join(map(short_name, self.order[0]))
                    + "  ⇒  "
                    + " → ".join(map(short_name, self.order[1])),
                )
            )
        found += [("🔢", c.text) for c in self.counts]
        return found

    def lines(self) -> list[str]:
        """One plain-text line a change, most telling first."""
        return [text for _, text in self.changes()]


def trajectory_diff(base: CaseResult, head: CaseResult) -> TrajectoryDiff | None:
    """What changed between the traced runs of `base` and `head`; None when either side has no
    traced run (nothing to compare)."""
    b = [r.trace for r in base.runs if r.trace is not None]
    h = [r.trace for r in head.runs if r.trace is not None]
    if not b or not h:
        return None
    diff = TrajectoryDiff(base_runs=len(b), head_runs=len(h))
    diff.tools = _tool_changes(b, h)
    diff.arguments = _argument_changes(b, h)
    counters: list[tuple[Literal["tool calls", "model turns"], Callable[[list[Step]], int]]] = [
        ("tool calls", lambda t: len(tool_calls(t))),
        ("model turns", model_turns),
    ]
    for what, count in counters:
        bc, hc = [count(t) for t in b], [count(t) for t in h]
        if statistics.median(bc) != statistics.median(hc):
            diff.counts.append(CountChange(what=what, base=bc, head=hc))
    diff.order = _order(b, h) if not diff.tools and not diff.counts else None
    return diff


def _tool_changes(b: list[list[Step]], h: list[list[Step]]) -> list[ToolChange]:
    def per_run(traces: list[list[Step]], failed: bool = False) -> list[Counter[str]]:
        return [Counter(str(s.name) for s in tool_calls(t) if not failed or s.error is not None) for t in traces]

    changes: list[ToolChange] = []
    for failed in (False, True):
        bruns, hruns = per_run(b, failed), per_run(h, failed)
        names = list(dict.fromkeys(n for runs in (bruns, hruns) for counts in runs for n in counts))
        # A tool that appeared (or disappeared) is not said to newly fail (or no longer fail) too.
        said = {c.tool: c for c in changes if c.kind in ("appeared", "disappeared")}
        for name in names:
            if name in said:
                said[name].failed_runs = sum(name in c for c in hruns) if failed else 0
                continue
            bn, hn = sum(name in c for c in bruns), sum(name in c for c in hruns)
            bm, hm = statistics.median(c[name] for c in bruns), statistics.median(c[name] for c in hruns)
            kind: ToolChangeKind | None = None
            if bn == 0 or hn == 0:
                kind = (
                    ("newly fails" if failed else "appeared")
                    if bn == 0
                    else ("no longer fails" if failed else "disappeared")
                )
            elif not failed and bm != hm:
                kind = "called more" if hm > bm else "called less"
            if kind is not None:
                changes.append(
                    ToolChange(
                        tool=name,
                        kind=kind,
                        base_runs=bn,
                        head_runs=hn,
                        base_of=len(b),
                        head_of=len(h),
                        base_calls=float(bm),
                        head_calls=float(hm),
                    )
                )
    return changes


def _argument_changes(b: list[list[Step]], h: list[list[Step]]) -> list[ArgumentChange]:
    def values(traces: list[list[Step]]) -> dict[str, list[dict[str, Any]]]:
        found: dict[str, list[dict[str, Any]]] = {}
        for trace in traces:
            for call in tool_calls(trace):
                found.setdefault(str(call.name), []).append(call.arguments)
        return found

    bv, hv = values(b), values(h)
    changes = []
    for tool in (t for t in bv if t in hv):
        keys = list(dict.fromkeys(k for calls in (bv[tool], hv[tool]) for args in calls for k in args))
        for key in keys:
            bset, hset = _value_set(bv[tool], key), _value_set(hv[tool], key)
            if set(bset) != set(hset):
                changes.append(
                    ArgumentChange(tool=tool, key=key, base=[_show(v) for v in bset], head=[_show(v) for v in hset])
                )
    return changes


def _value_set(calls: list[dict[str, Any]], key: str) -> list[str]:
    """The distinct values of `key` over the calls, as canonical JSON (ABSENT where a call lacks it)."""
    found = (
        json.dumps(args[key], sort_keys=True, ensure_ascii=False, default=str) if key in args else ABSENT
        for args in calls
    )
    return list(dict.fromkeys(found))


def _show(canonical: str) -> str:
    return canonical if canonical == ABSENT else short_value(json.loads(canonical))


def _order(b: list[list[Step]], h: list[list[Step]]) -> tuple[list[str], list[str]] | None:
    bseq = {tuple(str(s.name) for s in tool_calls(t)) for t in b}
    hseq = {tuple(str(s.name) for s in tool_calls(t)) for t in h}
    if len(bseq) != 1 or len(hseq) != 1:
        return None
    (bs,), (hs,) = bseq, hseq
    return (list(bs), list(hs)) if bs != hs and sorted(bs) == sorted(hs) else None


def _values(values: list[str]) -> str:
    more = len(values) - MAX_VALUES
    return ", ".join(values[:MAX_VALUES]) + (f" (+{more} more)" if more > 0 else "")


def _num(value: float) -> str:
    return f"{value:g}"
