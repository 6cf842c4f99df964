"""The PR comment exactly as the Action posts it: the report through the (replaceable) Jinja
template with every untrusted string capped and neutralised, the hidden marker, the run link,
and a cut at GitHub's 65,536 characters that drops whole blocks (passing suites' tables first,
then failing cases' details from the end) and says what it dropped; plus the short bodies
for "evals could not run", "nothing affected" and "no key".

Each untrusted string (a reason, a quoted output) is capped at `MAX_QUOTED_CHARS` characters
in the comment, with a pointer to `results.json`, which keeps it whole (up to the runner's
own cap on stored outputs)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from evalkit.errors import EvalkitError, SuiteError
from evalkit.render.markdown import render_markdown
from evalkit.render.sanitize import MAX_QUOTED_CHARS, cap_text, neutralize_markdown, strip_invisible, truncate_markdown
from evalkit.results.report import Report

MARKER = "<!-- evalkit:comment -->"
MAX_COMMENT_CHARS = 65_536  # GitHub's limit on a comment's body
_KEY = re.compile(r"[A-Za-z0-9_.-]+\Z")

SUMMARY_CHARS = 1_000_000  # the job summary's room (GitHub: 1 MiB per step; bytes are checked on write)
TRUNCATED_NOTE = (
    "*… comment truncated: GitHub allows at most 65,536 characters. The full report is in "
    "the job summary and in the results files (`results.json`, `junit.xml`){where}.*"
)
DROPPED_NOTE = (
    "*… {what} left out to fit GitHub's 65,536 characters. The full report is in the job "
    "summary and in the results files (`results.json`, `junit.xml`){where}.*"
)
MAX_LISTED_FILES = 30
MAX_LISTED_PROBLEMS = 50
_COMMENT_OPENER = re.compile(r"<!--")
# Block sentinels the bundled template places around what may be dropped to fit. Private-use
# characters are stripped from every untrusted string, so model output cannot forge them.
_OPEN, _KIND_END, _CLOSE = "\ue010", "\ue011", "\ue012"
_BLOCK = re.compile(f"{_OPEN}(\\w+){_KIND_END}(.*?){_CLOSE}", re.DOTALL)
_DROP_ORDER = ("passing", "case")  # passing suites' tables go first, then failing cases' details
_DROPPED_NAMES = {
    "passing": ("passing suite's table", "passing suites' tables"),
    "case": ("failing case's details", "failing cases' details"),
}


def marker(key: str = "default") -> str:
    """The hidden marker for `key`; "default" gives `MARKER`, so two workflows can keep one each."""
    if not _KEY.match(key):
        raise ValueError(f"comment key {key!r}: use letters, digits, `_`, `.` or `-`")
    return MARKER if key == "default" else f"<!-- evalkit:comment:{key} -->"


def with_marker(body: str, mark: str = MARKER) -> str:
    """`body` with `mark` exactly once, at the start."""
    return mark + "\n" + body.replace(mark, "").lstrip("\n")


def headline(body: str) -> str:
    """The first heading of a rendered comment, without its `#`s: the line the comment leads with
    (the verdict, or the comparison's sentence), which the check run takes as its title; "" if none."""
    for line in body.splitlines():
        if line.startswith("#"):
            return line.lstrip("#").strip()
    return ""


def clean(value: Any, cap: int = MAX_QUOTED_CHARS) -> str:
    """The template's `clean` filter: untrusted text capped at `cap` characters and made
    render-safe (no pings, HTML, beacons, math, backlinks…)."""
    return neutralize_markdown(cap_text(str(value), cap))


def code_span(text: str) -> str:
    """`text` as one inline code span (nothing inside renders or pings)."""
    text = " ".join(strip_invisible(text).split())
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    ticks = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") or not text else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"


def render_comment(
    report: Report,
    *,
    template: str | Path | None = None,
    run_url: str | None = None,
    artifact_hint: str = "",
    mark: str = MARKER,
    limit: int = MAX_COMMENT_CHARS,
    cap: int = MAX_QUOTED_CHARS,
    html_report: str = "",
    comparison: Any = None,
    lead: str = "",
    detailed: Sequence[str] = (),
) -> str:
    """The whole comment body, marker first, at most `limit` characters, each untrusted string
    at most `cap` (the job summary passes `SUMMARY_CHARS` and a larger cap). `html_report` names
    the HTML page among the run's artifacts; `comparison` adds the base-vs-head chart; `lead`
    (markdown already made safe: the Action's comparison with the base) goes first; `detailed` names
    the cases (`suite/case`) the lead explains, whose details the report leaves out."""
    if run_url:
        report = report.model_copy(update={"run_url": run_url})
    extra = {
        "block": lambda kind: f"{_OPEN}{kind}{_KIND_END}",
        "end_block": lambda: _CLOSE,
        "html_report": html_report,
        "comparison": comparison,
        "detailed": list(detailed),
    }
    body = lead + render_markdown(report, template=template, clean=lambda v: clean(v, cap), extra=extra)
    return finish(body, mark=mark, limit=limit, artifact_hint=artifact_hint)


def render_models_comment(
    runs: Sequence[tuple[str, Report]],
    comparison: Any,
    *,
    template: str | Path | None = None,
    run_url: str | None = None,
    artifact_hint: str = "",
    mark: str = MARKER,
    limit: int = MAX_COMMENT_CHARS,
    cap: int = MAX_QUOTED_CHARS,
    html_report: str = "",
) -> str:
    """A model-against-model run (`comparison`: evalkit.compare.model_vs_model.ModelComparison): the
    side-by-side table first, then each model's own report under its name, fitted like one."""
    from evalkit.render.compare import render_model_comparison  # same package; kept out of the plain comment's path

    def capped(value: Any) -> str:
        return clean(value, cap)

    extra = {
        "block": lambda kind: f"{_OPEN}{kind}{_KIND_END}",
        "end_block": lambda: _CLOSE,
        "html_report": html_report,
        "comparison": None,
    }
    body = render_model_comparison(comparison, clean=capped)
    for model, report in runs:
        if run_url:
            report = report.model_copy(update={"run_url": run_url})
        body += f"\n---\n\n### Model {code_span(model)}\n\n" + render_markdown(
            report, template=template, clean=capped, extra=extra
        )
    return finish(body, mark=mark, limit=limit, artifact_hint=artifact_hint)


def finish(body: str, *, mark: str = MARKER, limit: int = MAX_COMMENT_CHARS, artifact_hint: str = "") -> str:
    """Add the marker and fit `limit`: drop whole blocks first, then cut at a line; any other
    comment opener in the body is defused."""
    # Our own marker goes first; any other `<!--` (a user template, a forged marker) cannot
    # hide text or pose as the marker.
    body = _COMMENT_OPENER.sub("&lt;!--", body.replace(mark, ""))
    where = f" ({artifact_hint})" if artifact_hint else ""
    room = limit - len(mark) - 1
    body, dropped = _drop_blocks(body, room - len(DROPPED_NOTE) - len(where) - 120)
    if dropped:
        body = body.rstrip("\n") + "\n\n" + DROPPED_NOTE.format(what=_describe(dropped), where=where) + "\n"
    if len(body) <= room:
        return with_marker(body, mark)
    note = TRUNCATED_NOTE.format(where=where)
    # Cut with room for closing the `<details>` blocks the cut leaves open.
    cut = truncate_markdown(body, room - 200, note)
    head = cut[: -len(note)] if cut.endswith(note) else cut
    unclosed = max(0, head.count("<details>") - head.count("</details>"))
    closers = "</details>\n\n" * min(unclosed, 15)
    return with_marker(head.rstrip("\n") + "\n\n" + closers + note, mark)


def _drop_blocks(body: str, room: int) -> tuple[str, dict[str, int]]:
    """`body` without its block sentinels, leaving out whole blocks (in `_DROP_ORDER`, each kind
    from the end) until it fits `room`; also how many of each kind went."""
    blocks = list(_BLOCK.finditer(body))
    dropped: set[int] = set()

    def text() -> str:
        parts, pos = [], 0
        for i, m in enumerate(blocks):
            parts.append(body[pos : m.start()])
            if i not in dropped:
                parts.append(m.group(2))
            pos = m.end()
        parts.append(body[pos:])
        return re.sub(r"\n{3,}", "\n\n", "".join(parts).replace(_OPEN, "").replace(_KIND_END, "").replace(_CLOSE, ""))

    size = len(text())
    for kind in _DROP_ORDER:
        for i in reversed(range(len(blocks))):
            if size <= room:
                break
            if blocks[i].group(1) == kind:
                dropped.add(i)
                size -= len(blocks[i].group(2))
    counts: dict[str, int] = {}
    for i in dropped:
        counts[blocks[i].group(1)] = counts.get(blocks[i].group(1), 0) + 1
    return text(), counts


def _describe(dropped: dict[str, int]) -> str:
    parts = []
    for kind in _DROP_ORDER:
        if dropped.get(kind):
            one, many = _DROPPED_NAMES[kind]
            parts.append(f"{dropped[kind]:,} {one if dropped[kind] == 1 else many}")
    return " and ".join(parts)


def setup_error_body(error: EvalkitError, *, where: Any = None, run_url: str | None = None, mark: str = MARKER) -> str:
    """The comment when the evals could not run (a broken suite file, a bad input, an unknown
    suite, a failed install): what is wrong and where, never a previous verdict.

    `where(problem)` gives a problem's location as shown (e.g. `evals/x.suite.yml:12`)."""
    lines = ["## ⚠️ evalkit: evals could not run", ""]
    if isinstance(error, SuiteError) and error.problems:
        count = len(error.problems)
        lines += [
            f"The suite files have {count} problem{'s' if count != 1 else ''}; no evaluation ran, "
            "so there is no verdict for this change.",
            "",
        ]
        for problem in error.problems[:MAX_LISTED_PROBLEMS]:
            at = where(problem) if where else (problem.file or "")
            at = f"{at}:{problem.line}" if at and problem.line else at
            who = f"case {problem.case_id}: " if problem.case_id else ""
            lines.append(f"- {code_span(at) + ' — ' if at else ''}{clean(who + problem.message)}")
        if count > MAX_LISTED_PROBLEMS:
            lines.append(f"- … and {count - MAX_LISTED_PROBLEMS} more (see the job log)")
    else:
        lines += [
            "No evaluation ran, so there is no verdict for this change:",
            "",
            "> " + clean(" ".join(str(error).split())),
        ]
    lines += ["", _footer(run_url)]
    return finish("\n".join(lines) + "\n", mark=mark)


def unfinished_body(reason: str, *, run_url: str | None = None, mark: str = MARKER) -> str:
    """The comment when the evals started but the run did not finish (its worker died, an internal
    error, a cancel): no verdict, and never a previous one left standing."""
    lines = [
        "## ❌ evalkit: the run did not finish",
        "",
        "The evaluation of this change started but did not finish, so there is no verdict for it:",
        "",
        "> " + clean(" ".join(reason.split())),
        "",
        _footer(run_url),
    ]
    return finish("\n".join(lines) + "\n", mark=mark)


def nothing_affected_body(
    changed: Sequence[str], reason: str, suites: Sequence[str], *, run_url: str | None = None, mark: str = MARKER
) -> str:
    """Short comment: which files changed, and that no suite watches them."""
    lines = ["## ⏭️ evalkit: no suite affected", ""]
    count = len(changed)
    lines.append(
        f"This change touches {count} file{'s' if count != 1 else ''} ({clean(reason)}), "
        "and no suite's `watch` globs match any of them, so no evaluation ran."
    )
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


def no_key_body(
    event_name: str,
    *,
    is_fork: bool,
    run_url: str | None = None,
    mark: str | None = None,
    failed: bool = False,
    federation: bool = False,
) -> str:
    """Why nothing ran when `anthropic_api_key` is empty (`federation`: the federation inputs are set
    but the job has no OIDC token), and how to fix it; `failed` when the missing credential is a
    misconfiguration (`on_missing_key: fail`), else a neutral skip."""
    if federation and not is_fork:
        why = (
            f"The federation inputs are set, but this {event_name or 'workflow'} run has no OIDC token "
            "(the job lacks `permissions: id-token: write`, or GitHub gives this run none)"
        )
    elif is_fork:
        why = (
            "This pull request comes from a fork. GitHub gives workflows of fork pull requests "
            "no secrets, so there is no Anthropic API key here"
        )
    else:
        why = (
            f"The `anthropic_api_key` input is empty on this {event_name or 'workflow'} run "
            "(Dependabot pull requests get no Actions secrets, or the secret is not set)"
        )
    if failed:
        head = "## ❌ evalkit: evals could not run — no API key"
        verdict = (
            "This fails the check: on this run a key was expected (`on_missing_key: fail`, the default "
            "for pull requests from this repository), so a missing one is a misconfiguration."
        )
    else:
        head = "## ⏭️ evalkit: evaluations skipped — no API key"
        verdict = "The evaluations were skipped; this is not a failure."
    lines = [
        head,
        "",
        f"{why}. {verdict}",
        "",
        (
            "To run them: give the job `permissions: id-token: write` (see the Action's docs, workload identity "
            "federation); for a fork, a maintainer can re-run the evals from a branch of this repository, or run "
            "`evalkit run` locally."
            if federation and not is_fork
            else "To run them: set the `ANTHROPIC_API_KEY` repository secret and pass it as "
            "`anthropic_api_key: ${{ secrets.ANTHROPIC_API_KEY }}`; for Dependabot add it as a "
            "Dependabot secret; for a fork, a maintainer can re-run the evals from a branch of this "
            "repository, or run `evalkit run` locally."
        ),
        "",
        _footer(run_url),
    ]
    body = "\n".join(lines) + "\n"
    return finish(body, mark=mark) if mark else body


def _footer(run_url: str | None) -> str:
    return f"[workflow run]({run_url})" if run_url else ""
