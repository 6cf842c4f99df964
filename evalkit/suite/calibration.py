"""The figures `evalkit calibrate` measured for a suite, in a small JSON file beside it (committed
with the suite), read back so every report of the suite can show them — marked stale when the
suite's judge prompt or gold set is no longer what was measured (by content hash, not file time:
a git checkout resets file times)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from evalkit.suite.model import Suite


class ItemCalibration(BaseModel):
    id: str
    labels: int = 0  # gold outputs with a pass/fail label for this item
    fail_labels: int = 0  # of them labelled fail (κ tells a judge from chance only when both labels occur)
    verdicts: int = 0  # judge verdicts asked for (labels x repeats), errors included
    agreement: float | None = None  # errors count as disagreements
    kappa: float | None = None
    false_pass: int = 0
    false_fail: int = 0
    errors: int = 0
    flip_rate: float | None = None  # share of gold outputs whose verdicts differ across repeats


class FieldCalibration(BaseModel):
    field: str
    compared: int = 0
    accuracy: float | None = None  # a failed extraction counts as wrong
    errors: int = 0


class JudgeFigures(BaseModel):
    """The judge's figures against the gold labels for one kind of verdict; saved as a calibration's
    `confirmed`: the verdicts after the suite's `confirm_failures` re-asked each failed item."""

    confirm_failures: int = 0  # the N each failed item was re-asked with
    confirming_calls: int = 0  # judge calls the confirming made, beyond the single answers
    agreement: float | None = None
    kappa: float | None = None
    kappa_interval: list[float] | None = None
    flip_rate: float | None = None
    labels: int = 0
    verdicts: int = 0
    errors: int = 0
    items: list[ItemCalibration] = Field(default_factory=list)

    def figures(self) -> str:
        if self.agreement is None:
            return f"confirmed ×{self.confirm_failures}: no judge labels measured"
        kappa = f", κ {self.kappa:.2f}" if self.kappa is not None else ""
        ci = (
            f" (95% CI {self.kappa_interval[0]:.2f} to {self.kappa_interval[1]:.2f})"
            if self.kappa is not None and self.kappa_interval
            else ""
        )
        flips = f", flip rate {self.flip_rate:.0%}" if self.flip_rate is not None else ""
        return (
            f"confirmed (confirm_failures: {self.confirm_failures}, {self.confirming_calls} calls more): "
            f"agreement {self.agreement:.0%}{kappa}{ci}{flips}"
        )


class Calibration(BaseModel):
    """What `evalkit calibrate` measured for one suite (saved as JSON beside it)."""

    suite: str
    judge_model: str
    repeats: int
    measured_at: str
    gold_outputs: int
    agreement: float | None = Field(
        default=None, description="Of every judge verdict asked for with its gold label; an error is a disagreement."
    )
    kappa: float | None = Field(
        default=None,
        description="Cohen's kappa over the same pairs (an error is a category of its own, which no label has).",
    )
    kappa_interval: list[float] | None = Field(
        default=None, description="95 % interval of kappa; n is the gold labels, not the verdicts."
    )
    flip_rate: float | None = None
    labels: int = 0
    verdicts: int = 0
    errors: int = Field(default=0, description="Judge verdicts and extractions that gave nothing usable.")
    calls: int = Field(
        default=0,
        description="Judge verdicts (one per label and repeat) plus extractions (one "
        "per gold output and repeat) asked for.",
    )
    items: list[ItemCalibration] = Field(default_factory=list)
    fields: list[FieldCalibration] = Field(default_factory=list)
    confirmed: JudgeFigures | None = Field(
        default=None,
        description="With the suite's confirm_failures: the same "
        "figures for the confirmed verdicts (what "
        "gates a run; the bar holds these).",
    )
    below: list[str] = Field(default_factory=list, description="Items under the suite's calibration bar.")
    short: list[str] = Field(
        default_factory=list,
        description="Why the judge or the extraction falls short of the suite's calibration bar (empty: it does not).",
    )
    judge_prompt_sha256: str | None = Field(
        default=None,
        description="Hash of what the judge and the extraction "
        "were asked: every judge criterion and the "
        "field specs (see `fingerprints`).",
    )
    gold_sha256: str | None = Field(
        default=None,
        description="Hash of the gold set measured: each entry's case, "
        "output, labels, fields, facts and recorded extraction.",
    )

    @property
    def error_share(self) -> float | None:
        return self.errors / self.calls if self.calls else None

    @property
    def chance(self) -> str:
        """ "no better than chance" (κ ≤ 0), "cannot be told from chance" (its interval reaches 0), or ""."""
        if self.kappa is None:
            return ""
        if self.kappa <= 0:
            return "no better than chance"
        if self.kappa_interval and self.kappa_interval[0] <= 0:
            return f"cannot be told from chance with {self.labels} labels"
        return ""

    def summary(self) -> str:
        figures = self.figures()
        if self.short:
            return "below the calibration bar: " + "; ".join(self.short) + " — " + figures
        return figures

    def figures(self) -> str:
        share = self.error_share
        errors = f", errors {share:.0%} of {self.calls} verdicts and extractions" if share is not None else ""
        fields = sorted((f for f in self.fields if f.accuracy is not None), key=lambda f: (f.accuracy, f.field))
        extraction = ""
        if len(fields) == 1:
            extraction = f", extraction of {fields[0].field} {fields[0].accuracy:.0%} right"
        elif fields:
            extraction = (
                f", extraction of {len(fields)} fields {fields[0].accuracy:.0%} right at worst ({fields[0].field})"
            )
        when = f"({self.judge_model}, ×{self.repeats}, {self.measured_at[:10]})"
        if self.agreement is None:
            return f"judge: no judge labels measured ({self.gold_outputs} gold outputs){errors}{extraction} {when}"
        kappa = ""
        if self.kappa is not None:
            ci = (
                f" (95% CI {self.kappa_interval[0]:.2f} to {self.kappa_interval[1]:.2f})" if self.kappa_interval else ""
            )
            kappa = f", κ {self.kappa:.2f}{ci}" + (f": {self.chance}" if self.chance else "")
        flips = f", flip rate {self.flip_rate:.0%}" if self.flip_rate is not None and self.repeats > 1 else ""
        confirmed = f"; {self.confirmed.figures()}" if self.confirmed is not None else ""
        return (
            f"judge agreement with {self.labels} gold labels: {self.agreement:.0%} (errors count as "
            f"disagreements){kappa}{errors}{flips}{confirmed}{extraction} {when}"
        )


def calibration_path(suite: Suite) -> Path:
    """`suite.yml` -> `calibration.json`; `x.suite.yml` -> `x.calibration.json`, beside the suite."""
    stem = suite.path.name.split(".")[0]
    return suite.path.with_name("calibration.json" if stem == "suite" else f"{stem}.calibration.json")


def load_calibration(suite: Suite) -> Calibration | None:
    """The suite's saved figures, or None (none saved, or a file that is not one)."""
    path = calibration_path(suite)
    try:
        return Calibration.model_validate_json(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def save_calibration(suite: Suite, calibration: Calibration) -> Path:
    path = calibration_path(suite)
    path.write_text(json.dumps(calibration.model_dump(mode="json"), indent=2) + "\n", encoding="utf-8")
    return path


def _sha256(value: Any) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True, default=str, ensure_ascii=False).encode()).hexdigest()


def fingerprints(suite: Suite) -> tuple[str, str]:
    """(judge prompt hash, gold set hash) of `suite` as it is now: what a calibration measured."""
    criteria = sorted({(it.id, it.judge) for case in suite.cases for it in case.gold_items if it.judge is not None})
    fields = {name: spec.model_dump(mode="json") for name, spec in suite.fields.items()}
    gold = [[g.case_id, g.output, g.labels, g.fields, g.facts, g.extraction] for g in suite.gold]
    prompt: dict[str, Any] = {"criteria": criteria, "fields": fields}
    if suite.judge_thinking is not None:  # a thinking judge is another judge (a suite without it hashes as before)
        prompt["judge_thinking"] = suite.judge_thinking.as_dict()
    return _sha256(prompt), _sha256(gold)


def stale_reasons(suite: Suite, saved: Calibration) -> list[str]:
    """Why `saved` no longer measures `suite` (empty: it still does)."""
    if saved.judge_prompt_sha256 is None or saved.gold_sha256 is None:
        return ["it records no hash of the judge prompt and gold set it measured"]
    prompt, gold = fingerprints(suite)
    measured_confirm = saved.confirmed.confirm_failures if saved.confirmed is not None else 0
    confirm = (
        []
        if measured_confirm == suite.confirm_failures
        else [f"measured with confirm_failures: {measured_confirm}, the suite now has {suite.confirm_failures}"]
    )
    return (
        ([] if saved.judge_prompt_sha256 == prompt else ["the judge prompt changed since"])
        + ([] if saved.gold_sha256 == gold else ["the gold set changed since"])
        + confirm
    )


def calibration_note(suite: Suite) -> str | None:
    """The one line every report of the suite shows, when figures are saved beside it; it starts with
    STALE when the judge prompt or the gold set is no longer the one measured."""
    saved = load_calibration(suite)
    if saved is None:
        return None
    stale = stale_reasons(suite, saved)
    if stale:
        return f"STALE ({'; '.join(stale)}: rerun `evalkit calibrate`) — {saved.summary()}"
    return saved.summary()
