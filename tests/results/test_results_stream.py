"""The results stream and its one reader: the JSONL a run writes, the results JSON assembled from
it, partial runs, and resuming in process (the subprocess Ctrl-C / SIGTERM tests: test_resume.py)."""

from __future__ import annotations

import asyncio
import json

import pytest
from click.testing import CliRunner

from evalkit.cli.commands import main
from evalkit.engine import load_suites, make_client, run, run_and_save
from evalkit.results.reader import load_report, scan_results, write_report
from evalkit.results.report import Report
from evalkit.run.case_queue import run_windowed
from evalkit.run.runner import RunOptions
from evalkit.testing.script import Script, requested_tool
from evalkit.testing.scripted import ScriptedProvider

SUITE = """
name: km
target: {prompt: "Plan for {{ who }}"}
fields: {km: {type: number}}
compare:
  - {id: less, left: {case: beginner, field: km}, op: "<", right: {case: pro, field: km}}
cases:
  - {id: beginner, input: {who: beginner}, checks: [{type: contains, value: km}]}
  - {id: mid, input: {who: mid}, checks: [{type: contains, value: km}]}
  - {id: pro, input: {who: pro}, checks: [{type: contains, value: km}]}
  - {id: elite, input: {who: elite}, checks: [{type: contains, value: km}]}
"""


def km_script() -> Script:
    script = Script()
    for who, km in (("beginner", 15), ("mid", 30), ("pro", 65), ("elite", 90)):
        script.reply(f"{km} km", prompt=who).tool_reply("record_fields", {"km": km}, prompt=f"{km} km")
    return script


def run_to(path, jsonl, provider, **options):
    client = make_client(provider, no_cache=True, deprecated=None)
    return run(load_suites([path]), client, RunOptions(jsonl_path=jsonl, **options))


def cut_after(jsonl, cases: int) -> None:
    """What a run killed (SIGKILL, power cut) after `cases` finished cases leaves: no stopped or end line,
    and half of the line it was writing."""
    kept, seen = [], 0
    for line in jsonl.read_text().splitlines(keepends=True):
        if '"end": ' in line or ('"case": ' in line and seen == cases):
            break
        seen += '"case": ' in line
        kept.append(line)
    jsonl.write_text("".join(kept) + '{"run_id": "x", "suite": "km", "pa')


def test_results_json_is_assembled_from_the_jsonl(write, tmp_path):
    suite, jsonl, out = write("s.yml", SUITE), tmp_path / "r.jsonl", tmp_path / "r.json"
    client = make_client(ScriptedProvider(km_script()), no_cache=True, deprecated=None)
    summary = run_and_save(load_suites([suite]), client, RunOptions(jsonl_path=jsonl), out)
    assert summary.suites[0].cases == [] and summary.suites[0].count("pass") == 4  # the run kept a tally only
    written = Report.load(out)
    assert written == load_report(jsonl)  # one reader: the same Report either way
    assert [c.id for c in written.suites[0].cases] == ["beginner", "mid", "pro", "elite"]
    assert written.suites[0].comparisons[0].status == "pass" and written.run_id == summary.run_id
    assert not written.partial


def test_a_new_run_on_the_same_file_starts_afresh(write, tmp_path):
    suite, jsonl = write("s.yml", SUITE), tmp_path / "r.jsonl"
    first = run_to(suite, jsonl, ScriptedProvider(km_script()))
    second = run_to(suite, jsonl, ScriptedProvider(km_script()), cases=["pro"])
    assert first.run_id != second.run_id
    lines = [json.loads(line) for line in jsonl.read_text().splitlines()]
    assert {line["run_id"] for line in lines} == {second.run_id}
    assert [line["id"] for line in lines if "case" in line] == ["pro"]


def test_a_killed_run_reads_as_partial_and_resumes_without_its_finished_cases(write, tmp_path):
    suite, jsonl = write("s.yml", SUITE), tmp_path / "r.jsonl"
    whole = run_to(suite, jsonl, ScriptedProvider(km_script()))
    cut_after(jsonl, 2)
    scan = scan_results(jsonl)
    assert len(scan.cases) == 2 and scan.end is None  # the torn line is not a case
    partial = load_report(jsonl)
    assert partial.partial and partial.suites[0].comparisons == []
    assert "partial run: 2 of 4 cases finished" in partial.warnings[0]
    done = {c.id for c in partial.suites[0].cases}

    provider = ScriptedProvider(km_script())
    resumed = run_to(suite, jsonl, provider, resume=True)
    targets = sorted(b["messages"][0]["content"] for b in provider.requests if requested_tool(b) is None)
    assert targets == sorted(f"Plan for {who}" for who in ("beginner", "mid", "pro", "elite") if who not in done)
    assert not resumed.partial and resumed.run_id == whole.run_id
    assert [c.id for c in resumed.suites[0].cases] == ["beginner", "mid", "pro", "elite"]
    assert resumed.suites[0].comparisons[0].status == "pass"  # reads a case finished before the cut
    assert resumed.usage.calls == whole.usage.calls  # the killed session's calls counted from its cases


def test_resuming_a_finished_run_calls_nothing(write, tmp_path):
    suite, jsonl = write("s.yml", SUITE), tmp_path / "r.jsonl"
    whole = run_to(suite, jsonl, ScriptedProvider(km_script()))
    provider = ScriptedProvider(Script())
    again = run_to(suite, jsonl, provider, resume=True)
    assert provider.requests == []
    assert again.verdict == whole.verdict and again.usage == whole.usage
    assert [c.id for c in again.suites[0].cases] == [c.id for c in whole.suites[0].cases]


@pytest.fixture
def cli_env(fake_anthropic, anthropic_env):
    return anthropic_env(fake_anthropic(km_script()))


def invoke(*args, env):
    return CliRunner().invoke(main, list(map(str, args)), env=env, catch_exceptions=False)


def test_cli_report_renders_a_stopped_runs_jsonl_as_partial(write, tmp_path, cli_env):
    suite, out = write("s.yml", SUITE), tmp_path / "r.json"
    assert invoke("run", suite, "-o", out, env=cli_env).exit_code == 0
    cut_after(tmp_path / "r.jsonl", 3)
    md = invoke("report", tmp_path / "r.jsonl", env=cli_env)
    assert md.exit_code == 0 and "**Partial run**" in md.output and "--resume" in md.output
    assert json.loads(invoke("report", tmp_path / "r.jsonl", "--format", "json", env=cli_env).output)["partial"]


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda suite: suite.write_text(suite.read_text().replace("elite", "expert")), "changed since the run began"),
        (lambda suite: None, "--model 'claude-opus-4-1' differs"),
    ],
)
def test_cli_resume_refuses_a_run_it_would_mix_up(write, tmp_path, cli_env, change, message):
    suite, out = write("s.yml", SUITE), tmp_path / "r.json"
    assert invoke("run", suite, "-o", out, env=cli_env).exit_code == 0
    cut_after(tmp_path / "r.jsonl", 1)
    change(suite)
    result = invoke("run", "--resume", tmp_path / "r.jsonl", "--model", "claude-opus-4-1", env=cli_env)
    assert result.exit_code == 2 and message in result.output


def test_cli_resume_of_a_file_that_is_not_a_run(tmp_path, cli_env, monkeypatch):
    monkeypatch.chdir(tmp_path)  # no evalkit.yml here to name suites (the repository's own has one)
    (tmp_path / "x.jsonl").write_text('{"a": 1}\n')
    result = invoke("run", "--resume", tmp_path / "x.jsonl", env=cli_env)
    assert result.exit_code == 2 and "is not an evalkit results JSONL" in result.output
    assert invoke("run", env=cli_env).exit_code == 2  # neither suites nor --resume


def test_write_report_keeps_memory_flat_by_copying_bytes(write, tmp_path):
    suite, jsonl = write("s.yml", SUITE), tmp_path / "r.jsonl"
    run_to(suite, jsonl, ScriptedProvider(km_script()))
    out = tmp_path / "copy.json"
    summary = write_report(jsonl, out)
    assert summary.suites[0].cases == [] and Report.load(out) == load_report(jsonl)


def test_the_case_window_bounds_cases_in_flight_and_raises_the_first_failure():
    active, peak, seen = 0, 0, []

    async def one(i):
        nonlocal active, peak
        active += 1
        peak = max(peak, active)
        await asyncio.sleep(0)
        active -= 1
        seen.append(i)
        if i == 30:
            raise RuntimeError("case 30 broke")

    async def main_():
        await run_windowed(range(100), one, asyncio.Semaphore(5))

    with pytest.raises(RuntimeError, match="case 30"):
        asyncio.run(main_())
    assert peak == 5 and 30 in seen and len(seen) < 100


@pytest.mark.parametrize(
    "name, path, case_id",
    [
        ("km", "/suites/km.yml", "beginner"),
        ('naïve "quoted"', "C:\\suites\\km.yml", "é/x@1"),
        ("", "", "a\u2028b"),
    ],
)
def test_a_case_lines_head_is_the_json_of_its_fields(name, path, case_id):
    # The head is written from a prefix kept per suite; it must stay what JSON gives for the
    # whole head, whatever the names hold, for every reader that parses it alone.
    from evalkit.results.report import CaseResult, SuiteResult
    from evalkit.results.stream import CASE_KEY, case_line

    suite, case = SuiteResult(name=name, path=path, verdict="fail"), CaseResult(id=case_id, verdict="error")
    line = case_line("run-1", suite, 12, case).encode()
    head, _, rest = line.partition(CASE_KEY)
    assert json.loads(head + b"}") == {
        "run_id": "run-1",
        "suite": name,
        "path": path,
        "index": 12,
        "id": case_id,
        "verdict": "error",
    }
    assert head + b"}" == json.dumps(json.loads(head + b"}")).encode()  # json.dumps's own spacing
    assert json.loads(rest[:-2]) == json.loads(case.model_dump_json())


def test_case_lines_are_on_disk_once_the_event_loop_turns(tmp_path):
    from evalkit.results.report import CaseResult, SuiteResult
    from evalkit.results.stream import ResultsWriter

    suite = SuiteResult(name="km", path="km.yml", verdict="pass")
    writer = ResultsWriter(tmp_path / "r.jsonl", "run-1")

    def lines() -> int:
        return len((tmp_path / "r.jsonl").read_bytes().splitlines())

    async def finish_cases() -> list[int]:
        seen = []
        for i in range(3):  # the cases of one turn share a flush...
            writer.case(suite, i, CaseResult(id=f"c{i}", verdict="pass"))
        seen.append(lines())
        await asyncio.sleep(0)  # ...done before the loop waits for anything
        seen.append(lines())
        writer.case(suite, 3, CaseResult(id="c3", verdict="pass"))
        await asyncio.sleep(0)
        seen.append(lines())
        return seen

    assert asyncio.run(finish_cases()) == [0, 3, 4]
    writer.case(suite, 4, CaseResult(id="c4", verdict="pass"))  # no loop running: flushed at once
    assert lines() == 5
    writer.close()
