"""Path globs as in GitHub's `on.paths` filters: `*` stays in a segment, `**` crosses `/`."""

from __future__ import annotations

import functools
import re


@functools.lru_cache(maxsize=512)
def glob_to_regex(pattern: str) -> re.Pattern[str]:
    """Compile a glob matched against a whole repository-relative path."""
    if not pattern or pattern.startswith("!"):
        raise ValueError(f"unsupported glob {pattern!r}: give a non-empty pattern without `!` negation")
    pat = pattern[2:] if pattern.startswith("./") else pattern.lstrip("/")
    out: list[str] = []
    i, n = 0, len(pat)
    while i < n:
        c = pat[i]
        if pat.startswith("**", i):
            at_start = i == 0 or pat[i - 1] == "/"
            if at_start and pat.startswith("**/", i):
                out.append("(?:.*/)?")  # `a/**/b` also matches `a/b`
                i += 3
                continue
            if at_start and i + 2 == n and i > 0:
                out.pop()  # drop the `/` just written: `a/**` matches `a` and all below it
                out.append("(?:/.*)?")
            else:
                out.append(".*")
            i += 2
        elif c == "*":
            out.append("[^/]*")
            i += 1
        elif c == "?":
            out.append("[^/]")
            i += 1
        elif c == "[":
            end = pat.find("]", i + 2)
            if end == -1:
                out.append(re.escape(c))
                i += 1
                continue
            body = pat[i + 1:end]
            negate = body[0] in "!^"
            body = re.escape(body[1:] if negate else body).replace(r"\-", "-")
            out.append(f"[^/{body}]" if negate else f"[{body}]")
            i = end + 1
        else:
            out.append(re.escape(c))
            i += 1
    return re.compile("".join(out) + r"\Z", re.DOTALL)


def glob_match(pattern: str, path: str) -> bool:
    """True when the whole `path` matches `pattern`."""
    return glob_to_regex(pattern).match(path.lstrip("/")) is not None
