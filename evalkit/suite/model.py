"""Runtime suites and cases: what the loader builds from a suite file and the runner runs."""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from evalkit.checks.base import Check
from evalkit.llm.tiers import resolve_tiers
from evalkit.suite.spec import CalibrationBar, CompareSpec, FieldSpec, GoldLabel, Thresholds, Timeouts
from evalkit.trace.steps import Step

Inconclusive = Literal["fail", "warn", "pass"]  # what an inconclusive case does to the verdict


@dataclass(frozen=True)
class Tool:
    """A tool of a prompt target: what the model is told, and what answers it (`function`, else the
    case's `tool_results`)."""

    name: str
    description: str = ""
    input_schema: dict[str, Any] = field(default_factory=dict)
    function: str | None = None

    def api_definition(self) -> dict[str, Any]:
        """The tool as the Messages API's `tools` list takes it."""
        return {"name": self.name, "description": self.description, "input_schema": self.input_schema}


@dataclass(frozen=True)
class Target:
    """The system under test: a callable `module:function`, or a Jinja prompt sent to a model."""

    function: str | None = None
    template: str | None = None
    template_name: str | None = None
    system: str | None = None
    model: str | None = None
    max_tokens: int | None = None
    temperature: float | None = None
    thinking: dict[str, Any] | None = None  # the target's `thinking` as the API takes it; None: the model's default
    effort: str | None = None  # `output_config.effort` of the target's calls
    prompt_cache: bool = False  # the system prompt is marked as a prompt-cache prefix
    tools: tuple[Tool, ...] = ()  # a prompt target's tools: evalkit runs the tool loop
    max_steps: int = 10  # model turns the tool loop may take

    @property
    def kind(self) -> str:
        return "callable" if self.function else "prompt"

    def describe(self) -> str:
        return self.function or f"prompt {self.template_name or '(inline)'}"


@dataclass(frozen=True, slots=True)  # slots: a large suite holds one per check of every case
class Item:
    """A scored criterion of a case: a `checks:` entry (must pass) or a rubric item (rated)."""

    id: str
    text: str
    check: Check | None = None
    judge: str | None = None
    critical: bool = False
    required: bool = False
    when: str | None = None
    line: int | None = None
    weight: float = 1.0
    judge_repeats: int = 1  # judge calls whose majority decides this item

    @property
    def decided_by(self) -> str:
        """code, judge, or code+judge: two witnesses that must both pass."""
        if self.judge is not None and self.check is not None:
            return "code+judge"
        return "judge" if self.judge is not None else "code"


@dataclass(frozen=True)
class GoldOutput:
    """A gold-labelled output of a case: its expected verdict per item id (labels by item id)."""

    case_id: str
    output: Any
    labels: dict[str, GoldLabel]
    fields: dict[str, Any] | None = None  # None: the entry records no fields
    misread: tuple[str, ...] = ()  # fields recorded as a fooled extraction gives them, not as a careful reader
    facts: dict[str, Any] = field(default_factory=dict)
    note: str = ""
    file: Path | None = None
    line: int | None = None
    extraction: dict[str, Any] | None = None  # a recorded extraction reply (raw, as the model gave it)
    trace: list[Step] | None = None  # the run's trajectory, for checks that read the agent's tool calls

    @property
    def where(self) -> str:
        return f"{self.file.name if self.file else '?'}:{self.line or 0}"


@dataclass(frozen=True)
class Turn:
    """One turn of a conversation case: a user message (a Jinja template, sent to the target with
    the conversation so far) whose reply is scored on its own items, or a scripted assistant reply."""

    number: int  # 1-based position in the conversation (scripted assistant turns count)
    role: str  # "user" | "assistant"
    text: str  # a user turn's template; an assistant turn's reply, verbatim
    items: tuple[Item, ...] = ()  # ids and texts prefixed "turn N: "
    fields: tuple[str, ...] = ()  # extracted from this turn's reply, stored as "turn N.<field>"
    line: int | None = None
    scripted: bool = False  # a user turn the next (scripted assistant) turn answers: no call

    @property
    def prefix(self) -> str:
        return f"turn {self.number}: "

    def field_key(self, name: str) -> str:
        """Where this turn's field is stored among the run's fields."""
        return f"turn {self.number}.{name}"


@dataclass(slots=True)  # slots: a large suite holds thousands
class Case:
    id: str
    input: Any
    items: list[Item]
    repeats: int = 1
    pass_all: bool = False  # with repeats, the case fails unless every run passes
    fields: list[str] = field(default_factory=list)
    description: str = ""
    tool_results: dict[str, Any] = field(default_factory=dict)  # scripted answers of the target's tools
    tags: list[str] = field(default_factory=list)
    skip: str | None = None
    line: int | None = None
    file: Path | None = None  # where the case is written (a suite may take cases from a fixture list)
    turns: tuple[Turn, ...] = ()  # a conversation case's turns; () for a single input -> output

    @property
    def target_calls(self) -> int:
        """The target calls one run of this case makes: one per user turn no scripted turn answers."""
        return sum(t.role == "user" and not t.scripted for t in self.turns) or 1

    def field_specs(self, declared: dict[str, FieldSpec]) -> dict[str, FieldSpec]:
        """The fields a run of this case records (its turns' as `turn N.<field>`), by their declarations."""
        specs = {n: declared[n] for n in self.fields}
        for turn in self.turns:
            specs.update({turn.field_key(n): declared[n] for n in turn.fields})
        return specs

    @property
    def needs_extraction(self) -> bool:
        return bool(self.fields)

    @property
    def gold_items(self) -> list[Item]:
        """The items a gold entry of this case may label: the case's own and, for a conversation (whose
        gold output is its final reply), the final turn's (ids "turn N: ...")."""
        final = self.turns[-1].items if self.turns else ()
        return [*self.items, *final]


@dataclass(frozen=True)
class JudgeThinking:
    """A suite's `judge_thinking`: the judge thinks before its verdicts, at an effort level, or with a
    budget of tokens where the model takes one (either may be given; evalkit.scoring.structured)."""

    effort: str | None = None
    budget_tokens: int | None = None

    def describe(self) -> str:
        return " and ".join(
            filter(
                None,
                [
                    f"effort {self.effort}" if self.effort else "",
                    f"budget_tokens {self.budget_tokens}" if self.budget_tokens else "",
                ],
            )
        )

    def as_dict(self) -> dict[str, Any]:
        return {k: v for k, v in (("effort", self.effort), ("budget_tokens", self.budget_tokens)) if v is not None}


@dataclass
class Suite:
    name: str
    path: Path
    cases: list[Case]
    target: Target | None = None
    model: str | None = None
    judge_model: str | None = None  # None: the `low` tier, else the default judge
    judge_thinking: JudgeThinking | None = None  # the judge thinks before its verdicts
    confirm_failures: int = 0  # judge calls more for an item the judge failed; the majority of all decides
    compare_models: list[str] = field(default_factory=list)  # run once per model, side by side
    tiers: dict[str, str] = field(default_factory=dict)
    max_tokens: int = 1024
    max_cost: float | None = None  # the run's budget in US dollars (the smallest of the suites run)
    temperature: float | None = None
    watch: list[str] = field(default_factory=list)
    thresholds: Thresholds = field(default_factory=Thresholds)
    timeout: Timeouts = field(default_factory=Timeouts)
    tolerance: float = 0.10
    missing: str = "disagree"  # a field no run states: disagree | ignore
    complete: bool = True  # a truncated output fails the built-in `complete` check
    calibration: CalibrationBar | None = None  # the bar `evalkit calibrate` holds judge items to
    inconclusive: Inconclusive = "warn"  # what an inconclusive case does
    fields: dict[str, FieldSpec] = field(default_factory=dict)
    comparisons: list[CompareSpec] = field(default_factory=list)
    description: str = ""
    is_fixture_list: bool = False
    gold: list[GoldOutput] = field(default_factory=list)

    @property
    def dir(self) -> Path:
        return self.path.parent

    def tier_models(self, model: str | None = None, judge_model: str | None = None) -> dict[str, str]:
        """Model by tier for this suite: `model` / `judge_model` (the command line's), then the suite's
        `model` / `judge_model`, its `models:` tiers, the environment's tiers, evalkit's defaults."""
        return resolve_tiers(
            {"high": model, "low": judge_model}, {"high": self.model, "low": self.judge_model}, self.tiers
        )

    def select(self, selectors: list[str]) -> list[Case]:
        """The cases `selectors` choose (all of them when there is none): see `select_cases`."""
        return select_cases(self.cases, selectors)

    def case(self, case_id: str) -> Case:
        for case in self.cases:
            if case.id == case_id:
                return case
        raise KeyError(case_id)


TAG_PREFIX = "#"  # a case id cannot hold it, so `#pr` never reads as an id glob


def tag_selector(tag: str) -> str:
    """The selector `--tag TAG` adds to `--case`'s globs."""
    return TAG_PREFIX + tag


def selectors(cases: Iterable[str], tags: Iterable[str]) -> list[str]:
    """`--case`'s id globs and `--tag`'s tags as one selection."""
    return [*cases, *map(tag_selector, tags)]


def select_cases(cases: list[Case], selectors: list[str]) -> list[Case]:
    """The cases whose id matches one of the id globs (if any) and that carry one of the `#tag`s (if any).

    Tags travel in the same list as `--case`'s globs, so every place that selects cases (a run, its
    shards, `plan`, the base run, `--resume`) selects alike without a second option to carry."""
    tags = {s[len(TAG_PREFIX) :] for s in selectors if s.startswith(TAG_PREFIX)}
    globs = [s for s in selectors if not s.startswith(TAG_PREFIX)]
    return [
        c
        for c in cases
        if (not globs or any(fnmatch.fnmatchcase(c.id, g) for g in globs)) and (not tags or not tags.isdisjoint(c.tags))
    ]


def describe_selection(selectors: list[str]) -> str:
    """The command-line options that give `selectors`: `--case weekly_* --tag pr`."""
    return " ".join(f"--tag {s[len(TAG_PREFIX) :]}" if s.startswith(TAG_PREFIX) else f"--case {s}" for s in selectors)
