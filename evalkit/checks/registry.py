"""Which class decides each YAML check `type`, built per suite load.

A suite's registry holds, in this order: the built-in checks; the checks its `plugins:` modules
register; the checks installed packages declare in the `evalkit.checks` entry-point group; and
last, checks registered anywhere else in the process (a conftest, a test module). A type claimed
by two different classes among the first three is an error that names both, so two suites that
each bring their own `tone` check never overwrite each other.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib.metadata import entry_points
from typing import Any

from pydantic import BaseModel, ConfigDict

from evalkit.checks import code, fields, runs, text, trajectory
from evalkit.checks.base import Check

JUDGE_TYPE = "llm_judge"
ENTRY_POINT_GROUP = "evalkit.checks"
BUILTIN_CHECKS: tuple[type[Check], ...] = (*code.CHECKS, *runs.CHECKS, *fields.CHECKS, *text.CHECKS, *trajectory.CHECKS)
_BUILTIN_TYPES = {cls.type: cls for cls in BUILTIN_CHECKS}

# Every class `register_check` has seen, by type, in registration order.
_declared: dict[str, list[type[Check]]] = {}
_entry_point_checks: list[type[Check]] | None = None


class JudgeArgs(BaseModel):
    """The judge model decides whether the output meets `criteria` (batched per case)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    criteria: str


@dataclass(frozen=True)
class JudgeCriterion:
    """A `type: llm_judge` entry: not a check but a criterion for the case's one judge call."""

    criteria: str


def register_check(cls: type[Check]) -> type[Check]:
    """Class decorator: make `cls` available under its `type` in suite files."""
    name = getattr(cls, "type", None)
    if not isinstance(name, str) or not name:
        raise TypeError(f"{cls.__name__} must set a class attribute `type: ClassVar[str]`")
    if name == JUDGE_TYPE or (name in _BUILTIN_TYPES and _BUILTIN_TYPES[name] is not cls):
        raise ValueError(f"check type {name!r} is built in; {_qualified(cls)} must choose another name")
    claimed = _declared.setdefault(name, [])
    # Re-importing a module (pytest's module reloads) re-registers the same class: replace it.
    claimed[:] = [c for c in claimed if _qualified(c) != _qualified(cls)]
    claimed.append(cls)
    return cls


def _qualified(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def _from_module(cls: type, modules: Sequence[str]) -> bool:
    return any(cls.__module__ == m or cls.__module__.startswith(m + ".") for m in modules)


def entry_point_checks() -> list[type[Check]]:
    """Check classes installed packages declare under the `evalkit.checks` entry points (loaded once)."""
    global _entry_point_checks
    if _entry_point_checks is None:
        found: list[type[Check]] = []
        for ep in entry_points(group=ENTRY_POINT_GROUP):
            obj = ep.load()
            classes = (
                [obj]
                if isinstance(obj, type)
                else [
                    v
                    for v in vars(obj).values()
                    if isinstance(v, type) and issubclass(v, Check) and isinstance(vars(v).get("type"), str)
                ]
            )
            found.extend(c for c in classes if issubclass(c, Check))
        _entry_point_checks = found
    return _entry_point_checks


class CheckRegistry(Mapping[str, type[Check]]):
    """The check classes one suite can use, by type; `problems` lists the collisions found."""

    def __init__(self, plugin_modules: Sequence[str] = ()):
        self.problems: list[str] = []
        types: dict[str, type[Check]] = dict(_BUILTIN_TYPES)
        owned: dict[str, type[Check]] = {}
        plugin_classes = [c for claimed in _declared.values() for c in claimed if _from_module(c, plugin_modules)]
        for cls in [*plugin_classes, *entry_point_checks()]:
            other = owned.get(cls.type) or _BUILTIN_TYPES.get(cls.type)
            if other is not None and other is not cls:
                problem = (
                    f"check type {cls.type!r} is registered by both {_qualified(other)} and "
                    f"{_qualified(cls)}; rename one"
                )
                if problem not in self.problems:
                    self.problems.append(problem)
                continue
            owned[cls.type] = types[cls.type] = cls
        for name, claimed in _declared.items():
            ambient = [c for c in claimed if not _from_module(c, plugin_modules)]
            if name not in types and ambient:
                types[name] = ambient[-1]
        self._types = dict(sorted(types.items()))

    def __getitem__(self, name: str) -> type[Check]:
        return self._types[name]

    def __iter__(self) -> Any:
        return iter(self._types)

    def __len__(self) -> int:
        return len(self._types)

    def valid_types(self) -> str:
        return ", ".join(sorted([*self._types, JUDGE_TYPE]))

    def build(self, kind: str, args: Mapping[str, Any]) -> Check | JudgeCriterion:
        """The check (or judge criterion) a YAML entry describes.

        Raises KeyError for an unknown type and pydantic's ValidationError for bad arguments."""
        if kind == JUDGE_TYPE:
            return JudgeCriterion(JudgeArgs.model_validate(dict(args)).criteria)
        if kind not in self._types:
            raise KeyError(kind)
        return self._types[kind].model_validate(dict(args))


def check_types(plugin_modules: Sequence[str] = ()) -> dict[str, type[Check]]:
    """The check classes available to a suite with these plugin modules, by type."""
    return dict(CheckRegistry(plugin_modules))
