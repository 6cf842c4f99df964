"""The broken-suite corpus through the real CLI: every broken file gets its expected exit code and a
one-line message naming the problem, never a traceback, never a hang, never silent acceptance.

Each folder under broken/ holds `broken.yml` (plus the modules or prompt files it names) and
`expected.yml`: `exit` and `message` for both commands, or per command under `validate:` / `run:`,
with optional `args` (`{dir}` is the case's folder; validate takes only a `--target` pair of them) and `env`."""

from __future__ import annotations

import resource
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from evalkit.testing.fake_anthropic import FakeAnthropicServer
from evalkit.testing.script import Script

BROKEN = Path(__file__).parent / "broken"
EVALKIT = str(Path(sys.executable).parent / "evalkit")
# Each command may use 5 s of CPU (RLIMIT_CPU: the same on an idle or a busy machine; each answer
# takes well under a second) and 120 s of wall time (a hang guard for what sleeps, like a hung target,
# with room for a machine whose cores are busy with other work). The suites' own time limits are 10 s
# where nothing should time out, and 1 s only where something must (target_hangs).
CPU_SECONDS = 5
WALL_SECONDS = 120.0


def _limit_cpu() -> None:
    resource.setrlimit(resource.RLIMIT_CPU, (CPU_SECONDS, CPU_SECONDS + 1))


def corpus() -> list[tuple[str, str, dict]]:
    cases = []
    for folder in sorted(p for p in BROKEN.iterdir() if p.is_dir()):
        expected = yaml.safe_load((folder / "expected.yml").read_text())
        for command in ("validate", "run"):
            want = expected.get(command) or {k: v for k, v in expected.items() if k in ("exit", "message", "env", "args")}
            cases.append(pytest.param(folder.name, command, {**{"env": expected.get("env", {})}, **want},
                                      id=f"{folder.name}-{command}"))
    return cases


@pytest.fixture(scope="module")
def fake():
    # A model that answers anything: a broken suite must be refused before it is ever called.
    with FakeAnthropicServer(Script().reply("hello")) as server:
        yield server


def test_the_corpus_is_large_enough():
    assert len([p for p in BROKEN.iterdir() if p.is_dir()]) >= 60


@pytest.mark.parametrize("name, command, want", corpus())
def test_broken_suite(name, command, want, fake, tmp_path, anthropic_env):
    folder = tmp_path / name
    shutil.copytree(BROKEN / name, folder)  # a private copy: runs write results and caches beside it
    args = [a.format(dir=folder) for a in want.get("args", [])]
    if command == "validate":  # validate takes `--target` as run does, and nothing else of run's
        args = args[args.index("--target"):args.index("--target") + 2] if "--target" in args else []
    if command == "run" and "--output" not in args:
        args += ["--output", str(tmp_path / "out" / "results.json")]
    env = anthropic_env(fake, inherit=True, CI="true", **want.get("env", {}))
    requests_before = len(fake.requests)
    proc = subprocess.run([EVALKIT, command, str(folder / "broken.yml"), *args], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=WALL_SECONDS,
                          preexec_fn=_limit_cpu)
    output = proc.stdout + proc.stderr
    assert proc.returncode >= 0, f"killed by signal {-proc.returncode} (SIGXCPU: over {CPU_SECONDS} s of CPU)"
    assert "Traceback" not in output, output
    assert proc.returncode == want["exit"], output
    assert want["message"] in output, output
    if want["exit"] == 2:
        assert len(fake.requests) == requests_before, "a configuration error must stop the run before any call"
        message_lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
        assert message_lines and message_lines[0].startswith("evalkit: "), output
