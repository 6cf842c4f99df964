"""The console script exits as Python does, with the heap frozen first: what user code imported into
evalkit's own process leaves open is still flushed and closed, and its atexit handlers still run."""

from __future__ import annotations

import gc
import subprocess
import sys
from pathlib import Path

from evalkit._runtime import gc_pause
from evalkit.testing.script import Script

# Imported by evalkit itself (a plugin registers its checks in evalkit's process): a file written
# and never flushed or closed, held by the module; and an atexit handler, which also notes whether
# the heap is frozen by the time the interpreter shuts down.
PLUGIN = """
import atexit
import gc

kept = open("module.txt", "w")
kept.write("held by the module")

atexit.register(lambda: open("atexit.txt", "w").write(f"atexit ran, {gc.get_freeze_count()} frozen"))
"""

SUITE = """
target: {prompt: "Say hi"}
plugins: [leaves_files_open]
cases:
  - {id: a, input: {}, checks: [{type: contains, value: hi}]}
"""


def test_the_console_script_exit_flushes_what_user_code_left_open_and_runs_atexit(
    tmp_path: Path, fake_anthropic, anthropic_env
):
    (tmp_path / "leaves_files_open.py").write_text(PLUGIN, encoding="utf-8")
    (tmp_path / "s.yml").write_text(SUITE, encoding="utf-8")
    fake = fake_anthropic(Script().reply("hi there"))
    env = anthropic_env(fake, inherit=True, pythonpath=[tmp_path])
    done = subprocess.run(
        [str(Path(sys.executable).parent / "evalkit"), "run", "s.yml", "-o", "out.json"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "module.txt").read_text() == "held by the module"
    ran, frozen = (tmp_path / "atexit.txt").read_text().split(", ")
    assert ran == "atexit ran"
    assert int(frozen.split()[0]) > 10_000  # the heap (the SDK's modules among it) frozen on the way out


def test_frozen_exit_collects_garbage_before_freezing():
    import weakref

    class Node:
        pass

    collected = []
    a = Node()
    a.me = a
    weakref.finalize(a, collected.append, "finalized")
    del a
    try:
        gc_pause.frozen_exit()
        assert collected == ["finalized"]
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()
