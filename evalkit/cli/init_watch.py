"""What `evalkit init --target pkg.mod:fn` has its suite watch: the target's package, the prompt files
the target visibly reads, and the suite's own folder; and the `paths:` of the workflow it writes.

Reading "visibly" is a plain, safe heuristic: the module's source is parsed (never imported) and its
string literals that name an existing file or folder of the project are taken, with a `prompts/`
folder beside the module or its package. What it cannot see (a path built at run time, a file read
by another module) it does not guess: init then says in one line which globs to add."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

from evalkit.github.globs import glob_match

SUITE_FOLDER = "evals"
# Where a team's module is looked for, as the target is imported: beside the suite, at the root, in src/.
_SEARCH = (SUITE_FOLDER, ".", "src")
_PROMPT_FOLDERS = ("prompts",)
_GLOB_CHARS = frozenset("*?[")


@dataclass(frozen=True)
class WatchGuess:
    globs: list[str]  # relative to the project folder
    note: str | None  # one line for the user when no prompt file was found


def watch_for_target(folder: Path, target: str | None) -> WatchGuess:
    """The watch globs for a suite in `folder/evals` that runs `target` (the stub when None)."""
    own = f"{SUITE_FOLDER}/**"
    if target is None:
        return WatchGuess([own], None)
    module = target.partition(":")[0]
    source = _module_file(folder, module)
    if source is None:
        return WatchGuess(
            [own],
            f"note: {module} is not a file under {folder}, so the suite watches only "
            f"{own}: add your code's and prompts' globs to `watch:` in {SUITE_FOLDER}/suite.yml",
        )
    code = _package_glob(folder, source, module)
    prompts = [g for g in _prompt_globs(folder, source) if not glob_match(code, g.removesuffix("/**"))]
    globs = narrowest([code, *prompts, own])
    note = (
        None
        if prompts
        else (
            f"note: no prompt file found in {_rel(source, folder)}: if {module} reads any, add their globs "
            f"(e.g. prompts/**) to `watch:` in {SUITE_FOLDER}/suite.yml"
        )
    )
    return WatchGuess(globs, note)


def _module_file(folder: Path, module: str) -> Path | None:
    parts = module.split(".")
    for base in _SEARCH:
        stem = (folder / base).joinpath(*parts)
        for candidate in (stem.with_suffix(".py"), stem / "__init__.py"):
            if candidate.is_file() and _inside(candidate, folder):
                return candidate.resolve()
    return None


def _package_glob(folder: Path, source: Path, module: str) -> str:
    """`support/**` for `support.reply` in support/reply.py; the file itself for a top-level module."""
    depth = len(module.split(".")) - (0 if source.name == "__init__.py" else 1)
    if depth == 0:  # `app:reply` in app.py
        return _rel(source, folder)
    top = source.parent
    for _ in range(depth - 1):
        top = top.parent
    return f"{_rel(top, folder)}/**"


def _prompt_globs(folder: Path, source: Path) -> list[str]:
    found: list[str] = []
    try:
        tree = ast.parse(source.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, SyntaxError, ValueError):
        tree = None
    literals = (
        [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)]
        if tree is not None
        else []
    )
    for text in literals:
        if not text or len(text) > 200 or "\n" in text or text.strip() != text or text.startswith(("/", "~")):
            continue
        for base in (folder, source.parent):
            path = (base / text).resolve()
            if not _inside(path, folder) or path == folder.resolve() or _hidden(path, folder):
                continue
            if path.is_file() and path != source:
                found.append(_rel(path, folder))
                break
            if path.is_dir() and path != source.parent and not _holds(path, source):
                found.append(f"{_rel(path, folder)}/**")
                break
    for base in (source.parent, source.parent.parent):
        for name in _PROMPT_FOLDERS:
            if (base / name).is_dir() and _inside(base / name, folder):
                found.append(f"{_rel(base / name, folder)}/**")
    return list(dict.fromkeys(found))


def workflow_paths(folder: Path, workflow: str) -> list[str] | None:
    """`on.pull_request.paths` for the workflow: every suite's watch globs, as the Action reads them,
    plus evalkit's own files; None when a suite watches nothing (it always runs) or a file does not
    read plainly, so no filter may hide a change from it."""
    from evalkit.action.discovery import CONFIG_NAMES, read_watch_map

    watch = read_watch_map(folder)
    if not watch or any(not globs for globs in watch.values()):
        return None
    own = [name for name in CONFIG_NAMES if (folder / name).is_file()] or [CONFIG_NAMES[0]]
    # A `!` glob only narrows its own suite: left out, the filter is wider, never narrower.
    return narrowest([*(g for globs in watch.values() for g in globs if not g.startswith("!")), *own, workflow])


def narrowest(globs: list[str]) -> list[str]:
    """`globs` in order, once each, without a plain path another glob already matches."""
    unique = list(dict.fromkeys(globs))
    return [g for g in unique if _GLOB_CHARS & set(g) or not any(o != g and glob_match(o, g) for o in unique)]


def _rel(path: Path, folder: Path) -> str:
    return path.resolve().relative_to(folder.resolve()).as_posix()


def _inside(path: Path, folder: Path) -> bool:
    return path.resolve().is_relative_to(folder.resolve())


def _hidden(path: Path, folder: Path) -> bool:
    return any(part.startswith(".") for part in path.resolve().relative_to(folder.resolve()).parts)


def _holds(path: Path, source: Path) -> bool:
    """A folder that holds the module (its package, or `src`): not a prompt folder."""
    return source.resolve().is_relative_to(path.resolve())
