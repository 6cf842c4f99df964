"""A run's trajectory survives the results files: the JSON report and the run's JSONL (written by
the stream, read by the one reader, assembled into the JSON) give back the same steps; a lone
surrogate in a tool's result is stored as U+FFFD, not a lost case; results older than traces load."""

from __future__ import annotations

import json

from evalkit.results.reader import load_report, write_report
from evalkit.results.report import CaseResult, Report, RunResult, SuiteResult
from evalkit.results.stream import ResultsWriter
from evalkit.trace.steps import Step

TRACE = [
    Step.message("user", "plan my week", start=0.0),
    Step.message("assistant", "", start=0.1, seconds=0.8),
    Step.tool_call(
        "analyze_load",
        {"weeks": [30, 32], "athlete": {"id": 7, "name": "Zoë"}},
        result={"acwr": 1.4},
        id="toolu_1",
        start=0.9,
        seconds=0.02,
    ),
    Step.tool_call("book", {"day": "mon"}, error="calendar is read-only", id="toolu_2"),
    Step.message("assistant", "Here is your week.", start=1.0, seconds=0.5),
]


def _report(trace=TRACE) -> Report:
    case = CaseResult(
        id="plan",
        verdict="pass",
        runs=[RunResult(repeat=0, output="Here is your week.", trace=trace), RunResult(repeat=1, output="plain")],
    )
    return Report(verdict="pass", suites=[SuiteResult(name="s", path="s.yml", verdict="pass", cases=[case])])


def _jsonl(tmp_path, report: Report):
    path = tmp_path / "run.jsonl"
    writer = ResultsWriter(path, "run-1")
    writer.header("2026-01-01T00:00:00Z", ["s.yml"], {}, {})
    suite = report.suites[0]
    writer.event(suite_start=json.loads(suite.model_copy(update={"cases": []}).model_dump_json()), planned=1)
    written = writer.case(suite, 0, suite.cases[0])
    writer.end(report.model_copy(update={"suites": [suite.model_copy(update={"cases": []})]}))
    writer.close()
    return path, written


def test_the_json_report_keeps_every_step(tmp_path):
    _report().save(tmp_path / "r.json")
    runs = Report.load(tmp_path / "r.json").suites[0].cases[0].runs
    assert runs[0].trace == TRACE and runs[1].trace is None
    assert runs[0].trace[3].error == "calendar is read-only" and runs[0].trace[2].arguments["athlete"]["name"] == "Zoë"


def test_the_jsonl_stream_and_the_json_assembled_from_it_keep_every_step(tmp_path):
    path, _ = _jsonl(tmp_path, _report())
    assert load_report(path).suites[0].cases[0].runs[0].trace == TRACE
    write_report(path, tmp_path / "r.json")
    assert Report.load(tmp_path / "r.json").suites[0].cases[0].runs[0].trace == TRACE


def test_a_lone_surrogate_in_a_tool_result_is_stored_not_lost(tmp_path):
    trace = [Step.tool_call("read", {"path": "a\udcff"}, result="bytes \ud800 here")]
    path, written = _jsonl(tmp_path, _report(trace))
    assert written.runs[0].trace[0].result == "bytes \ufffd here"  # the result as the line holds it
    (call,) = load_report(path).suites[0].cases[0].runs[0].trace
    assert call.name == "read" and call.result == "bytes \ufffd here" and call.arguments == {"path": "a\ufffd"}
    _report(trace).save(tmp_path / "r.json")
    assert Report.load(tmp_path / "r.json").suites[0].cases[0].runs[0].trace[0].result == "bytes \ufffd here"


def test_results_written_before_traces_still_load(tmp_path):
    data = json.loads(_report().model_dump_json())
    for run in data["suites"][0]["cases"][0]["runs"]:
        del run["trace"]
    (tmp_path / "old.json").write_text(json.dumps(data))
    assert all(r.trace is None for r in Report.load(tmp_path / "old.json").suites[0].cases[0].runs)
