"""Model end of life: a run naming a model the SDK's deprecation table says is retired stops
before any call (exit 2); one retiring within `WARN_DAYS` warns; `evalkit models` lists what
the installed SDK knows."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any, Iterable, Mapping

from evalkit.errors import UsageError
from evalkit.pricing import cost_usd

WARN_DAYS = 30
_ORDINAL = re.compile(r"(\d+)(st|nd|rd|th)\b")


class RetiredModelError(UsageError):
    """A model past its end-of-life date."""


def today() -> date:
    """The date retirement is judged on (tests replace it)."""
    return date.today()


def parse_end_of_life(text: str) -> date | None:
    """The SDK writes "November 30th, 2026"; None when a date is written another way."""
    cleaned = _ORDINAL.sub(r"\1", text.strip())
    for fmt in ("%B %d, %Y", "%Y-%m-%d"):
        try:
            return datetime.strptime(cleaned, fmt).date()
        except ValueError:
            continue
    return None


def refuse_retired(models: Iterable[str], deprecated: Mapping[str, str], on: date | None = None) -> None:
    """RetiredModelError naming the first of `models` past its end of life. (A model retiring later
    is warned about by the client when it is called, with its date.)"""
    on = on or today()
    for model in dict.fromkeys(models):
        eol = parse_end_of_life(deprecated[model]) if model in deprecated else None
        if eol is not None and eol <= on:
            raise RetiredModelError(f"model {model} reached end of life on {eol.isoformat()}: choose a current "
                                    "one (`evalkit models` lists them) and pass it with --model or `model:`")


def suite_models(suites: Iterable[Any], model: str | None = None, judge_model: str | None = None,
                 extra: Iterable[str] = ()) -> list[str]:
    """Every model a run of `suites` names: each tier as resolved, prompt targets' own, and `extra`."""
    found: dict[str, None] = dict.fromkeys(extra)
    for suite in suites:
        found.update(dict.fromkeys(suite.tier_models(model, judge_model).values()))
        if suite.target is not None and suite.target.model and not model:
            found[suite.target.model] = None
    return list(found)


def price_per_mtok(model: str) -> tuple[float, float] | None:
    """Dollars per million input and output tokens at the standard tier (a short prompt)."""
    per_k_in, per_k_out = cost_usd(model, 1000, 0), cost_usd(model, 0, 1000)
    if per_k_in is None or per_k_out is None:
        return None
    return round(per_k_in * 1000, 4), round(per_k_out * 1000, 4)


@dataclass(frozen=True)
class ModelInfo:
    model: str
    end_of_life: date | None
    price: tuple[float, float] | None

    def status(self, on: date) -> str:
        if self.end_of_life is None:
            return "current"
        if self.end_of_life <= on:
            return f"retired {self.end_of_life.isoformat()}"
        return f"retires {self.end_of_life.isoformat()} (in {(self.end_of_life - on).days} days)"


def known_models() -> list[ModelInfo]:
    """The model ids the installed anthropic SDK names, and the ones its deprecation table lists."""
    import typing

    # anthropic loads only for `evalkit models`
    from anthropic.resources.messages.messages import DEPRECATED_MODELS
    from anthropic.types import Model

    names: list[str] = []
    for arg in typing.get_args(Model):
        names += [a for a in typing.get_args(arg) if isinstance(a, str)]
    names += [m for m in DEPRECATED_MODELS if m not in names]
    return [ModelInfo(m, parse_end_of_life(DEPRECATED_MODELS[m]) if m in DEPRECATED_MODELS else None,
                      price_per_mtok(m))
            for m in names]


def models_table(models: list[ModelInfo], on: date | None = None, *, include_retired: bool = False) -> str:
    """One line per model: id, status, $ per million input / output tokens."""
    on = on or today()
    rows = [(m.model, m.status(on), f"${m.price[0]:g} / ${m.price[1]:g}" if m.price else "unknown")
            for m in sorted(models, key=lambda m: (m.end_of_life is not None, m.model))
            if include_retired or m.end_of_life is None or m.end_of_life > on]
    rows.insert(0, ("model", "status", "price per MTok in / out"))
    widths = [max(len(r[i]) for r in rows) for i in range(2)]
    return "\n".join(f"{a.ljust(widths[0])}  {b.ljust(widths[1])}  {c}" for a, b, c in rows) + "\n"
