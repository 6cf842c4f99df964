"""A judge or extraction server that never answers becomes an error row at `timeout.judge`."""

from __future__ import annotations

import json
import threading
import time

from click.testing import CliRunner

from evalkit.cli.commands import main
from evalkit.testing.script import Script

SUITE = """
name: silent-judge
target: {{prompt: "Greet {{{{ name }}}}"}}
model: claude-haiku-4-5-20251001
timeout: {{target: 30, judge: {limit}}}
fields:
  greeting: {{type: string}}
cases:
  - id: ada
    input: {{name: Ada}}
    checks: [{{type: contains, value: Ada}}]
    rubric: [{{id: warm, judge: is warm}}]
    fields: [greeting]
"""


def test_a_silent_judge_is_an_error_row_at_the_limit(write, tmp_path, fake_anthropic, anthropic_env):
    release = threading.Event()

    def silent(body):  # accepts the request and never answers (until the test ends)
        release.wait(600)
        return "too late"

    script = Script().respond(silent, tool="record_verdicts").respond(silent, tool="record_fields").reply("Hello Ada")
    suite = write("s.yml", SUITE.format(limit=2))
    fake = fake_anthropic(script)
    env = anthropic_env(fake)
    started = time.monotonic()
    try:
        result = CliRunner().invoke(main, ["run", str(suite), "-o", str(tmp_path / "r.json")], env=env)
    finally:
        release.set()
    took = time.monotonic() - started
    assert result.exit_code == 1, result.output
    assert took < 100, took  # a hang guard: the limit is 2 s; unheld, the judge would answer only at 600 s
    run = json.loads((tmp_path / "r.json").read_text())["suites"][0]["cases"][0]["runs"][0]
    # The judge and the extraction of the output are one call: both are errors at its limit.
    assert run["extraction_error"] == "judge and extraction call took over 2 s (the suite's timeout.judge)"
    warm = next(item for item in run["items"] if item["id"] == "warm")
    assert "judge and extraction call took over 2 s" in json.dumps(warm)


def test_the_judge_limit_is_part_of_the_suite_format(write):
    suite = write("s.yml", SUITE.format(limit=0))
    result = CliRunner().invoke(main, ["validate", str(suite)])
    assert result.exit_code == 2 and "timeout.judge" in result.output
