"""Where a history lives: a file path (SQLite), or a PostgreSQL URL; and how to name it in a message
without its password."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import parse_qsl, unquote

from evalkit.errors import UsageError

SERVER_SCHEMES = ("postgresql", "postgres")  # the two libpq takes
_URL = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*)://")


def is_server_url(target: str | Path) -> bool:
    """True for a PostgreSQL URL; False for a file path; UsageError for a URL of another kind (it
    would otherwise become a folder named `mysql:`)."""
    found = _URL.match(str(target)) if isinstance(target, str) else None
    if not found:
        return False
    if found.group(1).lower() in SERVER_SCHEMES:
        return True
    raise UsageError(
        f"--history takes a file path or a PostgreSQL URL (postgresql://...), not a {found.group(1)}:// URL"
    )


def _secrets(url: str) -> list[str]:
    """The password the URL holds (in its user part or as `?password=`), as written and decoded. Read
    by hand, not by urlsplit: a URL too malformed for it may still hold a password to hide."""
    rest = url.split("://", 1)[-1]
    found = []
    userinfo = rest.rsplit("@", 1)[0] if "@" in rest else ""
    if ":" in userinfo:
        found.append(userinfo.split(":", 1)[1])
    if "?" in rest:
        found += [v for k, v in parse_qsl(rest.split("?", 1)[1]) if k == "password"]
    return sorted({s for p in found if p for s in (p, unquote(p))}, key=len, reverse=True)


def hide_password(text: str, url: str) -> str:
    """`text` (a URL, or a driver's message about it) with the URL's password replaced by ***."""
    for secret in _secrets(url):
        text = text.replace(secret, "***")
    return text


def shown(target: str | Path) -> str:
    """How a message names the history: its path, or its URL with the password hidden."""
    text = str(target)
    return hide_password(text, text) if isinstance(target, str) and is_server_url(target) else text
