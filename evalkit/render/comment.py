"""The PR comment exactly as the Action posts it: the report through the (replaceable) Jinja
template with every untrusted string neutralised, the hidden marker, the run link, and a cut
at GitHub's 65,536 characters that points to the full report; plus the short bodies for
"nothing affected" and "no key"."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from evalkit.render._sanitize import neutralize_markdown, strip_invisible, truncate_markdown
from evalkit.render.markdown import render_markdown
from evalkit.report import Report

MARKER = "<!-- evalkit:comment -->"
MAX_COMMENT_CHARS = 65_536  # GitHub's limit on a comment's body
_KEY = re.compile(r"[A-Za-z0-9_.-]+\Z")

TRUNCATED_NOTE = ("*… comment truncated: GitHub allows at most 65,536 characters. The full report is in "
                  "the job summary and in the results files (`results.json`, `junit.xml`){where}.*")
MAX_LISTED_FILES = 30
_COMMENT_OPENER = re.compile(r"<!--")


def marker(key: str = "default") -> str:
    """The hidden marker for `key`; "default" gives `MARKER`, so two workflows can keep one each."""
    if not _KEY.match(key):
        raise ValueError(f"comment key {key!r}: use letters, digits, `_`, `.` or `-`")
    return MARKER if key == "default" else f"<!-- evalkit:comment:{key} -->"


def with_marker(body: str, mark: str = MARKER) -> str:
    """`body` with `mark` exactly once, at the start."""
    return mark + "\n" + body.replace(mark, "").lstrip("\n")


def clean(value: Any) -> str:
    """The template's `clean` filter: untrusted text made render-safe (no pings, HTML, beacons…)."""
    return neutralize_markdown(str(value))


def code_span(text: str) -> str:
    """`text` as one inline code span (nothing inside renders or pings)."""
    text = " ".join(strip_invisible(text).split())
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    ticks = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") or not text else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"


def render_comment(report: Report, *, template: str | Path | None = None, run_url: str | None = None,
                   artifact_hint: str = "", mark: str = MARKER, limit: int = MAX_COMMENT_CHARS) -> str:
    """The whole comment body, marker first, at most `limit` characters."""
    if run_url:
        report = report.model_copy(update={"run_url": run_url})
    body = render_markdown(report, template=template, clean=clean)
    return finish(body, mark=mark, limit=limit, artifact_hint=artifact_hint)


def finish(body: str, *, mark: str = MARKER, limit: int = MAX_COMMENT_CHARS, artifact_hint: str = "") -> str:
    """Add the marker and cut to `limit`; any other comment opener in the body is defused."""
    # Our own marker goes first; any other `<!--` (a user template, a forged marker) cannot
    # hide text or pose as the marker.
    body = _COMMENT_OPENER.sub("&lt;!--", body.replace(mark, ""))
    note = TRUNCATED_NOTE.format(where=f" ({artifact_hint})" if artifact_hint else "")
    room = limit - len(mark) - 1
    if len(body) <= room:
        return with_marker(body, mark)
    # Cut with room for closing the `<details>` blocks the cut leaves open.
    cut = truncate_markdown(body, room - 200, note)
    head = cut[: -len(note)] if cut.endswith(note) else cut
    unclosed = max(0, head.count("<details>") - head.count("</details>"))
    closers = "</details>\n\n" * min(unclosed, 15)
    return with_marker(head.rstrip("\n") + "\n\n" + closers + note, mark)


def nothing_affected_body(changed: Sequence[str], reason: str, suites: Sequence[str], *,
                          run_url: str | None = None, mark: str = MARKER) -> str:
    """Short comment: which files changed, and that no suite watches them."""
    lines = ["## ⏭️ evalkit: no suite affected", ""]
    count = len(changed)
    lines.append(f"This change touches {count} file{'s' if count != 1 else ''} ({clean(reason)}), "
                 "and no suite's `watch` globs match any of them, so no evaluation ran.")
    lines.append("")
    for name in changed[:MAX_LISTED_FILES]:
        lines.append(f"- {code_span(name)}")
    if count > MAX_LISTED_FILES:
        lines.append(f"- … and {count - MAX_LISTED_FILES} more")
    lines.append("")
    if suites:
        lines.append("Suites in this repository: " + ", ".join(code_span(s) for s in suites) + ".")
        lines.append("")
    lines.append(_footer(run_url))
    return finish("\n".join(lines) + "\n", mark=mark)


def no_key_body(event_name: str, *, is_fork: bool, run_url: str | None = None) -> str:
    """Neutral summary when `anthropic_api_key` is empty: why nothing ran, and how to fix it."""
    if is_fork:
        why = ("This pull request comes from a fork. GitHub gives workflows of fork pull requests "
               "no secrets, so there is no Anthropic API key here")
    else:
        why = (f"The `anthropic_api_key` input is empty on this {event_name or 'workflow'} run "
               "(Dependabot pull requests get no Actions secrets, or the secret is not set)")
    lines = [
        "## ⏭️ evalkit: evaluations skipped — no API key",
        "",
        f"{why}. The evaluations were skipped; this is not a failure.",
        "",
        "To run them: set the `ANTHROPIC_API_KEY` repository secret and pass it as "
        "`anthropic_api_key: ${{ secrets.ANTHROPIC_API_KEY }}`; for Dependabot add it as a "
        "Dependabot secret; for a fork, a maintainer can re-run the evals from a branch of this "
        "repository, or run `evalkit run` locally.",
        "",
        _footer(run_url),
    ]
    return "\n".join(lines) + "\n"


def _footer(run_url: str | None) -> str:
    return f"[workflow run]({run_url})" if run_url else ""
