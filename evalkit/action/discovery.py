"""Where a repository's suites live, which of them a `suites` input names, and what each watches.

The rule, in order:

1. `evalkit.yml` (or `evalkit.yaml`) at the repository root lists the suites under `suites:`
   (or is itself that list); without it, a `[tool.evalkit]` table in `pyproject.toml` may. Each entry is a path relative to the root — a suite file, or a
   folder holding `suite.yml` or `*.suite.yml` files — or a glob over the repository's files
   (`suites/**/*.suite.yml`), or a mapping `{path, target, watch}` for a fixture list that sits
   beside the pytest code that runs it (the `target` it names is resolved from the fixture
   file's folder, as a suite's own `target:` is; `watch` adds globs).
2. Without that file: every `suite.yml`, `suite.yaml`, `*.suite.yml` and `*.suite.yaml` under
   the root, skipping `.git`, `node_modules`, virtual environments, caches and hidden folders.
   Fixture lists are not found this way: list them in `evalkit.yml`.

Watch globs in a suite file are relative to the repository root (as `on.paths` in a
workflow); a glob starting with `./` or `../` is relative to the suite file's folder. A suite
that watches anything also watches its own file. A suite that watches nothing always runs.
"""

from __future__ import annotations

import os
import posixpath
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evalkit.errors import SuiteError, UsageError
from evalkit.github.globs import glob_match
from evalkit.suite.files import is_suite_file, resolve_suite_paths
from evalkit.suite.loader import load_suite, refuse_duplicate_names
from evalkit.suite.model import Suite, Target
from evalkit.suite.yaml_reader import read_yaml

CONFIG_NAMES = ("evalkit.yml", "evalkit.yaml")
SKIP_DIRS = frozenset({"node_modules", "venv", "env", "__pycache__", "site-packages", "build", "dist"})
_GLOB_CHARS = frozenset("*?[")


@dataclass(frozen=True)
class SuiteRef:
    """One suite file of the repository, with what `evalkit.yml` adds to it."""

    path: Path  # absolute
    rel: str  # relative to the repository root, with `/`
    target: str | None = None
    watch: tuple[str, ...] = ()


@dataclass
class RepoSuites:
    """The repository's suites, loaded, and where the list came from."""

    root: Path
    source: str  # "evalkit.yml" or "discovered"
    refs: list[SuiteRef] = field(default_factory=list)
    suites: list[Suite] = field(default_factory=list)  # parallel to refs
    project: Path | None = None  # the working directory inside root, when the Action was given one

    def watch_map(self) -> dict[str, list[str]]:
        """Suite file (relative) to its watch globs relative to the root."""
        return {
            ref.rel: watch_globs(suite, self.root, ref.watch, self.project)
            for ref, suite in zip(self.refs, self.suites)
        }

    def by_rel(self, rels: list[str]) -> list[Suite]:
        index = {ref.rel: suite for ref, suite in zip(self.refs, self.suites)}
        return [index[r] for r in rels]


def relative(path: Path, root: Path) -> str:
    """`path` relative to `root` with `/` (the absolute path when outside it)."""
    try:
        return Path(os.path.abspath(path)).relative_to(os.path.abspath(root)).as_posix()
    except ValueError:
        return Path(os.path.abspath(path)).as_posix()


PYPROJECT_SOURCE = "pyproject.toml [tool.evalkit]"


def config_file(root: Path) -> Path | None:
    for name in CONFIG_NAMES:
        if (root / name).is_file():
            return root / name
    return None


def read_config(root: Path) -> tuple[dict[str, Any], str] | None:
    """The project's settings and where they came from: `evalkit.yml` (a mapping, or a bare list of
    suites), else `[tool.evalkit]` in `pyproject.toml`, else None. A file that cannot be read is a
    one-line UsageError."""
    config = config_file(root)
    if config is not None:
        try:
            data = read_yaml(config).data
        except (OSError, ValueError) as exc:
            raise UsageError(str(exc).splitlines()[0] if str(exc) else f"{config.name}: unreadable") from None
        if isinstance(data, list):
            data = {"suites": data}
        if not isinstance(data, dict):
            raise UsageError(f"{config.name}: expected a mapping with `suites:` (or a list of suites)")
        return data, config.name
    pyproject = root / "pyproject.toml"
    if pyproject.is_file():
        import tomllib

        try:
            table = tomllib.loads(pyproject.read_text(encoding="utf-8")).get("tool", {}).get("evalkit")
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
            raise UsageError(f"pyproject.toml: not valid TOML ({exc})") from None
        if table is not None:
            if not isinstance(table, dict):
                raise UsageError("pyproject.toml: [tool.evalkit] must be a table")
            return table, PYPROJECT_SOURCE
    return None


def discover(root: str | Path, project: str | Path | None = None) -> tuple[list[SuiteRef], str]:
    """The suite files of the repository at `root` and the source of the list. `project`: the
    folder (inside `root`) whose evalkit.yml is read and under which suites are found, with its
    entries relative to it (the Action's `working_directory`); the files are still named relative
    to `root`, as changed files and watch globs are."""
    root = Path(root).resolve()
    base = Path(project).resolve() if project is not None else root
    config = read_config(base)
    if config is not None and "suites" in config[0]:
        return _from_config(root, config[0]["suites"], config[1], base), config[1]
    return [SuiteRef(p, relative(p, root)) for p in _walk_suite_files(base)], "discovered"


def load_repo_suites(root: str | Path, project: str | Path | None = None) -> RepoSuites:
    """Discover and load every suite; problems of all files are raised together."""
    root = Path(root).resolve()
    refs, source = discover(root, project)
    loaded: list[Suite] = []
    errors: list[SuiteError] = []
    for ref in refs:
        try:
            suite = load_suite(ref.path)
        except SuiteError as exc:
            errors.append(exc)
            continue
        if ref.target:
            suite.target = Target(function=ref.target)
        loaded.append(suite)
    if errors:
        raise SuiteError.merge(errors, f"{len(errors)} suite file(s) in {source}")
    refuse_duplicate_names(loaded)
    return RepoSuites(root, source, refs, loaded, Path(project).resolve() if project is not None else None)


def watch_globs(suite: Suite, root: Path, extra: tuple[str, ...] = (), project: Path | None = None) -> list[str]:
    """The suite's watch globs relative to `root`, plus the suite file itself when any. A glob is
    relative to the project (`root`, or the Action's working directory), or to the suite file's
    folder when it starts with `./` or `../`."""
    files = [suite.path, *(case.file for case in suite.cases if case.file)]
    return _globs(suite.dir, list(suite.watch), extra, files, root, project=project)


def _globs(
    folder: Path,
    watch: list[str],
    extra: tuple[str, ...],
    files: list[Path],
    root: Path,
    *,
    project: Path | None = None,
) -> list[str]:
    base = relative(folder, root)
    prefix = relative(project, root) if project is not None and project != root else ""
    out: list[str] = []
    for pattern in [*watch, *extra]:
        if pattern.startswith(("./", "../")):
            pattern = posixpath.normpath(posixpath.join(base, pattern))
        elif prefix:
            pattern = posixpath.join(prefix, pattern.lstrip("/"))
        out.append(pattern.lstrip("/"))
    if out:  # a suite always watches its own file and the fixture lists its cases come from
        out += [relative(Path(f), root) for f in files]
    return list(dict.fromkeys(out))


def read_watch_map(root: str | Path, project: str | Path | None = None) -> dict[str, list[str]] | None:
    """Each suite file's watch globs (as `RepoSuites.watch_map`), read from the YAML alone: no
    suite is loaded, no plugin imported, so no code of the repository runs (the `install` input
    is skipped when this says no suite is affected). None when anything does not read plainly:
    then the suites are loaded as usual."""
    from evalkit.suite.yaml_reader import read_yaml

    try:
        refs, _ = discover(root, project)
    except (UsageError, SuiteError):
        return None
    out: dict[str, list[str]] = {}
    for ref in refs:
        try:
            data = read_yaml(ref.path).data
        except (OSError, ValueError):
            return None
        files, watch = [ref.path], (data.get("watch") or []) if isinstance(data, dict) else []
        if isinstance(data, dict) and isinstance(data.get("cases"), str):
            files.append(ref.path.parent / data["cases"])
        if (
            not isinstance(data, (dict, list))
            or not isinstance(watch, list)
            or not all(isinstance(w, str) for w in watch)
        ):
            return None
        out[ref.rel] = _globs(
            ref.path.parent,
            watch,
            ref.watch,
            files,
            Path(root).resolve(),
            project=Path(project).resolve() if project is not None else None,
        )
    return out


def parse_list(text: str) -> list[str]:
    """Split an input of newline- or comma-separated entries; `#` starts a comment."""
    items: list[str] = []
    for line in text.splitlines():
        line = line.split("#", 1)[0]
        items += [part.strip() for part in line.split(",") if part.strip()]
    return items


def select_named(repo: RepoSuites, entries: list[str]) -> list[str]:
    """Relative suite files named by `entries`: paths, folders, globs or suite names.

    A path outside the discovered list is loaded too (added to `repo`). Unknown entries raise
    UsageError listing the suites that exist.
    """
    chosen: dict[str, None] = {}
    unknown: list[str] = []
    for entry in entries:
        hits = _match_entry(repo, entry)
        if not hits and repo.project is not None and repo.project != repo.root and not entry.startswith("/"):
            # a path in the working directory, as the entries of its evalkit.yml are
            hits = _match_entry(repo, posixpath.join(relative(repo.project, repo.root), entry.removeprefix("./")))
        if not hits:
            unknown.append(entry)
        chosen.update(dict.fromkeys(hits))
    if unknown:
        names = ", ".join(f"{s.name} ({r.rel})" for r, s in zip(repo.refs, repo.suites)) or "none"
        raise UsageError(
            f"`suites` input: nothing matches {', '.join(map(repr, unknown))}; "
            f"suites in this repository ({repo.source}): {names}"
        )
    return list(chosen)


def _match_entry(repo: RepoSuites, entry: str) -> list[str]:
    root = repo.root
    clean = entry[2:] if entry.startswith("./") else entry
    clean = clean.rstrip("/")
    # 1. a suite name
    hits = [r.rel for r, s in zip(repo.refs, repo.suites) if s.name == entry]
    if hits:
        return hits
    # 2. a glob over the known suite files (or their folders)
    if _GLOB_CHARS & set(clean):
        return [r.rel for r in repo.refs if glob_match(clean, r.rel) or glob_match(clean, posixpath.dirname(r.rel))]
    # 3. a path: a known file, a folder of known files, or any loadable suite file
    hits = [r.rel for r in repo.refs if r.rel == clean or r.rel.startswith(clean + "/")]
    if hits:
        return hits
    candidate = (root / clean).resolve()
    if not _inside(candidate, root) or not candidate.exists():
        return []
    try:
        files = resolve_suite_paths(candidate)
    except SuiteError:
        return []
    out = []
    for file in files:
        rel = relative(file, root)
        if rel not in {r.rel for r in repo.refs}:
            repo.refs.append(SuiteRef(file, rel))
            repo.suites.append(load_suite(file))
            refuse_duplicate_names(repo.suites)
        out.append(rel)
    return out


def _from_config(root: Path, entries: Any, source: str, base: Path | None = None) -> list[SuiteRef]:
    if not isinstance(entries, list):
        raise UsageError(f"{source}: expected `suites:` with a list of paths, globs or {{path, target, watch}} entries")
    refs: dict[str, SuiteRef] = {}
    problems: list[str] = []
    for n, entry in enumerate(entries, 1):
        try:
            for ref in _config_entry(root, entry, base or root):
                refs.setdefault(ref.rel, ref)
        except UsageError as exc:
            problems.append(f"entry {n}: {exc}")
    if problems:
        raise UsageError(f"{source}: " + "; ".join(problems))
    return list(refs.values())


def _config_entry(root: Path, entry: Any, base: Path) -> list[SuiteRef]:
    """The files one evalkit.yml entry names: paths and globs relative to `base` (the folder holding
    evalkit.yml), each file named relative to `root` (the repository)."""
    target: str | None = None
    watch: tuple[str, ...] = ()
    if isinstance(entry, dict):
        unknown = set(entry) - {"path", "target", "watch"}
        if unknown or not isinstance(entry.get("path"), str):
            raise UsageError(f"{entry!r}: a mapping needs `path` and may have `target` and `watch` only")
        target = entry.get("target")
        if target is not None and (not isinstance(target, str) or ":" not in target):
            raise UsageError(f"target {target!r} is not of the form module:function")
        raw_watch = entry.get("watch") or []
        if isinstance(raw_watch, str):
            raw_watch = [raw_watch]
        watch = tuple(str(w) for w in raw_watch)
        entry = entry["path"]
    if not isinstance(entry, str) or not entry.strip():
        raise UsageError(f"{entry!r} is not a path or glob")
    pattern = entry.strip()
    pattern = pattern[2:] if pattern.startswith("./") else pattern.lstrip("/")
    if _GLOB_CHARS & set(pattern):
        files = [p for p in _walk_files(base) if glob_match(pattern, relative(p, base))]
        if not files:
            raise UsageError(f"{pattern!r} matches no file")
    else:
        path = (base / pattern).resolve()
        if not _inside(path, root):
            raise UsageError(f"{pattern!r} is outside the repository")
        try:
            files = resolve_suite_paths(path)
        except SuiteError as exc:
            raise UsageError(f"{pattern!r}: {'; '.join(p.message for p in exc.problems)}") from None
    return [SuiteRef(f, relative(f, root), target, watch) for f in sorted(files)]


def _walk_suite_files(root: Path) -> list[Path]:
    return sorted(p for p in _walk_files(root) if is_suite_file(p))


def _walk_files(root: Path) -> list[Path]:
    found: list[Path] = []
    for folder, dirs, files in os.walk(root):
        # Hidden folders (.git, .venv, .tox, .evalkit), dependencies and build output hold no suites.
        dirs[:] = sorted(
            d
            for d in dirs
            if not d.startswith(".") and d not in SKIP_DIRS and not (Path(folder) / d / "pyvenv.cfg").exists()
        )
        found += [Path(folder) / f for f in files]
    return found


def _inside(path: Path, root: Path) -> bool:
    try:
        path.relative_to(root.resolve())
        return True
    except ValueError:
        return False
