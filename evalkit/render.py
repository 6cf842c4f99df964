"""Render a Report: markdown through a Jinja template (replaceable), and JUnit XML."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

from evalkit.report import Report

DEFAULT_TEMPLATE = "report.md.j2"
ICONS = {"pass": "✅", "fail": "❌", "error": "⚠️", "skipped": "⏭️", "n/a": "➖"}


def _environment(template_dir: Path | None) -> Any:
    from jinja2 import ChoiceLoader, FileSystemLoader, PackageLoader, StrictUndefined
    from jinja2.sandbox import SandboxedEnvironment

    loaders = [PackageLoader("evalkit", "templates")]
    if template_dir is not None:
        loaders.insert(0, FileSystemLoader(str(template_dir)))
    # Sandboxed: a user's template from a PR must not reach Python internals.
    env = SandboxedEnvironment(loader=ChoiceLoader(loaders), undefined=StrictUndefined,
                               trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True)
    env.filters["pct"] = lambda v: "—" if v is None else f"{v:.0%}"
    env.filters["usd"] = lambda v: f"${v:.4f}" if v < 1 else f"${v:.2f}"
    env.filters["icon"] = lambda v: ICONS.get(v, v)
    env.filters["cell"] = _cell
    env.filters["clean"] = lambda v: str(v)
    env.filters["seconds"] = lambda v: f"{v:.1f} s" if v < 120 else f"{v / 60:.1f} min"
    env.filters["thousands"] = lambda v: f"{v:,}"
    return env


def _cell(value: Any) -> str:
    """Text safe inside one markdown table cell."""
    return " ".join(str(value).split()).replace("|", "\\|")


def render_markdown(report: Report, *, template: str | Path | None = None,
                    clean: Any = None, extra: dict[str, Any] | None = None) -> str:
    """Markdown for `report`; `template` is a user's file, `clean` neutralises untrusted text."""
    from jinja2 import TemplateError

    path = Path(template) if template else None
    env = _environment(path.parent if path else None)
    if clean is not None:
        env.filters["clean"] = clean
    try:
        tmpl = env.get_template(path.name if path else DEFAULT_TEMPLATE)
        return tmpl.render(report=report, **(extra or {}))
    except TemplateError as exc:
        from evalkit.errors import UsageError

        where = f" ({path})" if path else ""
        raise UsageError(f"report template{where}: {exc}") from None


def render_junit(report: Report) -> str:
    """JUnit XML: a testsuite per suite, a testcase per case (and per comparison)."""
    root = ET.Element("testsuites", name="evalkit", tests=str(sum(len(s.cases) for s in report.suites)),
                      time=f"{report.wall_seconds:.3f}")
    for suite in report.suites:
        el = ET.SubElement(root, "testsuite", name=suite.name, tests=str(len(suite.cases)),
                           failures=str(suite.count("fail")), errors=str(suite.count("error")),
                           skipped=str(suite.count("skipped")), time=f"{suite.wall_seconds:.3f}")
        if suite.error:
            tc = ET.SubElement(el, "testcase", classname=suite.name, name="(suite)")
            ET.SubElement(tc, "error", message=suite.error[:500]).text = suite.error
        for case in suite.cases:
            tc = ET.SubElement(el, "testcase", classname=suite.name, name=case.id, time=f"{case.wall_seconds:.3f}")
            detail = "\n".join(f"[run {r + 1}] {i.id} ({i.status}): {i.reason}" for r, i in case.failing_items())
            message = "; ".join(case.reasons)[:500]
            if case.verdict == "fail":
                ET.SubElement(tc, "failure", message=message).text = detail
            elif case.verdict == "error":
                ET.SubElement(tc, "error", message=message).text = "\n".join(case.errors) + "\n" + detail
            elif case.verdict == "skipped":
                ET.SubElement(tc, "skipped", message="; ".join(case.reasons)[:500])
        for cmp in suite.comparisons:
            tc = ET.SubElement(el, "testcase", classname=f"{suite.name}.compare", name=cmp.id)
            if cmp.status in ("fail", "error"):
                ET.SubElement(tc, "failure" if cmp.status == "fail" else "error", message=cmp.reason[:500])
    ET.indent(root)
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"
