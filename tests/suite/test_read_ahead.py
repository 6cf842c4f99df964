"""Suite files parsed in a forked child read exactly as parsed here: data, line map, errors;
a child that dies leaves its files to be parsed here; without a fork, nothing changes."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from evalkit.engine import calls_certain, early_provider, load_suites
from evalkit.errors import SuiteError
from evalkit.suite import read_ahead
from evalkit.suite._yaml import read_yaml

SUITE = """\
name: ahead
model: claude-haiku-4-5-20251001
target: {prompt: 'Say {{ word }}'}
cases: cases.yml
"""
CASES = "".join(f"- {{id: c{i}, input: {{word: w{i}}}, checks: [{{type: equals, value: w{i}}}]}}\n"
                for i in range(50))
BROKEN = "name: broken\ncases:\n  - {id: a, input: {x: 1}\n"  # an unclosed flow mapping
INVALID = "name: invalid\ncases:\n  - {id: a, input: {x: 1}, checks: [{type: no_such_check}]}\n"


def write_files(root: Path) -> list[Path]:
    (root / "a.suite.yml").write_text(SUITE, encoding="utf-8")
    (root / "cases.yml").write_text(CASES, encoding="utf-8")
    (root / "broken.suite.yml").write_text(BROKEN, encoding="utf-8")
    (root / "invalid.suite.yml").write_text(INVALID, encoding="utf-8")
    (root / "lost.suite.yml").write_text("name: lost\ncases: missing.yml\n", encoding="utf-8")
    return [root / name for name in ("a.suite.yml", "broken.suite.yml", "invalid.suite.yml", "lost.suite.yml")]


def outcome(read, path: Path) -> list:
    """What reading a file gives, comparable across processes: its data and line map, or its error."""
    try:
        doc = read(path)
    except (OSError, ValueError) as exc:
        return ["error", str(exc)]
    return ["doc", doc.data, sorted([list(loc), line] for loc, line in doc._lines.items()),
            doc.line(("cases", 3, "checks", 0, "value")) if isinstance(doc.data, dict) else doc.line((3, "id"))]


# Run in a fresh interpreter: one with no other thread, as `evalkit run` is when it loads.
CHILD = textwrap.dedent("""
    import json, os, signal, sys
    from pathlib import Path
    sys.path.insert(0, sys.argv[2])
    from test_read_ahead import outcome, write_files
    from evalkit.suite import read_ahead
    root = Path(sys.argv[1])
    files = write_files(root)
    every = files + [root / "cases.yml", root / "missing.yml"]
    ahead = read_ahead.ReadAhead(files)
    started = ahead.started
    local, parse_here = [], read_ahead.read_yaml
    read_ahead.read_yaml = lambda path: local.append(path.name) or parse_here(path)  # files parsed here
    if sys.argv[3] == "kill":  # the child dies before it hands anything over
        os.kill(ahead._pid, signal.SIGKILL)
    got = {p.name: outcome(ahead.read, p) for p in every}
    ahead.close()
    print(json.dumps({"started": started, "got": got, "local": local}))
""")


def run_child(tmp_path: Path, mode: str) -> dict:
    proc = subprocess.run([sys.executable, "-c", CHILD, str(tmp_path), str(Path(__file__).parent), mode],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def expected(tmp_path: Path) -> dict:
    every = write_files(tmp_path) + [tmp_path / "cases.yml", tmp_path / "missing.yml"]
    return {p.name: json.loads(json.dumps(outcome(read_yaml, p))) for p in every}


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="files are read ahead on Linux only")
@pytest.mark.parametrize("mode", ["live", "kill"])
def test_files_read_in_a_child_are_the_files_read_here(tmp_path, mode):
    result = run_child(tmp_path, mode)
    assert result["started"] is True
    want = expected(tmp_path)
    assert result["got"] == want
    # Alive, the child parsed every file (the case files suites name too); killed, none.
    assert result["local"] == ([] if mode == "live" else list(want))
    assert want["a.suite.yml"][0] == want["cases.yml"][0] == "doc"
    assert want["broken.suite.yml"][0] == want["missing.yml"][0] == "error"


def test_with_another_thread_alive_nothing_is_forked(monkeypatch, tmp_path):
    monkeypatch.setattr(read_ahead.threading, "active_count", lambda: 2)
    files = write_files(tmp_path)
    ahead = read_ahead.ReadAhead(files)
    assert not ahead.started
    assert [outcome(ahead.read, p) for p in files] == [outcome(read_yaml, p) for p in files]


@pytest.mark.parametrize("fork", [True, False])
def test_load_suites_gives_the_same_suites_and_errors_and_runs_meanwhile_once(monkeypatch, tmp_path, fork):
    monkeypatch.setattr(read_ahead, "can_fork", lambda: fork)
    files = write_files(tmp_path)
    calls = []
    suites = load_suites([files[0]], meanwhile=lambda: calls.append("built"))
    assert calls == ["built"]
    assert repr(suites) == repr(load_suites([files[0]]))
    assert [c.id for c in suites[0].cases] == [f"c{i}" for i in range(50)]
    names = [*files, tmp_path / "nowhere.suite.yml"]
    with pytest.raises(SuiteError) as plain:
        load_suites(names)
    with pytest.raises(SuiteError) as ahead:
        load_suites(names, meanwhile=lambda: None)
    assert str(ahead.value) == str(plain.value)
    assert "missing.yml" in str(plain.value) and "no_such_check" in str(plain.value)


def test_a_run_is_certain_to_call_the_model_without_a_cache_or_with_an_empty_one(tmp_path):
    cache = tmp_path / "cache"
    assert calls_certain(no_cache=False, cache_dir=cache)  # no folder yet
    cache.mkdir()
    assert calls_certain(no_cache=False, cache_dir=cache)
    (cache / "ab").mkdir()
    assert not calls_certain(no_cache=False, cache_dir=cache)
    assert calls_certain(no_cache=True, cache_dir=cache)


def test_only_a_run_certain_to_call_the_model_with_a_key_gets_its_provider_before_loading(monkeypatch, tmp_path):
    cache = tmp_path / "cache"
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    assert early_provider(max_connections=8, no_cache=True, cache_dir=cache) is None  # exit 2 comes later
    monkeypatch.setenv("ANTHROPIC_API_KEY", "k")
    provider = early_provider(max_connections=8, no_cache=False, cache_dir=cache)
    assert provider is not None and not provider.built  # made, not yet built: built while suites parse
    (cache / "ab").mkdir(parents=True)
    assert early_provider(max_connections=8, no_cache=False, cache_dir=cache) is None
