"""A Report as JUnit XML: a testsuite per suite, a testcase per case and per comparison."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from evalkit.render.trajectory import tool_line
from evalkit.results.consistency import consistency
from evalkit.results.report import CaseResult, Report
from evalkit.trace.steps import tool_calls


def render_junit(report: Report) -> str:
    """JUnit XML: a testsuite per suite, a testcase per case (and per comparison)."""
    root = ET.Element(
        "testsuites",
        name="evalkit",
        tests=str(sum(len(s.cases) for s in report.suites)),
        time=f"{report.wall_seconds:.3f}",
    )
    for suite in report.suites:
        el = ET.SubElement(
            root,
            "testsuite",
            name=suite.name,
            tests=str(len(suite.cases)),
            failures=str(suite.count("fail") + suite.count("not_run")),
            errors=str(suite.count("error")),
            skipped=str(suite.count("skipped")),
            time=f"{suite.wall_seconds:.3f}",
        )
        if suite.usage.faults_absorbed:
            props = ET.SubElement(el, "properties")
            ET.SubElement(props, "property", name="faults_absorbed_by_retries", value=str(suite.usage.faults_absorbed))
            for kind, n in sorted(suite.usage.retried.items()):
                ET.SubElement(props, "property", name=f"retried_{kind}", value=str(n))
        if suite.error:
            tc = ET.SubElement(el, "testcase", classname=suite.name, name="(suite)")
            ET.SubElement(tc, "error", message=suite.error[:500]).text = suite.error
        for case in suite.cases:
            # time: the case's own; the wait for a concurrency slot is a property apart.
            tc = ET.SubElement(el, "testcase", classname=suite.name, name=case.id, time=f"{case.wall_seconds:.3f}")
            case_props = {"queue_seconds": f"{case.queue_seconds:.3f}"} if case.queue_seconds else {}
            runs = consistency(case)
            if runs is not None:  # a case with repeats: how many of its k runs passed, pass@k and pass^k
                case_props.update(
                    {
                        "runs_passed": f"{runs.passed}/{runs.k}",
                        "pass@k": str(runs.pass_at_k).lower(),
                        "pass^k": str(runs.pass_all_k).lower(),
                    }
                )
            case_props.update(_tool_properties(case))
            if case_props:
                el_props = ET.SubElement(tc, "properties")
                for name, value in case_props.items():
                    ET.SubElement(el_props, "property", name=name, value=value)
            detail = "\n".join(f"[run {r + 1}] {i.id} ({i.status}): {i.reason}" for r, i in case.failing_items())
            message = "; ".join(case.reasons)[:500]
            if case.verdict == "fail":
                ET.SubElement(tc, "failure", message=message).text = detail
            elif case.verdict == "error":
                ET.SubElement(tc, "error", message=message).text = "\n".join(case.errors) + "\n" + detail
            elif case.verdict == "inconclusive":  # a failure only where the suite says it counts as one
                ET.SubElement(
                    tc,
                    "failure" if suite.inconclusive == "fail" else "skipped",
                    message=("inconclusive: " + message)[:500],
                )
            elif case.verdict == "skipped":
                ET.SubElement(tc, "skipped", message="; ".join(case.reasons)[:500])
            elif case.verdict == "not_run":  # the budget stopped the run first: never a pass, and it fails the run
                ET.SubElement(tc, "failure", type="not_run", message=message)
        for cmp in suite.comparisons:
            tc = ET.SubElement(el, "testcase", classname=f"{suite.name}.compare", name=cmp.id)
            if cmp.status in ("fail", "error"):
                ET.SubElement(tc, "failure" if cmp.status == "fail" else "error", message=cmp.reason[:500])
    ET.indent(root)
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"


def _tool_properties(case: CaseResult) -> dict[str, str]:
    """A traced case's tool calls: `tool_calls` (a count a traced run, comma-separated with repeats)
    and `tool_sequence` (the calls in one line; `tool_sequence_run_N` a run with repeats)."""
    traced = [r for r in case.runs if r.trace is not None]
    if not traced:
        return {}
    props = {"tool_calls": ", ".join(str(len(tool_calls(r.trace or []))) for r in traced)}
    for run in traced:
        props["tool_sequence" if len(case.runs) == 1 else f"tool_sequence_run_{run.repeat + 1}"] = tool_line(run.trace)
    return props
