"""`evalkit selftest` through the suite's own code: facts recomputed by the target, extraction replies
read by the run's extraction code; a tool or an extraction that no longer gives the gold entry fails."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import yaml
from click.testing import CliRunner

from evalkit.cli.commands import main
from evalkit.engine.selftest import selftest
from evalkit.suite import load_suite

pytest_plugins = ["pytester"]

REPO = Path(__file__).resolve().parents[2]

SUITE = """
name: coach
target: {module}:reply
fields:
  risk: {{type: boolean}}
  level: {{type: enum, values: [low, high]}}
cases:
  - id: hot
    input: {{acwr: 1.6}}
    rubric:
      - id: flags
        check: {{type: field, field: risk, equals: true}}
        when: "facts.acwr > 1.5"
gold:
  - case: hot
    output: Easy week; your load is high, so injury risk is up.
    fields: {{risk: true, level: high}}
    facts: {{acwr: 1.6}}
    labels: {{flags: pass}}
{extra}"""

COACH = """
from evalkit.run.targets import TargetResult

def reply(input, llm):
    return TargetResult(output=llm.complete("coach me"), facts={{"acwr": round(input["acwr"] * {scale}, 2)}})
"""


def _suite(write, module: str, *, scale: float = 1, extra: str = "") -> Path:
    write(f"{module}.py", COACH.format(scale=scale))
    return write("s.yml", SUITE.format(module=module, extra=extra))


def test_a_tool_whose_output_no_longer_matches_the_recorded_facts_fails(write):
    path = _suite(write, "replay_drift", scale=1.25)  # the "tool" now gives 2.0, the entry records 1.6
    result = selftest(load_suite(path))
    assert not result.ok and result.disagreements == []
    assert result.problems == ["s.yml:14 case hot: fact acwr: recorded 1.6, now 2.0"]
    run = CliRunner().invoke(main, ["selftest", str(path)])
    assert run.exit_code == 1
    assert "WRONG s.yml:14 case hot: fact acwr: recorded 1.6, now 2.0" in run.output


def test_facts_the_tools_reproduce_pass_and_are_counted(write):
    result = selftest(load_suite(_suite(write, "replay_same")))
    assert result.ok, result.problems
    assert "facts recomputed by the target for 1, extraction replayed for 1" in result.summary()


def test_a_target_that_cannot_recompute_the_facts_fails(write):
    write("replay_broken.py", "def reply(input, llm):\n    raise RuntimeError('profile missing')\n")
    result = selftest(load_suite(write("s.yml", SUITE.format(module="replay_broken", extra=""))))
    assert result.problems == [
        "s.yml:14 case hot: facts cannot be recomputed: target raised RuntimeError: profile missing"
    ]


def test_the_facts_decide_the_items_as_the_target_computes_them(write):
    # the tool now says 1.2: `flags` no longer applies, so its pass label is contradicted as well
    result = selftest(load_suite(_suite(write, "replay_low", scale=0.75)))
    assert result.problems == ["s.yml:14 case hot: fact acwr: recorded 1.6, now 1.2"]
    assert [(d.item_id, d.label, d.verdict) for d in result.disagreements] == [("flags", "pass", "n/a")]


WRONG_EXTRACTION = """\
  - case: hot
    output: Easy week; your load is high, so injury risk is up.
    extraction: {risk: false, level: high}
    fields: {risk: true, level: high}
    facts: {acwr: 1.6}
    labels: {flags: pass}
"""


def test_a_wrong_extraction_of_a_gold_output_fails(write):
    result = selftest(load_suite(_suite(write, "replay_x1", extra=WRONG_EXTRACTION)))
    assert result.problems == ["s.yml:19 case hot: extraction of risk: recorded true, now false"]
    # the items read the extracted value, as in a run: `flags` fails on it
    assert [(d.item_id, d.label, d.verdict) for d in result.disagreements] == [("flags", "pass", "fail")]
    assert "(1 recorded reply, 1 read from `fields:`)" in result.summary()


def test_an_extraction_reply_the_run_would_reject_fails_and_a_raw_one_it_accepts_passes(write):
    bad = WRONG_EXTRACTION.replace("{risk: false, level: high}", "{risk: true, level: extreme}")
    result = selftest(load_suite(_suite(write, "replay_x2", extra=bad)))
    assert result.problems == [
        "s.yml:19 case hot: extraction: extraction reply invalid after a retry: field "
        "'level': 'extreme' is not one of ['low', 'high']"
    ]
    raw = WRONG_EXTRACTION.replace("{risk: false, level: high}", "{risk: 'true', level: High}")
    result = selftest(load_suite(_suite(write, "replay_x3", extra=raw)))
    assert result.ok, result.problems


def _pace_ai_copy(tmp_path: Path) -> Path:
    copy = tmp_path / "pace_ai"
    shutil.copytree(REPO / "suites" / "pace_ai", copy, ignore=shutil.ignore_patterns("__pycache__"))
    return copy


def test_pace_ai_selftest_fails_when_a_tool_changes(tmp_path):
    copy = _pace_ai_copy(tmp_path)
    tools = copy / "pace_ai" / "tools.py"
    text = tools.read_text(encoding="utf-8")
    assert text.count("last4 = weeks[-4:]") == 1
    tools.write_text(text.replace("last4 = weeks[-4:]", "last4 = weeks[-3:]"), encoding="utf-8")  # a 3-week window
    done = subprocess.run(
        [str(Path(sys.executable).with_name("evalkit")), "selftest", str(copy)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=300,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert "WRONG pace_ai.yml:" in done.stdout and ": fact acwr: recorded " in done.stdout


def test_pace_ai_selftest_fails_on_a_wrong_extraction_of_a_gold_output(tmp_path):
    copy = _pace_ai_copy(tmp_path)
    gold_file = copy / "gold" / "pace_ai.yml"
    entries = yaml.safe_load(gold_file.read_text(encoding="utf-8"))
    first = entries[0]
    # an extractor that reads the 16 km long run as 21 km, and calls the marathon session a "track" one
    days = [dict(d) for d in first["fields"]["days"]]
    days[2]["session"] = "track"
    first["extraction"] = {**first["fields"], "long_run_km": 21}
    second = entries[1]
    second["extraction"] = {**second["fields"], "days": days}
    gold_file.write_text(yaml.safe_dump(entries, sort_keys=False), encoding="utf-8")
    result = selftest(load_suite(copy / "suite.yml"))
    problems = result.problems
    assert any("extraction of long_run_km: recorded 16, now 21.0" in p for p in problems), problems
    assert any(
        "extraction: extraction reply invalid after a retry: field 'days[2].session': 'track'" in p for p in problems
    ), problems
    assert not result.ok


def test_a_recorded_extraction_without_the_fields_it_must_give_is_a_file_problem(write):
    entry = WRONG_EXTRACTION.replace("    fields: {risk: true, level: high}\n", "")
    path = _suite(write, "replay_x4", extra=entry)
    run = CliRunner().invoke(main, ["selftest", str(path)])
    assert run.exit_code == 2 and "Traceback" not in run.output
    assert (
        "line 21: case hot: gold: `extraction:` needs `fields:` (the values the recorded reply must give)" in run.output
    )


def test_a_suite_without_a_target_has_its_gold_facts_taken_as_written_and_says_so(write):
    path = write(
        "nt.yml",
        """
        name: nt
        cases:
          - id: c
            rubric: [{id: hot, check: {type: contains, value: run}, when: "facts.acwr > 1.5"}]
        gold:
          - {case: c, output: an easy run, facts: {acwr: 1.6}, labels: {hot: pass}}
          - {case: c, output: an easy walk, facts: {acwr: 1.1}, labels: {hot: n/a}}
        """,
    )
    result = selftest(load_suite(path))
    assert result.ok, result.problems + [d.describe() for d in result.disagreements]
    assert "facts as written for 2 (the suite names no target to recompute them)" in result.summary()


def test_a_gold_pytest_item_fails_on_a_changed_fact(pytester):
    pytester.path.joinpath("replay_plugin.py").write_text(COACH.format(scale=1.25))
    pytester.path.joinpath("coach.suite.yml").write_text(SUITE.format(module="replay_plugin", extra=""))
    result = pytester.runpytest("-p", "no:xdist")
    result.assert_outcomes(failed=1, deselected=1)
    result.stdout.fnmatch_lines(
        ["*gold entry contradicted by the suite's code*", "*case hot: fact acwr: recorded 1.6, now 2.0*"]
    )
