"""The console script ends a saved run without the interpreter's teardown: exit handlers still
run, files user code left open are flushed, the exit code is the run's."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

from evalkit.testing.fake_anthropic import FakeAnthropicServer
from evalkit.testing.script import Script

EVALKIT = str(Path(sys.executable).parent / "evalkit")

AGENT = textwrap.dedent('''
    import atexit, os
    from pathlib import Path

    OUT = Path(os.environ["PROBE_DIR"])
    LOG = open(OUT / "left-open.log", "w", encoding="utf-8")  # never closed: teardown would flush it
    atexit.register(lambda: (OUT / "atexit.txt").write_text("ran", encoding="utf-8"))


    class Finalised:
        def __del__(self):  # runs in the interpreter's teardown only
            (OUT / "teardown.txt").write_text("ran", encoding="utf-8")


    KEEP = Finalised()


    def run(input, llm):
        LOG.write(f"case {input['name']}\\n")
        return llm.complete("Greet " + input["name"])
''')

SUITE = """
target: agent:run
model: claude-haiku-4-5-20251001
cases:
  - {id: ada, input: {name: Ada}, checks: [{type: contains, value: Hello}]}
  - {id: bob, input: {name: Bob}, checks: [{type: contains, value: Goodbye}]}
"""


def run_cli(tmp_path: Path, name: str, **env: str) -> tuple[int, Path]:
    probe = tmp_path / name
    probe.mkdir()
    with FakeAnthropicServer(Script().reply("Hello there")) as fake:
        proc = subprocess.run([EVALKIT, "run", str(tmp_path / "suite.yml"), "-o", str(probe / "r.json")],
                              env={**os.environ, "ANTHROPIC_API_KEY": "k", "ANTHROPIC_BASE_URL": fake.url,
                                   "EVALKIT_CACHE_DIR": str(probe / "cache"), "PROBE_DIR": str(probe), "CI": "1",
                                   **env}, capture_output=True, text=True, timeout=120)
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc.returncode, probe


def test_a_saved_run_ends_without_teardown_but_with_exit_handlers_and_flushed_files(tmp_path):
    (tmp_path / "agent.py").write_text(AGENT, encoding="utf-8")
    (tmp_path / "suite.yml").write_text(SUITE, encoding="utf-8")
    code, probe = run_cli(tmp_path, "quick")
    assert code == 1  # bob's check fails: the run's own exit code
    assert (probe / "r.json").exists()
    assert sorted((probe / "left-open.log").read_text(encoding="utf-8").splitlines()) == ["case Ada", "case Bob"]
    assert (probe / "atexit.txt").read_text(encoding="utf-8") == "ran"
    assert not (probe / "teardown.txt").exists()  # the teardown was skipped

    code, probe = run_cli(tmp_path, "slow", EVALKIT_SLOW_EXIT="1")
    assert code == 1 and (probe / "atexit.txt").exists() and (probe / "left-open.log").read_text(encoding="utf-8")
    assert (probe / "teardown.txt").read_text(encoding="utf-8") == "ran"  # the full teardown, as asked


def test_a_run_that_fails_to_start_exits_the_ordinary_way(tmp_path):
    (tmp_path / "suite.yml").write_text("cases: [", encoding="utf-8")
    code, _ = run_cli(tmp_path, "broken")
    assert code == 2
