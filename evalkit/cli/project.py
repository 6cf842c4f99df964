"""The team's project as the CLI sees it: its root, and what `evalkit.yml` (or `[tool.evalkit]` in
`pyproject.toml`) sets — the suites a command runs when none are named, and defaults for options.

    suites: [evals]                      # as the Action reads them: paths, globs, {path, target, watch}
    model: claude-haiku-5-5              # default --model of run and plan
    judge_model: claude-sonnet-5-5       # default --judge-model of run, plan and calibrate
    concurrency: 16                      # default --concurrency of run
    target: my_agent:answer              # default --target of run and validate (fixture lists)
    thresholds: {rubric: 0.9, agreement: 0.8}   # default --rubric-threshold / --agreement-threshold
    python_path: [src]                   # folders (from the root) searched for target modules first

An option given on the command line wins over the file. The root is the nearest folder, from the
current one up, holding `evalkit.yml`, a `pyproject.toml` with `[tool.evalkit]`, or `.git`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evalkit.action.discovery import config_file, discover, read_config
from evalkit.errors import UsageError

# Settings the file may hold beside `suites`, and the command options each one is the default of.
OPTION_DEFAULTS: dict[str, dict[str, str]] = {
    "model": {"run": "models", "plan": "model"},
    "judge_model": {"run": "judge_model", "plan": "judge_model", "calibrate": "judge_model"},
    "concurrency": {"run": "concurrency"},
    "target": {"run": "target", "validate": "target"},
}
_TYPES: dict[str, type] = {"model": str, "judge_model": str, "concurrency": int, "target": str}
THRESHOLDS = {"rubric": "rubric_threshold", "agreement": "agreement_threshold"}  # run's options
KNOWN = ("suites", *OPTION_DEFAULTS, "thresholds", "python_path")


@dataclass
class Project:
    root: Path
    source: str | None  # "evalkit.yml", "pyproject.toml [tool.evalkit]", or None: no settings
    settings: dict[str, Any] = field(default_factory=dict)

    def default_map(self) -> dict[str, dict[str, Any]]:
        """Click's `default_map`: per command, the option defaults the settings give."""
        out: dict[str, dict[str, Any]] = {}
        for key, commands in OPTION_DEFAULTS.items():
            if key in self.settings:
                for command, option in commands.items():
                    value = self.settings[key]
                    out.setdefault(command, {})[option] = [value] if option == "models" else value
        for name, option in THRESHOLDS.items():
            if name in (self.settings.get("thresholds") or {}):
                out.setdefault("run", {})[option] = float(self.settings["thresholds"][name])
        return out

    def python_path(self) -> list[Path]:
        """The `python_path` folders, resolved from the root (each one checked to exist)."""
        return [(self.root / folder).resolve() for folder in self.settings.get("python_path") or []]

    def suite_paths(self) -> tuple[list[str | Path], dict[str, str]]:
        """The suite files the settings list (or that discovery finds), and the `target` a
        `{path, target}` entry gives its file."""
        refs, _ = discover(self.root)
        if not refs:
            raise UsageError(
                f"no suites named and none found under {self.root}: name suite files or folders, "
                f"or list them under `suites:` in evalkit.yml (`evalkit init` writes one)"
            )
        return [ref.path for ref in refs], {str(ref.path): ref.target for ref in refs if ref.target}


def find_root(start: Path) -> Path | None:
    """The nearest folder from `start` up holding evalkit.yml, `[tool.evalkit]` or `.git`."""
    found = _nearest(start)
    return found[0] if found else None


def _nearest(start: Path) -> tuple[Path, tuple[dict[str, Any], str] | None] | None:
    """That folder and its settings, each folder's settings file read once."""
    for folder in (start, *start.parents):
        config = read_config(folder) if config_file(folder) or (folder / "pyproject.toml").is_file() else None
        if config is not None or config_file(folder) is not None or (folder / ".git").exists():
            return folder, config
    return None


def load_project(start: Path | None = None) -> Project | None:
    """The project around `start` (the current folder), its settings checked; None outside one."""
    nearest = _nearest((start or Path.cwd()).resolve())
    if nearest is None:
        return None
    root, found = nearest
    if found is None:
        return Project(root, None)
    settings, source = found
    unknown = sorted(set(settings) - set(KNOWN))
    if unknown:
        raise UsageError(f"{source}: unknown setting(s) {', '.join(unknown)}; known: {', '.join(KNOWN)}")
    for key, kind in _TYPES.items():
        value = settings.get(key)
        if value is not None and (not isinstance(value, kind) or isinstance(value, bool)):
            raise UsageError(
                f"{source}: `{key}` must be {'a whole number' if kind is int else 'a string'}, not {value!r}"
            )
    if isinstance(settings.get("concurrency"), int) and not 1 <= settings["concurrency"] <= 256:
        raise UsageError(f"{source}: `concurrency` must be between 1 and 256")
    if settings.get("target") is not None and ":" not in settings["target"]:
        raise UsageError(f"{source}: `target` {settings['target']!r} is not of the form module:function")
    _check_thresholds(settings.get("thresholds"), source)
    project = Project(root, source, settings)
    _check_python_path(settings.get("python_path"), project, source)
    return project


def _check_thresholds(value: Any, source: str) -> None:
    if value is None:
        return
    if not isinstance(value, dict) or set(value) - set(THRESHOLDS):
        raise UsageError(f"{source}: `thresholds` must be a mapping of {' and/or '.join(THRESHOLDS)}, not {value!r}")
    for name, number in value.items():
        if isinstance(number, bool) or not isinstance(number, (int, float)) or not 0 <= number <= 1:
            raise UsageError(f"{source}: `thresholds.{name}` must be a number from 0 to 1, not {number!r}")


def _check_python_path(value: Any, project: Project, source: str) -> None:
    if value is None:
        return
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise UsageError(f"{source}: `python_path` must be a list of folders, not {value!r}")
    for folder, path in zip(value, project.python_path()):
        if not path.is_dir() or not path.is_relative_to(project.root):
            raise UsageError(f"{source}: python_path {folder!r} is not a folder of the project")
