"""Path globs as in GitHub's `on.paths` filters, matched by `wcmatch`: `*` stays in a segment,
`**` crosses `/`, and in a list a later `!pattern` takes back what earlier patterns matched."""

from __future__ import annotations

import re
from collections.abc import Sequence

from wcmatch import glob

# GLOBSTAR: `**` crosses folders; DOTGLOB: `*` matches dot files too, as GitHub's filters do.
_FLAGS = glob.GLOBSTAR | glob.DOTGLOB
# GitHub reads `**.md` as "every .md file"; wcmatch treats `**` that way only as a whole segment.
_GLUED_GLOBSTAR = re.compile(r"(?:(?<=^)|(?<=/))\*\*(?=[^/])")


def _normalise(pattern: str) -> str:
    if not pattern:
        raise ValueError("unsupported glob '': give a non-empty pattern")
    pat = pattern[2:] if pattern.startswith("./") else pattern.lstrip("/")
    return _GLUED_GLOBSTAR.sub("**/*", pat)


def glob_match(pattern: str, path: str) -> bool:
    """True when the whole `path` matches `pattern` (a positive pattern: no leading `!`)."""
    if pattern.startswith("!"):
        raise ValueError(f"unsupported glob {pattern!r}: `!` negation only means something in a list")
    pat = _normalise(pattern)
    path = path.lstrip("/")
    # `a/**` matches the folder `a` itself as well as everything below it.
    return glob.globmatch(path, pat, flags=_FLAGS) or (pat.endswith("/**") and path == pat[:-3])


def first_match(patterns: Sequence[str], paths: Sequence[str]) -> tuple[str, str] | None:
    """The first `(path, pattern)` where `path` is selected by the list `patterns`, or None.

    A path is selected when the last pattern that matches it is positive, as in GitHub's
    `on.paths`: `["docs/**", "!docs/drafts/**"]` selects docs but not drafts."""
    if patterns and all(p.startswith("!") for p in patterns):
        raise ValueError(f"unsupported globs {list(patterns)}: a list of only `!` patterns selects nothing")
    rules = [(p.startswith("!"), p.removeprefix("!")) for p in patterns]
    for _, positive in rules:
        _normalise(positive)  # an empty pattern is an error even if no path reaches it
    for path in paths:
        selected_by = None
        for negated, positive in rules:
            if glob_match(positive, path):
                selected_by = None if negated else positive
        if selected_by is not None:
            return path, selected_by
    return None
