"""YAML limits: alias bombs, deep nesting, huge files and duplicate keys are refused with a line."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from evalkit.suite import yaml_reader as _yaml
from evalkit.suite.yaml_reader import read_yaml

LEVELS = "abcdefghi"


def alias_bomb() -> str:
    lines = ["name: bomb", 'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for prev, cur in zip(LEVELS, LEVELS[1:]):
        lines.append(f"{cur}: &{cur} [" + ",".join([f"*{prev}"] * 9) + "]")
    return "\n".join(lines + ["cases: [{id: x}]"]) + "\n"


def test_alias_bomb_is_refused_quickly_with_the_line_of_the_first_alias(tmp_path):
    path = tmp_path / "bomb.yml"
    path.write_text(alias_bomb())
    t0 = time.perf_counter()
    with pytest.raises(ValueError, match=r"bomb.yml:3: .*aliases are expanded"):
        read_yaml(path)
    # A hang guard, not a benchmark (benchmarks/yaml_limits.py prints the figure): expanded, the bomb
    # would take hours; refused, well under a second, with room for a loaded machine.
    assert time.perf_counter() - t0 < 60


def test_alias_bomb_through_the_cli_exits_2_with_the_line(tmp_path):
    path = tmp_path / "bomb.yml"
    path.write_text(alias_bomb())
    err = tmp_path / "err.txt"
    with err.open("w") as stderr:
        proc = subprocess.Popen(
            [str(Path(sys.executable).parent / "evalkit"), "validate", str(path)],
            stdout=subprocess.DEVNULL,
            stderr=stderr,
        )
        status = proc.wait()
    assert status == 2
    assert "bomb.yml:3:" in err.read_text() and "Traceback" not in err.read_text()
    # Memory is bounded by the RLIMIT_AS test below: a forked child's ru_maxrss starts at the
    # parent's size, so it measured the pytest process (and flaked once that passed 200 MB).


def test_moderate_aliases_are_fine(tmp_path):
    path = tmp_path / "ok.yml"
    path.write_text("base: &b {x: 1}\nuse: [*b, *b]\n")
    assert read_yaml(path).data == {"base": {"x": 1}, "use": [{"x": 1}, {"x": 1}]}


def _nested(levels: int) -> str:
    return "cases: " + "[" * levels + "]" * levels + "\n"


# libyaml (PyYAML's CSafeLoader) and PyYAML's own pure-Python SafeLoader: evalkit reads with the
# first where PyYAML has it and must give the same answers with either.
LOADERS = [pytest.param(yaml.SafeLoader, id="python")] + (
    [pytest.param(yaml.CSafeLoader, id="libyaml")] if hasattr(yaml, "CSafeLoader") else []
)


@pytest.mark.parametrize("loader", LOADERS)
def test_nesting_past_evalkits_limit_is_refused_with_the_limit(tmp_path, monkeypatch, loader):
    # 100 levels: past evalkit's limit (64) and well within any parser's own (libyaml's is 1,000),
    # so this is evalkit's own check, and its message, whatever PyYAML is installed.
    monkeypatch.setattr(_yaml, "_Loader", loader)
    path = tmp_path / "deep.yml"
    path.write_text(_nested(100))
    with pytest.raises(ValueError, match=r"deep.yml:1: nesting deeper than 64 levels \(EVALKIT_YAML_MAX_DEPTH\)\Z"):
        read_yaml(path)


@pytest.mark.parametrize("loader", LOADERS)
def test_the_nesting_limit_is_set_by_the_environment(tmp_path, monkeypatch, loader):
    monkeypatch.setattr(_yaml, "_Loader", loader)
    monkeypatch.setenv("EVALKIT_YAML_MAX_DEPTH", "3")
    path = tmp_path / "deep.yml"
    path.write_text(_nested(2))  # the mapping and two lists: 3 levels
    assert read_yaml(path).data == {"cases": [[]]}
    path.write_text(_nested(3))
    with pytest.raises(ValueError, match=r"deep.yml:1: nesting deeper than 3 levels"):
        read_yaml(path)


def test_deep_nesting_is_refused_not_a_crash(tmp_path):
    # 100,000 levels: evalkit's limit or the parser's own may notice first (the libyaml of PyYAML
    # 6.0.4's wheels stops at 1,000 levels of brackets, before evalkit sees the 65th; 6.0's does
    # not). Either way a one-line ValueError naming the file and the line, never a crash or a
    # hang; the wording of the parser's message is the parser's business, not evalkit's.
    path = tmp_path / "deep.yml"
    path.write_text(_nested(100_000))
    t0 = time.perf_counter()
    with pytest.raises(ValueError) as refused:
        read_yaml(path)
    assert time.perf_counter() - t0 < 60  # a hang guard, with room for a loaded machine
    message = str(refused.value)
    assert message.startswith(f"{path}:1: ") and "\n" not in message, message


def test_file_size_limit(tmp_path, monkeypatch):
    monkeypatch.setenv("EVALKIT_YAML_MAX_BYTES", "100")
    path = tmp_path / "big.yml"
    path.write_text("x: " + "a" * 200 + "\n")
    with pytest.raises(ValueError, match="over the limit of 100"):
        read_yaml(path)


def test_duplicate_keys_name_both_lines(tmp_path):
    path = tmp_path / "dup.yml"
    path.write_text("cases:\n  - id: a\n    checks: []\n    checks: [{type: contains, value: x}]\n")
    with pytest.raises(ValueError, match=r"dup.yml:4: duplicate key 'checks' \(first at line 3\)"):
        read_yaml(path)


def test_merge_keys_are_not_duplicates(tmp_path):
    path = tmp_path / "merge.yml"
    path.write_text("base: &b {x: 1, y: 2}\nitem:\n  <<: *b\n  y: 3\n")
    assert read_yaml(path).data["item"] == {"x": 1, "y": 3}


BOUNDED_READ = """
import resource, signal, sys
from pathlib import Path
from evalkit.suite.yaml_reader import read_yaml

# From here on: at most 200 MB of address space, and SIGPROF ends the process after 1 s of CPU.
resource.setrlimit(resource.RLIMIT_AS, (200 * 2**20, 200 * 2**20))
signal.setitimer(signal.ITIMER_PROF, 1.0)
try:
    read_yaml(Path(sys.argv[1]))
except ValueError as exc:
    print(exc)
    sys.exit(0)
sys.exit(1)
"""


def test_alias_bomb_is_refused_within_one_cpu_second_and_200_mb(tmp_path):
    # Resource limits, not a stopwatch: a bomb that expanded would die of SIGPROF or MemoryError.
    path = tmp_path / "bomb.yml"
    path.write_text(alias_bomb())
    proc = subprocess.run([sys.executable, "-c", BOUNDED_READ, str(path)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, (proc.returncode, proc.stderr)
    assert "bomb.yml:3: more than 2,000,000 values once aliases are expanded" in proc.stdout


def test_the_limits_would_catch_an_expanding_reader(tmp_path):
    # The harness itself can fail. The reader shares an alias's value instead of copying it, so
    # with the node limit lifted the bomb is read; whatever expands it next (validation, JSON)
    # is what the limit protects, and the harness kills that.
    path = tmp_path / "bomb.yml"
    path.write_text(alias_bomb())
    expanding = BOUNDED_READ.replace("read_yaml(Path(sys.argv[1]))", "json.dumps(read_yaml(Path(sys.argv[1])).data)")
    proc = subprocess.run(
        [sys.executable, "-c", "import json\n" + expanding, str(path)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "EVALKIT_YAML_MAX_NODES": str(10**12)},
    )
    # Killed by SIGPROF, or a MemoryError under RLIMIT_AS; never expanded to the end (exit 1, no error).
    assert proc.returncode != 0 and "more than" not in proc.stdout
    assert proc.returncode < 0 or "MemoryError" in proc.stderr, (proc.returncode, proc.stderr[-300:])
