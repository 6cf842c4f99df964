"""A suite's gold outputs as ordinary (non-eval) tests: the code-decided items must agree with each
output's labels, so a suite's checks are proven on every commit, offline."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from evalkit.suite.model import GoldOutput, Suite  # on use: the plugin loads in every pytest run


class GoldDisagrees(Exception):
    """A code-decided item's verdict differs from a gold label, or a recomputed fact or the replayed
    extraction differs from the gold entry."""


class GoldItem(pytest.Item):
    """One gold output of a suite file, checked like `evalkit selftest` checks it."""

    evalkit_selftest = True  # not an eval: selection leaves it alone

    def __init__(self, *, suite: Suite, gold: GoldOutput, **kwargs: Any):
        super().__init__(**kwargs)
        self.suite = suite
        self.gold = gold

    def runtest(self) -> None:
        from evalkit.engine.selftest import check_gold  # on use: the plugin loads in every pytest run

        found = check_gold(self.suite, self.gold)
        if found.disagreements or found.problems:
            raise GoldDisagrees("\n".join([*found.describe_problems(), *(d.describe() for d in found.disagreements)]))

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        if isinstance(excinfo.value, GoldDisagrees):
            return f"gold entry contradicted by the suite's code (facts, extraction or items):\n{excinfo.value}"
        return super().repr_failure(excinfo, style=style)

    def reportinfo(self) -> tuple[Any, int | None, str]:
        return self.gold.file or self.path, (self.gold.line - 1) if self.gold.line else None, self.name
