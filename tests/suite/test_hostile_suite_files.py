"""Suite files that would hang or eat the machine: each is exit 2 with its reason, in seconds and
little memory, through the real `evalkit validate` (what `run` also checks before any call)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

CLI = "import sys; from evalkit.cli.commands import main; sys.exit(main())"
CASE = "cases:\n  - id: a\n    input: {n: 10, who: x}\n    checks: [{type: contains, value: Hi}]\n"


def when(expr: str) -> str:
    return (
        f"name: w\ntarget: {{prompt: 'Hi {{{{ n }}}}'}}\n{CASE}"
        f"    rubric:\n      - {{id: r1, judge: is kind, when: {expr!r}}}\n"
    )


def prompt(text: str) -> str:
    return f"name: p\ntarget: {{prompt: {text!r}}}\n{CASE}"


HOSTILE = {
    "power tower in when": (when("input.n ** (input.n ** input.n) > 1"), "too large to compute"),
    "string times billions in when": (when("(input.who * 5000000000) != ''"), "past the limit of 1,000,000"),
    "string times billions in a prompt": (prompt("Hi {{ 'a' * 10000000000 }}"), "past the limit of 1,000,000"),
    "list times billions": (prompt("{{ [1] * 10000000000 }}"), "past the limit of 1,000,000"),
    "printf width": (prompt("{{ '%0999999999d' % 1 }}"), "format width"),
    "format width": (prompt("{{ '{:>999999999}'.format(1) }}"), "format width"),
    "center filter": (prompt("{{ 'a' | center(1000000000) }}"), "a width past the limit"),
    "str method width": (prompt("{{ 'a'.ljust(1000000000) }}"), "unsafe"),
    "replace bomb": (prompt("{{ ('a' * 100000) | replace('a', 'aaaaaaaaaaaaaaaaaaaa') }}"), "past the limit"),
    "long loop output": (
        prompt("{% for i in range(100000) %}{{ 'x' * 1000 }}{% endfor %}"),
        "over 2,000,000 characters",
    ),
}


def validate(path: Path, cwd: Path) -> tuple[int, str, float, int]:
    """Exit code, output, seconds, peak memory in MB of `evalkit validate path`."""
    started = time.monotonic()
    proc = subprocess.Popen(
        [sys.executable, "-c", CLI, "validate", str(path)],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        out, _ = proc.communicate(timeout=60)
    finally:
        proc.kill() if proc.poll() is None else None
    # The child's own peak, from the kernel (ru_maxrss in KB on Linux); reaped already: use the group's.
    import resource

    peak_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return proc.returncode, out, time.monotonic() - started, peak_kb // 1024


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_a_hostile_template_or_condition_is_refused_quickly(tmp_path, name):
    text, reason = HOSTILE[name]
    suite = tmp_path / "s.suite.yml"
    suite.write_text(text, encoding="utf-8")
    code, out, seconds, peak_mb = validate(suite, tmp_path)
    assert code == 2 and reason in out, out
    assert "Traceback" not in out and len(out.strip().splitlines()) == 2, out
    assert seconds < 30, seconds  # a bound for a loaded machine; each took about a second here
    assert peak_mb < 500, peak_mb  # the largest child this test process has run so far


def test_sound_templates_still_render(tmp_path):
    from evalkit.suite.prompts import render_prompt

    text = (
        "{{ name|center(9) }}|{{ '%05.1f' % x }}|{{ '{:>4}'.format(n) }}|{{ n ** 3 }}|{{ 'ab' * 3 }}|{{ name.upper() }}"
    )
    assert render_prompt(text, {"name": "Ada", "x": 3.14159, "n": 7}) == "   Ada   |003.1|   7|343|ababab|ADA"


@pytest.mark.parametrize("kind", ["fifo", "device", "folder", "bad utf-8"])
def test_a_prompt_file_that_is_not_a_regular_text_file_is_refused(tmp_path, kind):
    if kind == "fifo":
        os.mkfifo(tmp_path / "p.txt")
        reason = "prompt file is a FIFO, not a regular file"
    elif kind == "device":
        os.symlink("/dev/zero", tmp_path / "p.txt")  # refused before it is opened: it leads outside
        reason = "prompt file p.txt is outside the suite's folder"
    elif kind == "folder":
        (tmp_path / "p.txt").mkdir()
        reason = "prompt file is a folder, not a regular file"
    else:
        (tmp_path / "p.txt").write_bytes(b"Hi \xff\xfe")
        reason = "prompt file is not UTF-8 text"
    suite = tmp_path / "s.suite.yml"
    suite.write_text(f"name: f\ntarget: {{prompt_file: p.txt}}\n{CASE}", encoding="utf-8")
    code, out, seconds, _ = validate(suite, tmp_path)
    assert code == 2 and reason in out and "Traceback" not in out, out
    assert seconds < 30


@pytest.mark.parametrize("path", ["/dev/zero", "fifo"])
def test_validate_refuses_a_suite_path_that_is_no_regular_file(tmp_path, path):
    if path == "fifo":
        os.mkfifo(tmp_path / "s.suite.yml")
        path = str(tmp_path / "s.suite.yml")
    code, out, seconds, _ = validate(Path(path), tmp_path)
    assert code == 2 and "not a regular file" in out and "Traceback" not in out, out
    assert seconds < 30


def test_the_reader_refuses_devices_and_reads_no_more_than_the_limit(tmp_path, monkeypatch):
    from evalkit.suite.reading import read_suite_text

    with pytest.raises(ValueError, match="is a device, not a regular file"):
        read_suite_text(Path("/dev/zero"), "prompt file")
    monkeypatch.setenv("EVALKIT_YAML_MAX_BYTES", "10")
    (tmp_path / "big.txt").write_text("x" * 11, encoding="utf-8")
    with pytest.raises(ValueError, match="11 bytes, over the limit of 10"):
        read_suite_text(tmp_path / "big.txt")
    (tmp_path / "ok.txt").write_text("x" * 10, encoding="utf-8")
    assert read_suite_text(tmp_path / "ok.txt") == "x" * 10
