"""Every byte we were paid for is kept: replies stored as they came where JSON can hold them (a
lone surrogate, which UTF-8 cannot encode, as U+FFFD), a case that cannot be stored an error row,
results written whole (temporary file, fsync, rename), the JSONL whole lines on a full disk, an
output that cannot be written a one-line error (exit 2 before any call)."""

from __future__ import annotations

import contextlib
import errno
import json
import os
import resource
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from evalkit.testing.script import Script
from tests.fakes import child_env, model_env

EVALKIT = str(Path(sys.executable).parent / "evalkit")

# Replies a model may send (JSON on the wire: a lone surrogate is valid JSON, `"\ud800"`).
NASTY = {
    "lone_high": "before \ud800 after",
    "lone_low": "\udfff",
    "pair": "\ud83d\ude00 as two escapes",
    "nul": "a\x00b",
    "controls": "bell\x07 esc\x1b[31m del\x7f c1\x85 tab\t cr\r lf\n end",
    "bom": "\ufeffstarts with a BOM",
    "rtl": "user \u202egnp.exe\u202c and \u200f marks",
    "separators": "line\u2028sep para\u2029sep",
    "emoji": "🧑‍🚀 4-byte 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 and e\u0301 combining",
    "noncharacters": "\ufffe\uffff\U0010ffff",
}
STORED = {**NASTY, "lone_high": "before \ufffd after", "lone_low": "\ufffd", "pair": "😀 as two escapes"}


def _suite(folder: Path, cases: dict[str, str], *, target: str = "{prompt: 'Say {{ key }}'}", extra: str = "") -> Path:
    lines = ["name: nasty", f"target: {target}", "model: claude-haiku-4-5-20251001", extra, "cases:"]
    lines += [f"  - {{id: {key}, input: {{key: {key}}}, checks: [{{type: length, max: 1000000}}]}}" for key in cases]
    path = folder / "suite.yml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _run(
    tmp_path: Path, *args: str, env: dict[str, str] | None = None, timeout: float = 120, preexec_fn=None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [EVALKIT, "run", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=tmp_path,
        env={**child_env(), "CI": "true", **(env or {})},
        preexec_fn=preexec_fn,
    )


def test_nasty_replies_are_kept_through_the_real_client_and_the_run_completes(tmp_path, fake_anthropic):
    script = Script()
    for key, text in NASTY.items():
        script.reply(text, prompt=f"Say {key}")
    fake = fake_anthropic(script)
    proc = _run(
        tmp_path,
        str(_suite(tmp_path, NASTY)),
        "-o",
        "out/r.json",
        "--no-cache",
        "--markdown",
        "out/r.md",
        "--html",
        "out/r.html",
        env=model_env(fake.url),
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr
    results = json.loads((tmp_path / "out" / "r.json").read_text(encoding="utf-8"))
    outputs = {c["id"]: c["runs"][0]["output"] for c in results["suites"][0]["cases"]}
    assert outputs == STORED  # byte for byte where JSON allows; U+FFFD for a lone surrogate only
    raw = (tmp_path / "out" / "r.jsonl").read_bytes()
    assert raw.endswith(b"\n") and b"\\u0000" in raw and b"\\u001b" in raw  # control characters: JSON escapes
    for line in raw.split(b"\n")[:-1]:
        json.loads(line)  # every line whole and valid
    assert (tmp_path / "out" / "r.md").read_text(encoding="utf-8") and (tmp_path / "out" / "r.html").stat().st_size


def test_a_target_returning_bytes_keeps_its_text_and_shows_what_is_not_utf8(write, run_scripted):
    write(
        "bytes_target.py",
        """
        def run(i):
            return b"caf\\xc3\\xa9 \\xff\\xfe broken \\xe2\\x82"
    """,
    )
    path = write(
        "s.yml",
        """
        target: bytes_target:run
        cases:
          - {id: a, input: {}, checks: [{type: contains, value: café}]}
    """,
    )
    report = run_scripted(path, Script())
    case = report.suites[0].cases[0]
    assert case.verdict == "pass" and case.runs[0].output == "café \ufffd\ufffd broken \ufffd"


def test_surrogates_in_a_targets_output_facts_and_error_are_stored(write, run_scripted):
    write(
        "sur_target.py",
        """
        from evalkit import TargetResult

        def run(i):
            if i["n"] == 2:
                raise ValueError("bad \\udc80 input")
            return TargetResult(output="out \\ud800", facts={"k\\udfff": "v \\ud801"})
    """,
    )
    path = write(
        "s.yml",
        """
        target: sur_target:run
        cases:
          - {id: a, input: {n: 1}, checks: [{type: contains, value: out}]}
          - {id: b, input: {n: 2}, checks: [{type: contains, value: out}]}
    """,
    )
    report = run_scripted(path, Script())
    a, b = report.suites[0].cases
    assert a.verdict == "pass" and a.runs[0].output == "out \ufffd" and a.runs[0].facts == {"k\ufffd": "v \ufffd"}
    assert b.verdict == "error" and b.runs[0].error == "target raised ValueError: bad \ufffd input"


def test_a_case_that_cannot_be_stored_at_all_is_an_error_row_that_keeps_its_usage(tmp_path):
    from evalkit.llm.usage import Usage
    from evalkit.results.reader import load_report
    from evalkit.results.report import CaseResult, SuiteResult
    from evalkit.results.stream import ResultsWriter

    writer = ResultsWriter(tmp_path / "r.jsonl", "run-1")
    suite = SuiteResult(name="s", path="s.yml", verdict="pass")
    writer.event(suite_start=json.loads(suite.model_dump_json()), planned=2)
    odd = CaseResult(id="odd", verdict="pass", input={"x": object()}, usage=Usage(calls=3))
    kept = writer.case(suite, 0, odd)
    fine = writer.case(suite, 1, CaseResult(id="fine", verdict="pass"))
    writer.close()
    assert kept.verdict == "error" and kept.usage.calls == 3
    assert kept.reasons[0].startswith("the case's result could not be stored: PydanticSerializationError")
    cases = {c.id: c for c in load_report(tmp_path / "r.jsonl").suites[0].cases}
    assert cases["odd"].verdict == "error" and cases["odd"].usage.calls == 3 and cases["fine"] == fine


def test_a_failed_write_cuts_the_jsonl_back_to_whole_lines_and_says_what_is_kept(tmp_path, monkeypatch):
    from evalkit.errors import OutputError
    from evalkit.results.report import CaseResult, SuiteResult
    from evalkit.results.stream import ResultsWriter

    path = tmp_path / "r.jsonl"
    writer = ResultsWriter(path, "run-1")
    suite = SuiteResult(name="s", path="s.yml", verdict="pass")
    writer.case(suite, 0, CaseResult(id="a", verdict="pass"))
    writer.case(suite, 1, CaseResult(id="b", verdict="pass"))
    real_write = os.write

    def half_then_full(fd: int, data: bytes) -> int:  # a disk that fills in the middle of a line
        if fd == writer._fd:
            real_write(fd, bytes(data[: len(data) // 2]))
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real_write(fd, data)

    monkeypatch.setattr(os, "write", half_then_full)
    with pytest.raises(OutputError) as failed:
        writer.case(suite, 2, CaseResult(id="c", verdict="pass", reasons=["x" * 10_000]))
    monkeypatch.undo()
    message = str(failed.value)
    assert "No space left on device" in message and "2 finished cases" in message and "--resume" in message
    raw = path.read_bytes()
    assert raw.endswith(b"\n") and [json.loads(line)["id"] for line in raw.splitlines()] == ["a", "b"]
    with pytest.raises(OutputError):  # nothing more is written, and each later write says so
        writer.case(suite, 3, CaseResult(id="d", verdict="pass"))


def test_results_are_written_whole_or_the_previous_file_stays(tmp_path):
    from evalkit._runtime.atomic_write import write_atomic
    from evalkit.errors import OutputError

    path = tmp_path / "results.json"
    write_atomic(path, '{"old": true}\n')

    def fills_the_disk(f) -> None:
        f.write("{" + '"x": 1, ' * 10_000)
        f.flush()
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    with pytest.raises(OutputError, match="No space left on device .the previous results.json is unchanged"):
        write_atomic(path, fills_the_disk)
    assert json.loads(path.read_text()) == {"old": True}
    assert [p.name for p in tmp_path.iterdir()] == ["results.json"]  # no temporary file left behind
    assert oct(path.stat().st_mode & 0o777) == oct(0o666 & ~_umask())


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


@contextlib.contextmanager
def _tmpfs(folder: Path, *options: str):
    """A small file system of its own at `folder` (root only: else the test is skipped)."""
    folder.mkdir(parents=True, exist_ok=True)
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", ",".join(options), "tmpfs", str(folder)],
        capture_output=True,
        text=True,
        check=False,
    )
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here ({mounted.stderr.strip() or 'not root'})")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=False)


def test_an_output_on_a_read_only_file_system_is_exit_2_before_any_call(tmp_path, fake_anthropic):
    suite = _suite(tmp_path, {"a": ""})
    fake = fake_anthropic(Script().reply("hello"))
    with _tmpfs(tmp_path / "ro", "size=1m", "ro"):
        proc = _run(tmp_path, str(suite), "-o", "ro/results.json", "--no-cache", env=model_env(fake.url))
        calls = fake.request_count
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert proc.stderr.strip().splitlines()[-1] == (
        "evalkit: cannot write ro/results.json: Read-only file system (nothing was run)"
    )
    assert calls == 0


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes through permissions")
def test_an_output_folder_without_permission_is_exit_2_before_any_call(tmp_path, fake_anthropic):
    suite = _suite(tmp_path, {"a": ""})
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o555)
    fake = fake_anthropic(Script().reply("hello"))
    proc = _run(tmp_path, str(suite), "-o", "locked/results.json", "--no-cache", env=model_env(fake.url))
    assert proc.returncode == 2 and "cannot write locked/results.json: Permission denied" in proc.stderr
    assert fake.request_count == 0


def test_a_full_disk_keeps_whole_files_and_says_what_was_kept(tmp_path, fake_anthropic):
    big = "word " * 20_000  # 100 KB a reply: a 256 KB disk fills after a few cases
    cases = {f"c{k}": "" for k in range(12)}
    suite = _suite(tmp_path, cases)
    fake = fake_anthropic(Script().reply("small"))
    with _tmpfs(tmp_path / "disk", "size=256k"):
        first = _run(tmp_path, str(suite), "-o", "disk/results.json", "--no-cache", env=model_env(fake.url))
        assert first.returncode == 0, first.stdout + first.stderr
        previous = (tmp_path / "disk" / "results.json").read_text()
        fake.script.reply(big)
        fake.script._rules.insert(0, fake.script._rules.pop())  # the big reply now answers first
        proc = _run(tmp_path, str(suite), "-o", "disk/results.json", "--no-cache", env=model_env(fake.url))
        jsonl = (tmp_path / "disk" / "results.jsonl").read_bytes()
        after = (tmp_path / "disk" / "results.json").read_text()
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr
    last = proc.stderr.strip().splitlines()[-1]
    assert last.startswith(
        "evalkit: could not write disk/results.jsonl: No space left on device; it keeps, whole, "
        "every line written before ("
    ), last
    assert "evalkit run --resume disk/results.jsonl" in last
    assert jsonl.endswith(b"\n") and all(json.loads(line) for line in jsonl.splitlines())
    assert after == previous  # the results of the run before, whole


def test_a_file_size_limit_mid_run_leaves_whole_lines(tmp_path, fake_anthropic):
    # The same without root: RLIMIT_FSIZE makes a write fail part-way (EFBIG), as a full disk does.
    big = "word " * 4_000
    suite = _suite(tmp_path, {f"c{k}": "" for k in range(20)})

    def limit() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (60_000, 60_000))

    fake = fake_anthropic(Script().reply(big))
    proc = _run(
        tmp_path,
        str(suite),
        "-o",
        "out/results.json",
        "--no-cache",
        "--concurrency",
        "2",
        env=model_env(fake.url),
        preexec_fn=limit,
    )
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr and "File too large; it keeps, whole" in proc.stderr
    jsonl = (tmp_path / "out" / "results.jsonl").read_bytes()
    assert jsonl.endswith(b"\n") and all(json.loads(line) for line in jsonl.splitlines())
    assert not (tmp_path / "out" / "results.json").exists()
