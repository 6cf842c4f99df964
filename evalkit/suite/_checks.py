"""Building a suite's check objects from its `check:` entries, one object per distinct entry."""

from __future__ import annotations

from typing import Any, Callable, Mapping

from pydantic import ValidationError

from evalkit.checks.base import Check
from evalkit.checks.registry import CheckRegistry, JudgeCriterion
from evalkit.suite._validation import clean_loc, pydantic_message
from evalkit.suite.spec import CheckSpec

# Distinct entries remembered per suite: enough for any suite written by hand; a generated suite
# whose every case differs builds each of its checks as before.
_REMEMBERED = 1024


class CheckBuilder:
    """Checks are frozen, so cases written with the same check share one object (a 100,000-case
    suite repeating one check holds it once), and its description is written once. A check class
    a plugin has unfrozen gets an object per case, as before."""

    def __init__(
        self,
        registry: CheckRegistry,
        defaults: Mapping[str, Mapping[str, Any]],
        problem: Callable[[tuple[Any, ...], str, str | None], None],
    ):
        self._registry = registry
        self._defaults = defaults
        self._problem = problem
        self._built: dict[tuple[str, str], Check | JudgeCriterion] = {}
        self._described: dict[int, str] = {}  # by id() of a check in _built (alive, so the id is its own)

    def build(self, cs: CheckSpec, loc: tuple[Any, ...], case_id: str | None) -> Check | JudgeCriterion | None:
        """The check an entry describes, or None after reporting its problems."""
        args = {**self._defaults.get(cs.type, {}), **(cs.model_extra or {})}
        key = (cs.type, repr(args))  # repr tells YAML's values apart (1, 1.0, True, '1', a date)
        if key in self._built:
            return self._built[key]
        try:
            check = self._registry.build(cs.type, args)
        except KeyError:
            self._problem(
                loc + ("type",), f"unknown check type {cs.type!r}; valid types: {self._registry.valid_types()}", case_id
            )
            return None
        except ValidationError as exc:
            for err in exc.errors():
                self._problem(loc + clean_loc(err["loc"]), f"{cs.type}: {pydantic_message(err)}", case_id)
            return None
        # Shared only if frozen: a plugin may unfreeze its check class to keep state per case.
        if len(self._built) < _REMEMBERED and (not isinstance(check, Check) or check.model_config.get("frozen")):
            self._built[key] = check
            if isinstance(check, Check):
                self._described[id(check)] = check.describe()
        return check

    def describe(self, check: Check | JudgeCriterion) -> str:
        if isinstance(check, JudgeCriterion):
            return check.criteria
        return self._described.get(id(check)) or check.describe()
