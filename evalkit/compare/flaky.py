"""Cases known to be flaky on the default branch (from the history), as the comparison reads them:
a head failure of such a case is "flaky on main (k of n)", not a regression, unless a critical item
or an item that never flipped on main explains it."""

from __future__ import annotations

from typing import Final

from pydantic import BaseModel, Field

FLAKY_CHANGE: Final = "flaky on main"


class FlakyCase(BaseModel):
    """A case whose outcome changed back and forth on the default branch with nothing it depends on
    changed (same suite files, target, models and input)."""

    suite: str
    id: str
    branch: str = "main"
    failed: int = Field(description="Runs of the window the case failed.")
    runs: int = Field(description="Runs in the window: the last N with the latest fingerprint.")
    flips: int = Field(description="Outcome changes between consecutive runs of the window.")
    items: list[str] = Field(default_factory=list, description="Items whose outcome changed in the window.")

    @property
    def flip_rate(self) -> float:
        return self.flips / (self.runs - 1) if self.runs > 1 else 0.0

    @property
    def label(self) -> str:
        """`flaky on main (2 of 10)`: failed in 2 of the last 10 runs."""
        return f"flaky on {self.branch} ({self.failed} of {self.runs})"


FlakyIndex = dict[tuple[str, str], FlakyCase]  # (suite, case id) -> what the history says


def index(cases: list[FlakyCase]) -> FlakyIndex:
    return {(c.suite, c.id): c for c in cases}
