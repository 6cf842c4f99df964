"""Make untrusted markdown (model output) safe to render in a PR comment, and cut markdown safely."""

from __future__ import annotations

import html
import re
import string
import unicodedata
import urllib.parse
from collections.abc import Callable, Sequence

DEFAULT_NOTE = "*… (truncated)*"

# Invisible letters that Unicode does not class as format characters.
_INVISIBLE_EXTRA = frozenset("\u034f\u115f\u1160\u3164\uffa0")
_PUNCT = frozenset(string.punctuation)
# Private-use characters are stripped from input, so these placeholders cannot be forged.
_HOLD = re.compile("\ue000(\\d+)\ue001")
_FENCE = re.compile(r"( *)(`{3,}|~{3,})(.*)\Z")
_FENCE_CLOSE = re.compile(r" {0,3}(`{3,}|~{3,})[ \t]*\Z")
# Definitions also live in list items and quotes: allow any container prefix (over-matching is harmless).
_CONTAINER = r"^([ \t>*+\-\d.)]*)"
_DEFINITION = re.compile(_CONTAINER + r"\[((?:\\.|[^\]\n\\])+)\]:[ \t]*(\S*)", re.MULTILINE)
_TILDE_FENCE = re.compile(_CONTAINER + r"(~{3,})", re.MULTILINE)
# GitHub autolinks bare URLs after any delimiter, so match anywhere (over-matching is harmless).
_BARE_URL = re.compile(r"(?i)(?:(?:https?|ftp)://|www\.)[^\s<>`\ue000\ue001]+")
_KEYWORD = r"(?i)\b(close[sd]?|fix(?:e[sd])?|resolve[sd]?)(\s*:?\s*)"
_CLOSING_REF = re.compile(_KEYWORD + r"((?:[\w.-]+/[\w.-]+)?#|gh-)(\d+)")
_CLOSING_URL = re.compile(_KEYWORD + r"(https?://[^\s<>`\ue000\ue001]+)")
_MENTION = re.compile(r"(?<![A-Za-z0-9])@(?=[A-Za-z0-9])")
# `#12` or `owner/repo#12` anywhere in prose links the issue and leaves a backlink on it.
_ISSUE_REF = re.compile(r"(?<![\w/&])((?:[\w.-]+/[\w.-]+)?#)(\d+)\b")
# A ```math fence renders LaTeX, which can draw any text (a fake verdict) at any size.
_MATH_FENCE = re.compile(r"( *)(`{3,}|~{3,})[ \t]*math\b", re.IGNORECASE)

MAX_QUOTED_CHARS = 1000  # characters of any one reason or quoted output in a comment or log
CAP_POINTER = " … [{more:,} more characters in {where}]"


def cap_text(text: str, limit: int = MAX_QUOTED_CHARS, where: str = "results.json") -> str:
    """`text` cut to `limit` characters, saying how much more there is and where it is."""
    if len(text) <= limit:
        return text
    return text[:limit] + CAP_POINTER.format(more=len(text) - limit, where=where)


def neutralize_markdown(
    text: str, *, max_chars: int | None = None, allowed_hosts: Sequence[str] = ("github.com",)
) -> str:
    """Render-safe markdown: no pings, HTML, comments, images, outside links or closing keywords."""
    hosts = tuple(h.lower() for h in allowed_hosts)
    lines = strip_invisible(text).split("\n")
    out: list[str] = []
    segments, open_fence = _split_fenced(lines, max_indent=0)
    for is_code, chunk in segments:
        if is_code:
            # Code renders literally; only a comment opener matters (marker search on the raw body),
            # and a math fence, which GitHub renders as LaTeX.
            chunk = [_MATH_FENCE.sub(lambda m: m.group(1) + m.group(2) + "text", chunk[0]), *chunk[1:]]
            out.extend(line.replace("<!--", "<! --") for line in chunk)
        else:
            out.extend(_neutralize_prose("\n".join(chunk), hosts).split("\n"))
    if open_fence:
        out.append(open_fence)
    result = "\n".join(out)
    if max_chars is not None:
        result = truncate_markdown(result, max_chars)
    return result


def strip_invisible(text: str) -> str:
    """Drop control, format (zero-width, bidi), private-use and invisible filler characters."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    kept: list[str] = []
    for ch in text:
        if ch in "\n\t":
            kept.append(ch)
            continue
        cat = unicodedata.category(ch)
        if cat in ("Zl", "Zp"):
            kept.append("\n")
        elif cat not in ("Cc", "Cf", "Co", "Cs") and ch not in _INVISIBLE_EXTRA:
            kept.append(ch)
    return "".join(kept)


def fence_for(text: str) -> str:
    """A backtick fence longer than any backtick run in `text`, to wrap it in a code block."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    return "`" * max(3, longest + 1)


def truncate_markdown(text: str, limit: int, note: str = DEFAULT_NOTE) -> str:
    """Cut at a line boundary, close an open fence, append `note`; the result has len <= limit."""
    if len(text) <= limit:
        return text
    budget = limit - len(note) - 2
    while budget > 0:
        head = text[:budget]
        cut = head.rfind("\n")
        head = head[:cut] if cut > 0 else head
        fence = _split_fenced(head.split("\n"), max_indent=3)[1]
        result = head.rstrip("\n") + (f"\n{fence}" if fence else "") + "\n\n" + note
        if len(result) <= limit:
            return result
        budget -= len(result) - limit
    return note[:limit]


def _split_fenced(lines: list[str], max_indent: int) -> tuple[list[tuple[bool, list[str]]], str]:
    """Group lines into (is_code, lines) runs; also return the closing fence still owed."""
    segments: list[tuple[bool, list[str]]] = []
    fence = ""
    current: list[str] = []
    for line in lines:
        if fence:
            current.append(line)
            close = _FENCE_CLOSE.match(line)
            if close and close.group(1)[0] == fence[0] and len(close.group(1)) >= len(fence):
                segments.append((True, current))
                current, fence = [], ""
            continue
        opener = _FENCE.match(line)
        if opener and len(opener.group(1)) <= max_indent and not (opener.group(2)[0] == "`" and "`" in opener.group(3)):
            if current:
                segments.append((False, current))
            current, fence = [line], opener.group(2)
            continue
        current.append(line)
    if current:
        segments.append((bool(fence), current))
    return segments, fence


def _neutralize_prose(text: str, hosts: tuple[str, ...]) -> str:
    held: list[str] = []

    def hold(fragment: str) -> str:
        held.append(fragment)
        return f"\ue000{len(held) - 1}\ue001"

    # An indented tilde fence is one we do not treat as code; GitHub might, and then a later
    # column-0 fence would open code for us but close it for GitHub. Make it plain text.
    text = _TILDE_FENCE.sub(lambda m: m.group(1) + "\\" + m.group(2), text)
    text = "\n".join(_hold_code_spans(line, hold) for line in text.split("\n"))
    text = _DEFINITION.sub(lambda m: _definition(m, hosts), text)
    text = _neutralize_links(text, hosts)
    text = _CLOSING_URL.sub(lambda m: m.group(1) + m.group(2) + hold(f"`{m.group(3)}`"), text)
    text = _BARE_URL.sub(lambda m: _bare_url(m.group(0), hosts, hold), text)
    text = _CLOSING_REF.sub(lambda m: f"{m.group(1)}{m.group(2)}{m.group(3)} {m.group(4)}", text)
    text = _ISSUE_REF.sub(lambda m: hold(f"`{m.group(1)}{m.group(2)}`"), text)  # code: no backlink
    text = _MENTION.sub("\uff20", text)  # fullwidth ＠: visible, and GitHub does not ping it
    text = text.replace("&", "&amp;").replace("<", "&lt;")
    # `$…$` and `$$…$$` render as LaTeX math; an entity shows the sign without delimiting math.
    text = text.replace("$", "&#36;")
    return _HOLD.sub(lambda m: held[int(m.group(1))], text)


def _definition(m: re.Match[str], hosts: tuple[str, ...]) -> str:
    """Keep a link definition to an allowed host; escape any other so references stay text."""
    if m.group(3) and _allowed(m.group(3), hosts):
        return m.group(0)
    return m.group(1) + "\\" + m.group(0)[len(m.group(1)) :]


def _hold_code_spans(line: str, hold: Callable[[str], str]) -> str:
    """Set aside code spans paired on this line; escape every other backtick."""
    # Pairing only within a line, and escaping the rest, leaves GitHub no way to pair backticks
    # differently (across lines) and so expose text we took for code.
    out: list[str] = []
    i, n = 0, len(line)
    while i < n:
        ch = line[i]
        if ch == "\\" and i + 1 < n and line[i + 1] in _PUNCT:
            out.append(line[i : i + 2])
            i += 2
        elif ch == "`":
            j = i
            while j < n and line[j] == "`":
                j += 1
            close = _closing_run(line, j, j - i)
            if close is None:
                out.append("\\`" * (j - i))
                i = j
            else:
                out.append(hold(line[i:close].replace("<!--", "<! --")))
                i = close
        else:
            out.append(ch)
            i += 1
    return "".join(out)


def _closing_run(line: str, start: int, length: int) -> int | None:
    k, n = start, len(line)
    while k < n:
        if line[k] != "`":
            k += 1
            continue
        m = k
        while m < n and line[m] == "`":
            m += 1
        if m - k == length:
            return m
        k = m
    return None


def _neutralize_links(text: str, hosts: tuple[str, ...]) -> str:
    """Images become their alt text, outside links their text; unparsable ones lose the `(`."""
    i = 0
    while (j := text.find("](", i)) != -1:
        end, dest = _destination(text, j + 2)
        if end is None:
            text = text[:j] + "]\\(" + text[j + 2 :]  # `]\(` can never open a link
            i = j + 3
            continue
        start = _opening_bracket(text, j)
        is_image = start is not None and start > 0 and text[start - 1] == "!"
        if start is None or (not is_image and _allowed(dest, hosts)):
            i = j + 2
            continue
        label = text[start + 1 : j]
        lo = start - 1 if is_image else start
        text = text[:lo] + (label or "image" if is_image else label) + text[end:]
        i = lo  # the label may itself hold a link or an image
    return text


def _opening_bracket(text: str, close: int) -> int | None:
    depth = 0
    for k in range(close - 1, -1, -1):
        ch = text[k]
        if ch == "\n" and text[k - 1 : k] == "\n":
            return None  # links do not span paragraphs
        if k > 0 and text[k - 1] == "\\":
            continue
        if ch == "]":
            depth += 1
        elif ch == "[":
            if depth == 0:
                return k
            depth -= 1
    return None


def _destination(text: str, k: int) -> tuple[int | None, str]:
    """Parse `dest "title")` from index k; (end index, dest) or (None, "")."""
    n = len(text)
    k = _skip_space(text, k)
    if text.startswith("<", k):
        e = text.find(">", k)
        if e == -1 or "\n" in text[k:e]:
            return None, ""
        dest, k = text[k + 1 : e], e + 1
    else:
        s, depth = k, 0
        while k < n and not text[k].isspace():
            if text[k] == "\\":
                k += 2
                continue
            if text[k] == "(":
                depth += 1
            elif text[k] == ")":
                if depth == 0:
                    break
                depth -= 1
            k += 1
        dest = text[s:k]
    k = _skip_space(text, k)
    if k < n and text[k] in "\"'(":
        closer = ")" if text[k] == "(" else text[k]
        k += 1
        while k < n and text[k] != closer:
            k += 2 if text[k] == "\\" else 1
        k = _skip_space(text, k + 1)
    return (k + 1, dest) if text.startswith(")", k) else (None, "")


def _skip_space(text: str, k: int) -> int:
    while k < len(text) and text[k] in " \t\n":
        k += 1
    return k


def _bare_url(url: str, hosts: tuple[str, ...], hold: Callable[[str], str]) -> str:
    core = url.rstrip("?!.,:;*_~'\")")
    while core.count(")") < url[: len(core)].count("(") and len(core) < len(url) and url[len(core)] == ")":
        core += ")"
    target = core if "://" in core else "http://" + core
    if _allowed(target, hosts):
        return url
    return hold(f"`{core}`") + url[len(core) :]


def _allowed(dest: str, hosts: tuple[str, ...]) -> bool:
    """True for relative URLs and http(s) URLs on an allowed host (or its subdomains)."""
    d = html.unescape(dest).strip()
    if not d:
        return True
    # Browsers read `\` as `/` and userinfo hides the real host: refuse both outright.
    if "\\" in d or any(ch.isspace() or ord(ch) < 32 for ch in d):
        return False
    parts = urllib.parse.urlsplit(d)
    if not parts.scheme and not parts.netloc:
        return not d.startswith("//")
    if parts.scheme.lower() not in ("http", "https") or "@" in parts.netloc:
        return False
    host = (parts.hostname or "").rstrip(".")
    return bool(host) and any(host == h or host.endswith("." + h) for h in hosts)
