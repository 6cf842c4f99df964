"""The process that holds the key is out of the reach of the user code it runs: a target (same
user, even root) that reads its parent's memory and environment finds no key, its own environment
holds none, and a target that rewrites the response cache changes no verdict (every entry is
sealed by the run's process with a key the worker never sees; a tampered entry is a miss)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from evalkit.scoring.judge import JUDGE_TOOL
from evalkit.testing.script import Script
from tests.conftest import verdicts
from tests.fakes import child_env, model_env

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="/proc and prctl are Linux's")

KEY = "sk-ant-" + "probe-" + "Zq81xK4mW0"  # built at run time: not a constant the probe could match on
PROBE = """
import json, os, pathlib

KEY = os.environ.get("PROBE_KEY_HINT", "").encode()[::-1]  # the test's key, reversed: only the probe unreverses it


def _parent_memory(pid):
    try:
        with open(f"/proc/{pid}/maps") as maps, open(f"/proc/{pid}/mem", "rb", 0) as mem:
            for line in maps:
                addr, perms = line.split()[:2]
                start, end = (int(x, 16) for x in addr.split("-"))
                if not perms.startswith("r") or end - start > 1 << 30:
                    continue
                try:
                    mem.seek(start)
                    if KEY in mem.read(end - start):
                        return "found"
                except (OSError, ValueError, OverflowError):
                    continue
    except OSError as exc:
        return f"refused: {exc.strerror}"
    return "read, not found"


def _parent_environ(pid):
    try:
        data = pathlib.Path(f"/proc/{pid}/environ").read_bytes()
    except OSError as exc:
        return f"refused: {exc.strerror}"
    return "found" if KEY in data else "read, not found"


def _tamper(folder):
    rewritten = 0
    for path in pathlib.Path(folder).rglob("*.json"):
        text = path.read_text()
        if '"fail"' in text:
            data = json.loads(text)
            data.pop("seal", None)
            path.write_text(json.dumps(data).replace('"fail"', '"pass"'))
            rewritten += 1
    return rewritten


def probe(i):
    pid = os.getppid()
    found = {"memory": _parent_memory(pid), "environ": _parent_environ(pid),
             "own environment": "found" if any(KEY.decode() in v for v in os.environ.values()) else "not found",
             "cache entries rewritten": _tamper(os.environ["EVALKIT_CACHE_DIR"])}
    pathlib.Path(os.environ["PROBE_OUT"]).write_text(json.dumps(found))
    return "a wrong answer"
"""

SUITE = """
name: probe
model: claude-haiku-4-5-20251001
target: probe:probe
checks:
  - {type: llm_judge, criteria: "The answer is right"}
cases:
  - {id: a, input: {q: x}}
"""


def _run(tmp_path: Path, fake_url: str) -> tuple[subprocess.CompletedProcess[str], dict]:
    out = tmp_path / "probe.json"
    proc = subprocess.run(
        [str(Path(sys.executable).parent / "evalkit"), "run", "s.yml", "-o", "out/results.json"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
        env={
            **child_env(),
            **model_env(fake_url, tmp_path / "cache", key=KEY),
            "CI": "true",
            "PROBE_OUT": str(out),
            "PROBE_KEY_HINT": KEY[::-1],
        },
    )
    return proc, json.loads(out.read_text()) if out.is_file() else {}


def test_a_target_finds_no_key_in_reach_and_a_rewritten_cache_changes_no_verdict(write, tmp_path, fake_anthropic):
    write("probe.py", PROBE)
    write("s.yml", SUITE)
    script = Script().reply("a wrong answer").tool_reply(JUDGE_TOOL, verdicts({"check1:llm_judge": "fail"}))
    fake = fake_anthropic(script)
    first, found = _run(tmp_path, fake.url)
    assert first.returncode == 1, first.stdout + first.stderr
    assert found["memory"] != "found" and found["environ"] != "found", found
    assert found["own environment"] == "not found", found
    judged = fake.request_count
    second, found = _run(tmp_path, fake.url)  # the judge's "fail" is in the cache now: the probe rewrites it
    assert found["cache entries rewritten"] >= 1, found
    assert second.returncode == 1, "a rewritten cache entry served a verdict: " + second.stdout + second.stderr
    assert fake.request_count > judged, "the tampered entry was a miss: the judge was asked again"
    verdict = json.loads((tmp_path / "out" / "results.json").read_text())["suites"][0]["cases"][0]["verdict"]
    assert verdict == "fail"
