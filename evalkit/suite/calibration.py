"""The figures `evalkit calibrate` measured for a suite, in a small JSON file beside it (committed
with the suite), read back so every report of the suite can show them."""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import BaseModel, Field

from evalkit.suite.model import Suite


class ItemCalibration(BaseModel):
    id: str
    labels: int = 0  # gold outputs with a pass/fail label for this item
    verdicts: int = 0  # judge verdicts compared (labels x repeats)
    agreement: float | None = None
    kappa: float | None = None
    false_pass: int = 0
    false_fail: int = 0
    errors: int = 0
    flip_rate: float | None = None  # share of gold outputs whose verdicts differ across repeats


class FieldCalibration(BaseModel):
    field: str
    compared: int = 0
    accuracy: float | None = None


class Calibration(BaseModel):
    """What `evalkit calibrate` measured for one suite (saved as JSON beside it)."""

    suite: str
    judge_model: str
    repeats: int
    measured_at: str
    gold_outputs: int
    agreement: float | None = None
    kappa: float | None = None
    flip_rate: float | None = None
    labels: int = 0
    items: list[ItemCalibration] = Field(default_factory=list)
    fields: list[FieldCalibration] = Field(default_factory=list)
    below: list[str] = Field(default_factory=list, description="Items under the suite's calibration bar.")

    def summary(self) -> str:
        if self.agreement is None:
            return f"judge: no judge labels measured ({self.gold_outputs} gold outputs)"
        kappa = f", κ {self.kappa:.2f}" if self.kappa is not None else ""
        flips = f", flip rate {self.flip_rate:.0%}" if self.flip_rate is not None and self.repeats > 1 else ""
        return (f"judge agreement with {self.labels} gold labels: {self.agreement:.0%}{kappa}{flips} "
                f"({self.judge_model}, ×{self.repeats}, {self.measured_at[:10]})")


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


def calibration_note(suite: Suite) -> str | None:
    """The one line every report of the suite shows, when figures are saved beside it."""
    saved = load_calibration(suite)
    return saved.summary() if saved is not None else None
