"""Model end of life: a run naming a retired model stops before any call (exit 2); one retiring
within `WARN_DAYS` warns; `evalkit models` lists what is known and where each date came from.

Where the dates come from, best first:
1. the API itself (`GET /v1/models`, through the SDK's public `models.list()`), when a key is
   set; its answer is kept for a day in `models.json` beside the response cache;
2. evalkit's own dated table, `lifecycle.json` (Anthropic's published deprecations), refreshed
   by `scripts/refresh_lifecycle.py`.
No SDK internals are read: the SDK's own deprecation table is private and moves between
releases, so it is not consulted."""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass, field
from datetime import date, datetime
from importlib import resources
from pathlib import Path
from typing import Any, Callable, Collection, Iterable, Mapping

from evalkit.errors import UsageError
from evalkit.llm.pricing import cost_usd

WARN_DAYS = 30
API_CACHE_FILE = "models.json"
API_CACHE_SECONDS = 24 * 3600
_ORDINAL = re.compile(r"(\d+)(st|nd|rd|th)\b")


class RetiredModelError(UsageError):
    """A model past its end-of-life date."""


def today() -> date:
    """The date retirement is judged on (tests replace it)."""
    return date.today()


def parse_end_of_life(text: str) -> date | None:
    """An ISO date (or date-time), or "November 30th, 2026"; None when written another way."""
    text = text.strip()
    try:
        return date.fromisoformat(text[:10])
    except ValueError:
        pass
    try:
        return datetime.strptime(_ORDINAL.sub(r"\1", text), "%B %d, %Y").date()
    except ValueError:
        return None


@dataclass(frozen=True)
class Lifecycle:
    """What is known of one model's life: its state, end-of-life date, and where that came from."""

    model: str
    state: str  # active | deprecated | retired
    retires_at: date | None
    source: str

    def retired_on(self, on: date) -> bool:
        return self.state == "retired" or (self.retires_at is not None and self.retires_at <= on)


def bundled() -> tuple[dict[str, Lifecycle], str]:
    """evalkit's own table and the date it was made."""
    raw = json.loads(resources.files("evalkit.llm").joinpath("lifecycle.json").read_text(encoding="utf-8"))
    source = f"evalkit table {raw['as_of']}"
    return {model: _entry(model, info, source) for model, info in raw["models"].items()}, raw["as_of"]


def _entry(model: str, info: Mapping[str, Any], source: str) -> Lifecycle:
    retires = info.get("retires_at")
    state = str(info.get("lifecycle") or "active")
    return Lifecycle(model, state, parse_end_of_life(str(retires)) if retires else None, source)


def read_api_answer(cache_dir: Path, *, now: float | None = None) -> tuple[dict[str, dict[str, Any]], str] | None:
    """The API's answer saved less than a day ago (model id to what `fetch_lifecycles` keeps) and
    where it came from, or None (absent, stale or unreadable)."""
    try:
        raw = json.loads((cache_dir / API_CACHE_FILE).read_text(encoding="utf-8"))
        fetched = float(raw["fetched_at"])
        models = raw["models"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if not isinstance(models, dict) or not 0 <= (now or time.time()) - fetched < API_CACHE_SECONDS:
        return None
    source = f"API {datetime.fromtimestamp(fetched).date().isoformat()}"
    return {str(m): info for m, info in models.items() if isinstance(info, dict)}, source


def read_api_cache(cache_dir: Path, *, now: float | None = None) -> dict[str, Lifecycle] | None:
    """The API's lifecycles saved less than a day ago, or None (absent, stale or unreadable)."""
    answer = read_api_answer(cache_dir, now=now)
    return _lifecycles(*answer) if answer is not None else None


def _lifecycles(models: Mapping[str, Mapping[str, Any]], source: str) -> dict[str, Lifecycle]:
    """The lifecycles in an answer of the API (model id to what `fetch_lifecycles` keeps)."""
    return {m: _entry(m, info, source) for m, info in models.items()}


def write_api_cache(cache_dir: Path, models: Mapping[str, Mapping[str, Any]], *, now: float | None = None) -> None:
    """Save the API's answer (model id to `lifecycle` and `retires_at`) for a day; a failure to write is ignored."""
    try:
        cache_dir.mkdir(parents=True, exist_ok=True)
        tmp = cache_dir / f".{API_CACHE_FILE}.tmp"
        tmp.write_text(json.dumps({"fetched_at": now or time.time(), "models": models}), encoding="utf-8")
        tmp.replace(cache_dir / API_CACHE_FILE)
    except OSError:
        pass


Fetch = Callable[[], Mapping[str, Mapping[str, Any]]]


class LifecycleTable:
    """The lifecycles a run judges its models by: the API's (fetched at most once a day) over evalkit's table."""

    def __init__(self, cache_dir: Path | None = None, fetch: Fetch | None = None):
        self._cache_dir = cache_dir
        self._fetch = fetch
        self._known: dict[str, Lifecycle] | None = None
        self._answer: tuple[dict[str, dict[str, Any]], str] | None = None  # the API's, as read
        self.note: str | None = None  # why the API was not consulted, when it was wanted

    def known(self) -> dict[str, Lifecycle]:
        if self._known is None:
            self._known = self._load()
        return self._known

    def api_answer(self) -> tuple[dict[str, dict[str, Any]], str] | None:
        """The API's answer this table was read from (model id to what `fetch_lifecycles` keeps, e.g.
        its capabilities) and where it came from; None when the API was not or could not be asked."""
        self.known()
        return self._answer

    def _load(self) -> dict[str, Lifecycle]:
        table, as_of = bundled()
        self._answer = read_api_answer(self._cache_dir) if self._cache_dir is not None else None
        if self._answer is None and self._fetch is not None:
            try:
                answer = self._fetch()
            except Exception as exc:  # noqa: BLE001 - offline or refused: the table still decides
                self.note = (
                    f"model lifecycles could not be read from the API ({' '.join(str(exc).split())[:200]}); "
                    f"judged by evalkit's table of {as_of}"
                )
            else:
                if self._cache_dir is not None:
                    write_api_cache(self._cache_dir, answer)
                self._answer = ({m: dict(info) for m, info in answer.items()}, f"API {today().isoformat()}")
        # The API may stop listing a model once it is retired: the table keeps those.
        return {**table, **(_lifecycles(*self._answer) if self._answer is not None else {})}

    def end_of_life(self) -> dict[str, str]:
        """Model id to ISO end-of-life date, for every model deprecated or retired."""
        return {
            m: (e.retires_at.isoformat() if e.retires_at else "retired")
            for m, e in self.known().items()
            if e.state != "active" or e.retires_at is not None
        }


def refuse_retired(
    models: Iterable[str], deprecated: Mapping[str, str], on: date | None = None, judge_only: Collection[str] = ()
) -> None:
    """RetiredModelError naming the first of `models` past its end of life, and the option that
    chooses it: `judge_only` models are the judge's, set by --judge-model or `judge_model:`. (A model
    retiring later is warned about by the client when it is called, with its date.)"""
    on = on or today()
    for model in dict.fromkeys(models):
        if model not in deprecated:
            continue
        option = "--judge-model or `judge_model:`" if model in judge_only else "--model or `model:`"
        eol = parse_end_of_life(deprecated[model])
        if eol is None and deprecated[model] == "retired":
            raise RetiredModelError(
                f"model {model} is retired: choose a current one (`evalkit models` lists "
                f"them) and pass it with {option}"
            )
        if eol is not None and eol <= on:
            raise RetiredModelError(
                f"model {model} reached end of life on {eol.isoformat()}: choose a current "
                f"one (`evalkit models` lists them) and pass it with {option}"
            )


def suite_models(
    suites: Iterable[Any], model: str | None = None, judge_model: str | None = None, extra: Iterable[str] = ()
) -> list[str]:
    """Every model a run of `suites` names: each tier as resolved, prompt targets' own, and `extra`."""
    found: dict[str, None] = dict.fromkeys(extra)
    for suite in suites:
        found.update(dict.fromkeys(suite.tier_models(model, judge_model).values()))
        if suite.target is not None and suite.target.model and not model:
            found[suite.target.model] = None
    return list(found)


def judge_only_models(suites: Iterable[Any], model: str | None = None, judge_model: str | None = None) -> set[str]:
    """The models a run of `suites` names only for the judge (the `low` tier), for no target."""
    judge: set[str] = set()
    others: set[str] = set()
    for suite in suites:
        tiers = suite.tier_models(model, judge_model)
        judge.add(tiers["low"])
        others.update(m for tier, m in tiers.items() if tier != "low")
        if suite.target is not None and suite.target.model and not model:
            others.add(suite.target.model)
    return judge - others


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
    source: str = ""
    retired: bool = False
    # How evalkit asks the model (`evalkit models`' columns: the verdict's route, thinking by default,
    # sampling parameters, Legacy), as the command works them out from the model's capabilities.
    asked: Mapping[str, str] = field(default_factory=dict)

    def status(self, on: date) -> str:
        if self.retired or (self.end_of_life is not None and self.end_of_life <= on):
            return f"retired {self.end_of_life.isoformat()}" if self.end_of_life else "retired"
        if self.end_of_life is None:
            return "current"
        return f"retires {self.end_of_life.isoformat()} (in {(self.end_of_life - on).days} days)"


ASKED_COLUMNS = ("verdict asked by", "thinks by default", "sampling", "legacy")


def known_models(
    table: LifecycleTable, current: Iterable[str] = (), asked: Callable[[str], Mapping[str, str]] | None = None
) -> list[ModelInfo]:
    """Every model `table` knows, plus `current` ids (e.g. the SDK's public `anthropic.types.Model`) as active;
    `asked`: a model's `ASKED_COLUMNS` (how evalkit asks it, from its capabilities)."""
    known = table.known()
    names = list(dict.fromkeys([*current, *known]))
    out = []
    for m in names:
        entry = known.get(m)
        out.append(
            ModelInfo(
                m,
                entry.retires_at if entry else None,
                price_per_mtok(m),
                entry.source if entry else "SDK model list",
                retired=entry is not None and entry.state == "retired",
                asked=asked(m) if asked is not None else {},
            )
        )
    return out


def models_table(models: list[ModelInfo], on: date | None = None, *, include_retired: bool = False) -> str:
    """One line per model: id, status, $ per million input / output tokens, how evalkit asks it for a
    verdict, whether it thinks by default, whether it takes sampling parameters, whether Anthropic
    calls it Legacy, and where its dates came from."""
    on = on or today()
    rows = [
        (
            m.model,
            m.status(on),
            f"${m.price[0]:g} / ${m.price[1]:g}" if m.price else "unknown",
            *(m.asked.get(c, "unknown") for c in ASKED_COLUMNS),
            m.source,
        )
        for m in sorted(models, key=lambda m: (m.end_of_life is not None, m.model))
        if include_retired or not m.status(on).startswith("retired")
    ]
    rows.insert(0, ("model", "status", "price per MTok in / out", *ASKED_COLUMNS, "dates from"))
    last = len(rows[0]) - 1
    widths = [max(len(r[i]) for r in rows) for i in range(last)]
    return (
        "\n".join("  ".join([*(cell.ljust(w) for cell, w in zip(row, widths)), row[last]]).rstrip() for row in rows)
        + "\n"
    )
