"""Checks on the text or the list of messages a target returned."""

from __future__ import annotations

import json
import re
from collections import Counter
from typing import Any, Literal

import regex
from pydantic import Field, field_validator, model_validator

from evalkit.checks.base import Check, CheckContext, Outcome, out_of_range
from evalkit.limits import REGEX_TIMEOUT


def messages_of(output: Any) -> list[str]:
    """A list of messages: a list as it is, a `messages` field, a JSON list, or lines."""
    if isinstance(output, (list, tuple)):
        return [str(m) for m in output]
    if isinstance(output, dict) and isinstance(output.get("messages"), list):
        return [str(m) for m in output["messages"]]
    messages = getattr(output, "messages", None)
    if isinstance(messages, (list, tuple)):
        return [str(m) for m in messages]
    if isinstance(output, str):
        try:
            parsed = json.loads(output)
        except ValueError:
            parsed = None
        if isinstance(parsed, list):
            return [str(m) for m in parsed]
        return [line.strip() for line in output.splitlines() if line.strip()]
    raise ValueError(f"output is not a list of messages (got {type(output).__name__})")


class Count(Check):
    """The output holds `expected` messages (or between `min` and `max`)."""

    type = "count"
    expected: int | None = None
    min: int | None = None
    max: int | None = None

    @model_validator(mode="after")
    def _some_bound(self) -> "Count":
        if self.expected is None and self.min is None and self.max is None:
            raise ValueError("count needs `expected`, `min` or `max`")
        return self

    def evaluate(self, ctx: CheckContext) -> Outcome:
        n = len(messages_of(ctx.output))
        if self.expected is not None and n != self.expected:
            return Outcome(False, f"{n} messages, expected {self.expected}")
        beyond = out_of_range(n, self.min, self.max)
        return Outcome(beyond is None, f"{n} messages" + (f", {beyond}" if beyond else ""))


class MaxWords(Check):
    """Every message has at most `per_message` words."""

    type = "max_words"
    per_message: int = Field(gt=0)

    def evaluate(self, ctx: CheckContext) -> Outcome:
        long = [(i, m) for i, m in enumerate(messages_of(ctx.output), 1) if len(m.split()) > self.per_message]
        if long:
            shown = "; ".join(f"#{i} has {len(m.split())} words: {m[:60]!r}" for i, m in long[:3])
            more = f" (and {len(long) - 3} more)" if len(long) > 3 else ""
            return Outcome(False, f"{len(long)} message(s) over {self.per_message} words: {shown}{more}")
        return Outcome(True, f"all messages within {self.per_message} words")


def _same_form(message: str) -> str:
    """A message as compared for sameness: case, punctuation and spacing ignored."""
    return " ".join(regex.sub(r"[^\w\s]", " ", message.casefold()).split())


class Distinct(Check):
    """No message occurs more than `max_repeats` times (case, punctuation and spacing ignored)."""

    type = "distinct"
    max_repeats: int = Field(default=1, ge=1)

    def evaluate(self, ctx: CheckContext) -> Outcome:
        messages = messages_of(ctx.output)
        counts = Counter(_same_form(m) for m in messages)
        repeated = [(m, n) for m, n in counts.most_common() if n > self.max_repeats]
        summary = f"{len(counts)} distinct of {len(messages)} messages"
        if repeated:
            shown = "; ".join(f"{m[:40]!r} x{n}" for m, n in repeated[:3])
            more = f" (and {len(repeated) - 3} more)" if len(repeated) > 3 else ""
            return Outcome(False, f"{summary}; repeated more than {self.max_repeats}x: {shown}{more}")
        return Outcome(True, summary)


def _apostrophes(text: str) -> str:
    return text.replace("\u2019", "'").replace("\u2018", "'")


class ForbiddenPhrases(Check):
    """No message uses any of `phrases`: whole words, any case, a trailing `*` matching any word ending.

    Meant for apologies and promises in any language ("sorry", "promis*", "garantiz*"); unlike
    `not_contains`, "promise" does not match "compromise", and each message is reported."""

    type = "forbidden_phrases"
    phrases: list[str] = Field(min_length=1)

    @field_validator("phrases")
    @classmethod
    def _words(cls, v: list[str]) -> list[str]:
        if any(not p.strip() or "*" in p.rstrip("*") for p in v):
            raise ValueError("phrases must be non-empty; `*` is allowed only at the end of one")
        return v

    def _pattern(self) -> regex.Pattern[str]:
        alternatives = [
            regex.escape(_apostrophes(p.strip().rstrip("*"))).replace("\\ ", r"\s+")
            + (r"\w*" if p.strip().endswith("*") else "")
            for p in self.phrases
        ]
        return regex.compile(r"(?<!\w)(?:" + "|".join(alternatives) + r")(?!\w)", regex.IGNORECASE)

    def evaluate(self, ctx: CheckContext) -> Outcome:
        try:
            messages = messages_of(ctx.output)
        except ValueError:  # not a list of messages: the whole text is one
            messages = [ctx.text]
        pattern = self._pattern()
        hits = [
            (i, m, found.group(0))
            for i, m in enumerate(messages, 1)
            if (found := pattern.search(_apostrophes(m), timeout=REGEX_TIMEOUT))
        ]
        if hits:
            shown = "; ".join(f"#{i} {m[:50]!r} says {word!r}" for i, m, word in hits[:3])
            more = f" (and {len(hits) - 3} more)" if len(hits) > 3 else ""
            return Outcome(False, f"{len(hits)} message(s) use a forbidden phrase: {shown}{more}")
        return Outcome(True, f"none of {len(self.phrases)} forbidden phrases used")


class _TextCheck(Check):
    ignore_case: bool = False

    def _norm(self, s: str) -> str:
        return s.casefold() if self.ignore_case else s


class Equals(_TextCheck):
    """The output text, stripped, equals `value`."""

    type = "equals"
    value: str

    def evaluate(self, ctx: CheckContext) -> Outcome:
        got = ctx.text.strip()
        if self._norm(got) == self._norm(self.value.strip()):
            return Outcome(True, "equal")
        return Outcome(False, f"got {got[:80]!r}, expected {self.value[:80]!r}")


class Contains(_TextCheck):
    """The output text contains `value` (or every one of `values`)."""

    type = "contains"
    value: str | None = None
    values: list[str] = []

    @model_validator(mode="after")
    def _one(self) -> "Contains":
        if (self.value is None) == (not self.values):
            raise ValueError(f"{self.type} needs exactly one of `value` or `values`")
        return self

    def _split(self, ctx: CheckContext) -> tuple[list[str], list[str]]:
        """The wanted strings the text contains, and those it lacks."""
        text = self._norm(ctx.text)
        wanted = [self.value] if self.value is not None else list(self.values)
        found = [v for v in wanted if self._norm(v) in text]
        return found, [v for v in wanted if v not in found]

    def evaluate(self, ctx: CheckContext) -> Outcome:
        found, missing = self._split(ctx)
        if missing:
            return Outcome(False, "missing " + _quoted(missing))
        return Outcome(True, "contains " + _quoted(found))


class NotContains(Contains):
    """The output text contains none of `value` / `values`."""

    type = "not_contains"

    def evaluate(self, ctx: CheckContext) -> Outcome:
        found, missing = self._split(ctx)
        if found:
            return Outcome(False, "contains " + _quoted(found))
        return Outcome(True, "contains none of " + _quoted(missing))


def _quoted(values: list[str]) -> str:
    return ", ".join(repr(v) for v in values)


class Regex(_TextCheck):
    """The output text matches `pattern` (searched; `match: false` requires no match)."""

    type = "regex"
    pattern: str
    match: bool = True

    @field_validator("pattern")
    @classmethod
    def _compiles(cls, v: str) -> str:
        try:
            regex.compile(v)
        except regex.error as exc:
            raise ValueError(f"invalid regular expression: {exc}") from None
        return v

    def evaluate(self, ctx: CheckContext) -> Outcome:
        found = limited_regex(self.pattern, ctx.text, regex.IGNORECASE if self.ignore_case else 0)
        if found and self.match:
            return Outcome(True, f"matches at {found.start()}: {found.group(0)[:60]!r}")
        if not found and not self.match:
            return Outcome(True, f"no match for /{self.pattern}/ as required")
        if found:
            return Outcome(False, f"unexpected match: {found.group(0)[:60]!r}")
        return Outcome(False, f"no match for /{self.pattern}/")


class Json(Check):
    """The output parses as JSON and, with `schema`, validates against that JSON Schema."""

    type = "json"
    json_schema: dict[str, Any] | None = Field(default=None, alias="schema")

    @field_validator("json_schema")
    @classmethod
    def _valid_schema(cls, v: dict[str, Any] | None) -> dict[str, Any] | None:
        if v is not None:
            from jsonschema import exceptions, validators  # jsonschema is slow to import; only json checks need it

            try:
                validators.validator_for(v).check_schema(v)
            except exceptions.SchemaError as exc:
                raise ValueError(f"invalid JSON Schema: {exc.message}") from None
        return v

    def evaluate(self, ctx: CheckContext) -> Outcome:
        data = ctx.output
        if isinstance(data, str):
            text = _strip_code_fence(data)
            try:
                data = json.loads(text)
            except ValueError as exc:
                return Outcome(False, f"not JSON: {exc}")
        if self.json_schema is None:
            return Outcome(True, "valid JSON")
        from jsonschema import validators  # jsonschema is slow to import; only json checks need it

        validator = validators.validator_for(self.json_schema)(self.json_schema)
        errors = sorted(validator.iter_errors(data), key=lambda e: list(e.path))
        if errors:
            where = "/".join(str(p) for p in errors[0].path) or "(root)"
            return Outcome(False, f"{len(errors)} schema error(s); first at {where}: {errors[0].message[:200]}")
        return Outcome(True, "valid JSON matching the schema")


def _strip_code_fence(text: str) -> str:
    m = re.fullmatch(r"\s*```[a-zA-Z0-9_-]*\n(.*)\n```\s*", text, re.DOTALL)
    return m.group(1) if m else text


class Length(Check):
    """The output's length in `unit` (chars, words or lines) lies within `min`..`max`."""

    type = "length"
    min: int | None = Field(default=None, ge=0)
    max: int | None = Field(default=None, ge=0)
    unit: Literal["chars", "words", "lines"] = "chars"

    @model_validator(mode="after")
    def _bounds(self) -> "Length":
        if self.min is None and self.max is None:
            raise ValueError("length needs `min` or `max`")
        if self.min is not None and self.max is not None and self.min > self.max:
            raise ValueError(f"length min {self.min} exceeds max {self.max}")
        return self

    def evaluate(self, ctx: CheckContext) -> Outcome:
        text = ctx.text
        n = {"chars": len(text), "words": len(text.split()), "lines": len(text.splitlines())}[self.unit]
        beyond = out_of_range(n, self.min, self.max)
        return Outcome(beyond is None, f"{n} {self.unit}" + (f", {beyond}" if beyond else ""))


# The registry lists these as built-ins (they are not registered by import side effect).
CHECKS = (Count, MaxWords, Distinct, ForbiddenPhrases, Equals, Contains, NotContains, Regex, Json, Length)


def limited_regex(pattern: str, text: str, flags: int = 0, *, full: bool = False) -> Any:
    """`regex.search` (`regex.fullmatch` with `full`) within REGEX_TIMEOUT: the `regex` engine, for its
    time limit, so catastrophic backtracking ends as an error row naming the pattern."""
    try:
        return (regex.fullmatch if full else regex.search)(pattern, text, flags, timeout=REGEX_TIMEOUT)
    except TimeoutError:
        raise TimeoutError(f"regex /{pattern}/ took over {REGEX_TIMEOUT:g} s (catastrophic backtracking?)") from None
