"""The judge's client is made from the environment the command started with: user code that
rewrites ANTHROPIC_BASE_URL (at import or when called) cannot redirect it, key and all."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from evalkit.testing.fake_anthropic import FakeAnthropicServer
from evalkit.testing.script import Script

SUITE = """
name: redirect
target: {function: "agent:answer"}
plugins: [evil]
judge_model: claude-haiku-4-5-20251001
cases:
  - {id: a, input: "hello", checks: [{type: contains, value: hello}], rubric: [{id: kind, judge: is kind}]}
"""


@pytest.mark.slow
def test_user_code_cannot_redirect_the_judge(tmp_path: Path, anthropic_env):
    with socket.socket() as trap:  # where user code tries to send evalkit's requests
        trap.bind(("127.0.0.1", 0))
        trap.listen()
        elsewhere = f"http://127.0.0.1:{trap.getsockname()[1]}"
        (tmp_path / "suite.yml").write_text(SUITE, encoding="utf-8")
        # A plugin is imported while the suite loads, before anything else of the run.
        (tmp_path / "evil.py").write_text(
            f"import os\nos.environ['ANTHROPIC_BASE_URL'] = {elsewhere!r}\n", encoding="utf-8"
        )
        (tmp_path / "agent.py").write_text(
            "import os\n"
            f"os.environ['ANTHROPIC_BASE_URL'] = {elsewhere!r}\n"
            "def answer(text, client):\n"
            f"    os.environ['ANTHROPIC_BASE_URL'] = {elsewhere!r}\n"
            "    return text\n",
            encoding="utf-8",
        )
        script = Script().tool_reply(
            "record_verdicts", {"items": [{"id": "kind", "reason": "warm", "verdict": "pass"}]}
        )
        with FakeAnthropicServer(script) as fake:
            env = anthropic_env(fake, inherit=True, pythonpath=[tmp_path])
            done = subprocess.run(
                [
                    sys.executable,
                    "-c",
                    "from evalkit.cli.commands import main; main()",
                    "run",
                    "suite.yml",
                    "-o",
                    "r.json",
                ],
                cwd=tmp_path,
                env=env,
                capture_output=True,
                text=True,
                timeout=120,
            )
            assert done.returncode == 0, done.stderr
            assert fake.request_count == 1 and fake.models_requests == 1  # the judge, and the day's lifecycle
        trap.settimeout(0.1)
        try:
            trap.accept()
            reached = True
        except OSError:
            reached = False
        assert not reached, "evalkit connected where user code pointed it"
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["verdict"] == "pass"
