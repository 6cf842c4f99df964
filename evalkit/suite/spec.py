"""Pydantic models of the suite file as written (unknown keys refused); the loader turns them
into the runtime `Suite` and `Case`."""

from __future__ import annotations

import re
import unicodedata
from typing import Annotated, Any, Literal, Union

from pydantic import ConfigDict, Discriminator, Field, Tag, field_validator, model_validator

from evalkit.limits import DEFAULT_CHECK_TIMEOUT, DEFAULT_JUDGE_TIMEOUT, DEFAULT_TARGET_TIMEOUT
from evalkit.llm.budget import max_cost_problem
from evalkit.llm.tiers import DEFAULT_JUDGE_MODEL
from evalkit.suite.spec_base import Strict
from evalkit.suite.target_spec import EffortLevel, TargetSpec


class CheckSpec(Strict):
    """A check as written in YAML: `type` plus that type's own arguments (validated later)."""

    model_config = ConfigDict(extra="allow")
    type: str = Field(description="A registered check type, e.g. syntax, contains, field, llm_judge.")


class FieldSpec(Strict):
    type: Literal["number", "integer", "boolean", "enum", "string", "list"]
    description: str = ""
    values: list[str] | None = Field(default=None, description="Allowed values of an enum field.")
    tolerance: float | None = Field(default=None, ge=0, description="Relative tolerance for numbers.")
    items: dict[str, "FieldSpec"] | None = Field(
        default=None, description="A list field's entries: objects with these scalar fields (e.g. one per day)."
    )

    @model_validator(mode="after")
    def _enum_values(self) -> "FieldSpec":
        if self.type == "enum" and not self.values:
            raise ValueError("an enum field needs `values`")
        if self.type != "enum" and self.values:
            raise ValueError("`values` is only for enum fields")
        if (self.type == "list") != (self.items is not None):
            raise ValueError("a list field needs `items` (its entries' fields), and only a list field has them")
        if self.items is not None and any(s.type == "list" for s in self.items.values()):
            raise ValueError("a list field's entries hold scalar fields only")
        return self


class RubricItemSpec(Strict):
    """One checklist item, decided by code (`check`), by the judge (`judge`), or by both (two
    witnesses: it passes only when both do)."""

    id: str | None = None
    text: str | None = Field(default=None, description="Human label shown in reports.")
    judge: str | None = Field(default=None, description="Criterion the judge decides.")
    check: CheckSpec | None = Field(default=None, description="A check that decides this item by code.")
    critical: bool = Field(default=False, description="Fail the case if this fails, whatever the rate.")
    when: str | None = Field(
        default=None, description="Jinja expression over `input` and `facts`; false makes the item not applicable."
    )
    weight: float = Field(default=1.0, gt=0, description="Weight of this item in the rubric pass rate.")
    judge_repeats: int | None = Field(
        default=None, ge=1, le=20, description="Ask the judge N times, take the majority (default: the suite's)."
    )

    @model_validator(mode="after")
    def _some_witness(self) -> "RubricItemSpec":
        if self.judge is None and self.check is None:
            raise ValueError("a rubric item needs `judge:`, `check:` or both")
        return self


def _kind(value: Any, kinds: dict[type, str], default: str) -> str:
    return next((tag for cls, tag in kinds.items() if isinstance(value, cls)), default)


# Unions carry tags (starting with "~") so a validation error reports one branch only;
# the loader drops the tags from error locations.
RubricEntry = Annotated[
    Union[Annotated[str, Tag("~text")], Annotated[RubricItemSpec, Tag("~item")]],
    Discriminator(lambda v: _kind(v, {str: "~text"}, "~item")),
]
RubricSpec = list[RubricEntry]


CaseRubric = Annotated[
    Union[Annotated[str, Tag("~name")], Annotated[RubricSpec, Tag("~list")]],
    Discriminator(lambda v: _kind(v, {str: "~name"}, "~list")),
]


_PLAIN_NAME = re.compile(r"\w[\w.@+:=-]*")  # no white space: \w is not, nor are the other signs
_PLAIN_ID = re.compile(rf"{_PLAIN_NAME.pattern}(?:/{_PLAIN_NAME.pattern})*")


def _script(char: str) -> str | None:
    """The script a letter is written in, from its Unicode name ("CYRILLIC SMALL LETTER A" -> CYRILLIC)."""
    if not char.isalpha():
        return None
    name = unicodedata.name(char, "")
    return name.split(" ", 1)[0] if name else "UNKNOWN"


def _one_script(case_id: str) -> None:
    """Refuse an id whose letters mix scripts: `pаce` with a Cyrillic `а` reads as `pace` and is another id."""
    scripts = {s for s in map(_script, case_id) if s is not None}
    # Han, Hiragana and Katakana are written together in one Japanese word.
    if len(scripts - {"CJK", "HIRAGANA", "KATAKANA"}) + bool(scripts & {"CJK", "HIRAGANA", "KATAKANA"}) > 1:
        raise ValueError(
            f"case id {case_id!r} mixes scripts ({', '.join(sorted(scripts)).lower()}): it can look "
            f"like another id; write it in one script"
        )


def id_skeleton(case_id: str) -> str:
    """What an id looks like: ids that differ only in compatibility forms (`Ａda`, `ada`) are one (NFKC)."""
    return case_id if case_id.isascii() else unicodedata.normalize("NFKC", case_id)


class UserTurnSpec(Strict):
    """A user turn of a conversation: its message (Jinja) and what its reply is scored on."""

    user: str = Field(
        description="The message (Jinja over `input`, `prompt` (the prompt target's own template "
        "rendered over the input; null for a callable target), `outputs` (the "
        "assistant replies so far) and `turn` (this turn's 1-based number))."
    )
    checks: list[CheckSpec] = Field(
        default_factory=list, description="Checks of this turn's reply; every one must pass."
    )
    rubric: CaseRubric = Field(
        default_factory=list,
        description="Rubric items scored on this turn's reply; or the name of a rubric under `rubrics`.",
    )
    fields: list[str] | None = Field(
        default=None, description="Fields to extract from this turn's reply, stored as `turn N.<field>`."
    )


class AssistantTurnSpec(Strict):
    """A scripted assistant turn: the reply to the user turn just before it, put in the history as a known
    state; that user turn is not sent to the model."""

    assistant: str = Field(description="The reply, verbatim (not a template).")


def _turn_kind(v: Any) -> str:
    return (
        "~assistant"
        if isinstance(v, AssistantTurnSpec) or (isinstance(v, dict) and "assistant" in v and "user" not in v)
        else "~user"
    )


TurnSpec = Annotated[
    Union[Annotated[UserTurnSpec, Tag("~user")], Annotated[AssistantTurnSpec, Tag("~assistant")]],
    Discriminator(_turn_kind),
]


class CaseSpec(Strict):
    id: str = Field(min_length=1)
    description: str = ""
    input: Any = None
    checks: list[CheckSpec] = Field(default_factory=list, description="Every one must pass.")
    rubric: CaseRubric = Field(
        default_factory=list,
        description="Items scored for the pass rate; or the name of a rubric under the suite's `rubrics`.",
    )
    repeats: int | None = Field(default=None, ge=1, le=100)
    pass_all: bool | None = Field(
        default=None,
        description="Fail the case unless every one of its runs passes (pass^k); default: the suite's `pass_all`.",
    )
    fields: list[str] | None = Field(default=None, description="Fields to extract (default: all).")
    tool_results: dict[str, Any] = Field(
        default_factory=dict,
        description=(
            "Scripted answers of the prompt target's tools for this case: tool name -> the result of every call, or "
            "a list of `{arguments: {...}, result: ...}` / `{arguments: ..., error: ...}` entries, the first whose "
            "arguments are all in the call answering it (an entry without `arguments` answers any call)."
        ),
    )
    tags: list[str] = Field(default_factory=list, description="Names `--tag` selects the case by (e.g. pr).")
    skip: str | None = Field(default=None, description="Reason to skip this case.")
    conversation: list[TurnSpec] | None = Field(
        default=None,
        description=(
            "A multi-turn case: user turns (each a call of the target with the conversation so far) and scripted "
            "assistant turns; the case's own checks and rubric score the final reply."
        ),
    )

    @field_validator("tags")
    @classmethod
    def _plain_tags(cls, v: list[str]) -> list[str]:
        return plain_tags(v)

    @field_validator("conversation")
    @classmethod
    def _ends_with_user(cls, v: list[Any] | None) -> list[Any] | None:
        if v is not None and not any(isinstance(t, UserTurnSpec) for t in v):
            raise ValueError("a conversation needs at least one `user:` turn")
        if v and not isinstance(v[-1], UserTurnSpec):
            raise ValueError("a conversation ends with a `user:` turn (its reply is the case's output)")
        return v

    @field_validator("id")
    @classmethod
    def _printable_id(cls, v: str) -> str:
        if _PLAIN_ID.fullmatch(v):  # every id of a good suite: one match, no closer look
            if not v.isascii():
                _one_script(v)
            return v
        if any(c.isspace() for c in v):
            raise ValueError("a case id may not contain white space")
        # Ids name files and URL fragments: plain names, `/` only between them (no `..`, no `\\`).
        if not all(_PLAIN_NAME.fullmatch(part) for part in v.split("/")):
            raise ValueError(
                f"case id {v!r} is not a plain name: use letters, digits and _ . - @ + : =, with `/` only between names"
            )
        return v


_TAG = re.compile(r"\w[\w.-]*")


def plain_tags(tags: list[str]) -> list[str]:
    """Tags as written, each a plain name (`--tag` and the Action's `tags:` input name them)."""
    bad = [t for t in tags if not _TAG.fullmatch(t)]
    if bad:
        raise ValueError(f"tag {bad[0]!r} is not a plain name: use letters, digits and _ . -")
    return tags


class FieldRef(Strict):
    case: str | None = None
    field: str | None = None
    fact: str | None = None
    value: Any = None

    @model_validator(mode="after")
    def _shape(self) -> "FieldRef":
        if self.value is not None:
            if self.case or self.field or self.fact:
                raise ValueError("a constant `value` stands alone")
        elif not self.case or (self.field is None) == (self.fact is None):
            raise ValueError("refer to `case` plus one of `field` or `fact`, or give a `value`")
        return self


class CompareSpec(Strict):
    """A check across cases on extracted fields, e.g. one runner's volume below another's."""

    id: str
    text: str | None = None
    left: FieldRef
    op: Literal["<", "<=", ">", ">=", "==", "!=", "within"]
    right: FieldRef
    tolerance: float = Field(default=0.1, ge=0, description="Relative tolerance for `within`.")


GoldLabel = Literal["pass", "fail", "n/a"]


class Thresholds(Strict):
    rubric: float = Field(default=0.8, ge=0, le=1, description="Minimum rubric pass rate per case.")
    agreement: float = Field(default=0.8, ge=0, le=1, description="Minimum field agreement per case.")


class CalibrationBar(Strict):
    """What `evalkit calibrate` requires of the judge and the extraction on the gold outputs (exit 1 below it)."""

    min_agreement: float | None = Field(
        default=None, ge=0, le=1, description="Of every judge item (errors count as disagreements)."
    )
    max_flip_rate: float | None = Field(default=None, ge=0, le=1, description="Of every judge item.")
    min_kappa: float | None = Field(
        default=None,
        ge=-1,
        le=1,
        description="Cohen's kappa of the judge over every gold label (errors count as disagreements).",
    )
    min_item_kappa: float | None = Field(
        default=None,
        ge=-1,
        le=1,
        description="Cohen's kappa of the judge on each item's own gold labels (when they hold both verdicts).",
    )
    max_error_share: float | None = Field(
        default=None,
        ge=0,
        le=1,
        description="Share of judge verdicts and extractions that were errors (no verdict, a malformed reply).",
    )
    min_extraction_accuracy: float | None = Field(
        default=None, ge=0, le=1, description="Of every extracted field against the gold values."
    )


class Timeouts(Strict):
    target: float = Field(
        default=DEFAULT_TARGET_TIMEOUT,
        gt=0,
        description="Seconds one run of the target may take before it is an error row.",
    )
    check: float = Field(
        default=DEFAULT_CHECK_TIMEOUT,
        gt=0,
        description="Seconds one check from a plugin may take before it is an error row.",
    )
    judge: float = Field(
        default=DEFAULT_JUDGE_TIMEOUT,
        gt=0,
        description="Seconds one judge or extraction call "
        "may take in all, retries included, before it is an error row.",
    )


class JudgeThinking(Strict):
    """The judge thinks before its verdicts: adaptive thinking at an `effort` level where the judge model
    takes it, else extended thinking with `budget_tokens` (or a budget for the effort level)."""

    effort: EffortLevel | None = Field(default=None, description="How hard the judge thinks (low ... max).")
    budget_tokens: int | None = Field(
        default=None,
        description="Tokens the judge may think with, on a model "
        "that takes a budget (at least 1024); billed as output tokens.",
    )

    @field_validator("budget_tokens")
    @classmethod
    def _at_least_the_api_minimum(cls, v: int | None) -> int | None:
        if v is not None and v < 1024:
            raise ValueError(f"budget_tokens {v} is below 1024, the least the API takes")
        return v

    @model_validator(mode="after")
    def _something(self) -> "JudgeThinking":
        if self.effort is None and self.budget_tokens is None:
            raise ValueError("judge_thinking needs `effort` (low, medium, high, xhigh, max) or `budget_tokens`")
        return self


class ModelTiers(Strict):
    high: str | None = None
    low: str | None = None


class SuiteSpec(Strict):
    """A suite file: cases plus how to run and score them."""

    name: str | None = None
    description: str = ""
    target: TargetSpec | None = None
    model: str | None = Field(default=None, description="Model for the target's calls.")
    judge_model: str | None = Field(default=None, description=f"Default {DEFAULT_JUDGE_MODEL}.")
    models: ModelTiers = Field(default_factory=ModelTiers)
    compare_models: list[str] = Field(
        default_factory=list,
        description="Run the cases once per model, side by "
        "side (the judge stays the same); `--model` twice does the same.",
    )
    max_tokens: int = Field(default=1024, gt=0)
    max_cost: float | None = Field(
        default=None,
        description="A budget in US dollars: the run stops sending "
        "model calls before it passes it (`--max-cost` wins).",
    )
    complete: bool = Field(
        default=True,
        description="A run whose output stopped at max_tokens fails the built-in `complete` check; false to allow it.",
    )
    temperature: float | None = Field(default=None, ge=0, le=1)
    repeats: int = Field(default=1, ge=1, le=100)
    pass_all: bool = Field(
        default=False,
        description="A case with repeats fails unless every one of its runs "
        "passes on its own (pass^k), not only its pass rate.",
    )
    judge_repeats: int = Field(
        default=1,
        ge=1,
        le=20,
        description="Ask the judge N times per run and take the majority of each item's verdicts.",
    )
    confirm_failures: int = Field(0, ge=0, le=20, description="Judge a failed item N more times; majority decides.")
    judge_thinking: JudgeThinking | None = Field(
        default=None,
        description="The judge thinks before its verdicts: "
        "`effort: low|medium|high|xhigh|max` (adaptive thinking), or "
        "`budget_tokens: N` where the judge model takes a budget.",
    )
    watch: list[str] = Field(default_factory=list, description="Globs whose change triggers the suite.")
    tags: list[str] = Field(default_factory=list, description="Tags of every case, beside each case's own.")
    thresholds: Thresholds = Field(default_factory=Thresholds)
    timeout: Timeouts = Field(default_factory=Timeouts)
    tolerance: float = Field(default=0.10, ge=0, description="Relative tolerance for number agreement.")
    calibration: CalibrationBar | None = None
    inconclusive: Literal["fail", "warn", "pass"] = Field(
        default="warn", description="What a case whose pass-rate interval straddles the threshold does to the verdict."
    )
    missing: Literal["disagree", "ignore"] = Field(
        default="disagree", description="A field no run states: counts as a disagreement, or is left out of the share."
    )
    plugins: list[str] = Field(default_factory=list, description="Modules that register checks.")
    check_defaults: dict[str, dict[str, Any]] = Field(
        default_factory=dict, description="Default arguments per check type."
    )
    fields: dict[str, FieldSpec] = Field(default_factory=dict)
    checks: list[CheckSpec] = Field(default_factory=list, description="Applied to every case.")
    rubrics: dict[str, RubricSpec] = Field(default_factory=dict)
    compare: list[CompareSpec] = Field(default_factory=list)
    gold: list[dict[str, Any]] | str | None = Field(
        default=None, description="Gold-labelled outputs, or a glob of YAML files holding them, relative to this file."
    )
    cases: list[CaseSpec] | str = Field(
        description="The cases, or the path of a fixture list (a YAML list of cases) relative to this file."
    )

    @field_validator("tags")
    @classmethod
    def _plain_tags(cls, v: list[str]) -> list[str]:
        return plain_tags(v)

    @field_validator("max_cost", mode="before")
    @classmethod
    def _an_amount(cls, v: Any) -> Any:
        if v is None:
            return v
        amount = max_cost_problem(v)
        if isinstance(amount, str):
            raise ValueError(amount)
        return amount

    @field_validator("cases")
    @classmethod
    def _some_cases(cls, v: list[CaseSpec] | str) -> list[CaseSpec] | str:
        if isinstance(v, list) and not v:
            raise ValueError("a suite needs at least one case")
        return v
