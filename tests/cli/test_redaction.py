"""The `evalkit` command keeps the secrets of its environment (the API key, any `*_TOKEN`,
`*_KEY`, `*_SECRET` of 8 characters or more) out of everything it prints and writes: a target
that returns the key, user code that prints it or raises with it, a check that quotes it."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

from evalkit._runtime.redaction import RedactingStream, labelled, redact_text
from evalkit.testing.script import Script

pytest_plugins = ["pytester"]

KEY = "sk-ant-api03-CLI-FAKE-KEY-never-shown-7f3a"
TOKEN = "ghp_deployTokenForTheRedactionTest42"

# The workers hold no key (evalkit/_runtime/out_of_reach.py): user code that has one anyway (read from
# a .env file of its own) and prints or returns it is redacted by the run's process.
DOTENV = """
import os, pathlib

def secret(name):
    for line in pathlib.Path("secrets.env").read_text().splitlines():
        if line.startswith(name + "="):
            return line.split("=", 1)[1]
    return os.environ[name]
"""

TARGET = """
import os, sys
from dotenv_like import secret

def run(i):
    key = secret("ANTHROPIC_API_KEY")
    print(f"target prints {key}")
    print(f"target warns {os.environ['DEPLOY_TOKEN']}", file=sys.stderr)
    if i.get("boom"):
        raise ValueError(f"refused with key {key}")
    return f"the key is {key} and the token {os.environ['DEPLOY_TOKEN']}"
"""

PLUGIN = """
import os
from evalkit import Check, register_check

print("plugin imported with " + os.environ["ANTHROPIC_API_KEY"])


@register_check
class Tattle(Check):
    type = "tattle"

    def evaluate(self, ctx):
        from dotenv_like import secret

        key = secret("ANTHROPIC_API_KEY")
        print(f"check prints {key}")
        return False, f"saw {key} in {ctx.output[:12]}"
"""

SUITE = """
target: leaky:run
plugins: [leaky_checks]
cases:
  - {id: echo, input: {}, checks: [{type: contains, value: "the key is"}, {type: tattle}]}
  - {id: boom, input: {boom: true}, checks: [{type: contains, value: "x"}]}
"""


def _evalkit(tmp_path: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(Path(sys.executable).parent / "evalkit"), *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
        env=env,
    )


def test_the_key_and_tokens_appear_in_no_stream_and_no_file(write, tmp_path, fake_anthropic, anthropic_env):
    write("leaky.py", TARGET)
    write("leaky_checks.py", PLUGIN)
    write("dotenv_like.py", DOTENV)
    write("secrets.env", f"ANTHROPIC_API_KEY={KEY}\n")
    write("s.yml", SUITE)
    fake = fake_anthropic(Script())
    env = anthropic_env(
        fake, key=KEY, inherit=True, pythonpath=[tmp_path], DEPLOY_TOKEN=TOKEN, SHORT_KEY="1", CI="true"
    )
    runs = [
        _evalkit(
            tmp_path,
            env,
            "run",
            "s.yml",
            "-o",
            "out/results.json",
            "--markdown",
            "out/report.md",
            "--html",
            "out/report.html",
        )
    ]
    assert runs[0].returncode == 1, runs[0].stderr
    for fmt in ("junit", "html", "json", "markdown"):
        runs.append(_evalkit(tmp_path, env, "report", "out/results.json", "--format", fmt, "-o", f"out/again.{fmt}"))
    runs.append(_evalkit(tmp_path, env, "report", "out/results.jsonl"))  # markdown to stdout
    assert all(r.returncode == 0 for r in runs[1:]), [r.stderr for r in runs]
    files = sorted(p for p in (tmp_path / "out").rglob("*") if p.is_file())
    assert {p.name for p in files} >= {"results.json", "results.jsonl", "report.md", "report.html", "again.junit"}
    texts = {str(p): p.read_text(encoding="utf-8", errors="replace") for p in files}
    texts.update({f"stdout {r.args[1:]}": r.stdout for r in runs})
    texts.update({f"stderr {r.args[1:]}": r.stderr for r in runs})
    for where, text in texts.items():
        assert KEY not in text and TOKEN not in text, where
        assert "[redacted SHORT_KEY]" not in text, where  # "1" is too short to be a secret
    # Replaced visibly, wherever it would have been.
    results = texts[str(tmp_path / "out" / "results.json")]
    assert "the key is [redacted ANTHROPIC_API_KEY] and the token [redacted DEPLOY_TOKEN]" in results
    assert "saw [redacted ANTHROPIC_API_KEY]" in results  # the check's reason
    assert "refused with key [redacted ANTHROPIC_API_KEY]" in results  # the target's error row
    printed = runs[0].stdout + runs[0].stderr
    for line in (
        "plugin imported with [redacted ANTHROPIC_API_KEY]",
        "target prints [redacted ANTHROPIC_API_KEY]",
        "target warns [redacted DEPLOY_TOKEN]",
        "check prints [redacted ANTHROPIC_API_KEY]",
    ):
        assert line in printed, printed
    assert "[redacted ANTHROPIC_API_KEY]" in texts[str(tmp_path / "out" / "again.junit")]


def test_labels_name_the_variable_and_skip_short_values_and_urls():
    env = {
        "ANTHROPIC_API_KEY": KEY,
        "DEPLOY_TOKEN": TOKEN,
        "SHORT_KEY": "1",
        "HOME": "/home/someone-long",
        "DB_PASSWORD": "correct horse",
        "ACTIONS_ID_TOKEN_REQUEST_URL": "https://token.example/x",
    }
    assert labelled(env) == {
        KEY: "[redacted ANTHROPIC_API_KEY]",
        TOKEN: "[redacted DEPLOY_TOKEN]",
        "correct horse": "[redacted DB_PASSWORD]",
    }
    escaped = 'a "quoted\\\\secret" here'  # a secret with a backslash, as JSON writes it
    assert redact_text(escaped, {"quoted\\secret": "[x]"}) == 'a "[x]" here'
    assert redact_text(f"{KEY}!", [KEY]) == "***!"  # the Action's replacement


def test_the_stream_redacts_text_and_bytes_and_stays_open():
    from evalkit._runtime import redaction

    sink = io.StringIO()
    saved = redaction.known()
    try:
        redaction._known.update({KEY: "[k]"})  # noqa: SLF001 - this module's own state
        stream = RedactingStream(sink)
        stream.write(f"a {KEY} b\n")
        stream.write(f"{KEY}".encode())
        stream.close()  # user code closing sys.stdout does not close evalkit's output
        stream.write("after")
    finally:
        redaction._known.clear()  # noqa: SLF001
        redaction._known.update(saved)  # noqa: SLF001
    assert sink.getvalue() == "a [k] b\n[k]after"


def test_the_base_side_of_a_baseline_run_redacts_too(write, tmp_path, anthropic_env):
    # `run --baseline` runs the base commit in a process of its own (evalkit/engine/base_ref.py child_main).
    write("leaky.py", TARGET)
    write("dotenv_like.py", DOTENV)
    write("secrets.env", f"ANTHROPIC_API_KEY={KEY}\n")
    write("s.yml", "target: leaky:run\ncases:\n  - {id: echo, input: {}, checks: [{type: contains, value: key}]}\n")
    spec = {
        "options": {
            "target": None,
            "cases": [],
            "model": None,
            "judge_model": None,
            "repeat": None,
            "rubric_threshold": None,
            "agreement_threshold": None,
        },
        "concurrency": 2,
        "no_cache": True,
        "shard": None,
        "api_key": None,
        "cache_dir": None,
        "paths": [str(tmp_path / "s.yml")],
        "out": str(tmp_path / "base.json"),
    }
    env = anthropic_env("http://127.0.0.1:9", key=KEY, inherit=True, pythonpath=[tmp_path], DEPLOY_TOKEN=TOKEN)
    done = subprocess.run(
        [sys.executable, "-c", "import sys; from evalkit.engine.base_ref import child_main; sys.exit(child_main())"],
        input=json.dumps(spec),
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    for text in (done.stdout, done.stderr, (tmp_path / "base.json").read_text(), (tmp_path / "base.jsonl").read_text()):
        assert KEY not in text and TOKEN not in text
    assert "the key is [redacted ANTHROPIC_API_KEY]" in (tmp_path / "base.json").read_text()


SPLIT_TARGET = """
import sys
from dotenv_like import secret

def run(i):
    key = secret("ANTHROPIC_API_KEY")
    sys.stdout.write("split " + key[:12])
    sys.stdout.flush()
    sys.stdout.write(key[12:] + " end\\n")
    return "x" * (20_000 - 10) + key + " after the limit"
"""


def test_a_key_written_in_two_pieces_or_cut_at_the_output_limit_is_redacted_whole(write, tmp_path, anthropic_env):
    write("split.py", SPLIT_TARGET)
    write("dotenv_like.py", DOTENV)
    write("secrets.env", f"ANTHROPIC_API_KEY={KEY}\n")
    write("s.yml", "target: split:run\ncases:\n  - {id: a, input: {}, checks: [{type: contains, value: after}]}\n")
    env = anthropic_env("http://127.0.0.1:9", key=KEY, inherit=True, pythonpath=[tmp_path], CI="true")
    done = _evalkit(tmp_path, env, "run", "s.yml", "-o", "out/results.json")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "split [redacted ANTHROPIC_API_KEY] end" in done.stdout, done.stdout
    output = json.loads((tmp_path / "out" / "results.json").read_text())["suites"][0]["cases"][0]["runs"][0]["output"]
    assert KEY[:10] not in output and output[20_000 - 10 :].startswith("[redacted ANTHROPIC_API_KEY]"[:10])
    for text in (done.stdout, done.stderr, (tmp_path / "out" / "results.jsonl").read_text()):
        assert KEY[:10] not in text


def test_the_stream_redacts_a_key_across_writes_and_releases_what_is_not_one():
    from evalkit._runtime import redaction

    sink = io.StringIO()
    saved = redaction.known()
    try:
        redaction._known.update({KEY: "[k]"})  # noqa: SLF001 - this module's own state
        stream = RedactingStream(sink)
        stream.write("a " + KEY[:5])
        stream.flush()
        stream.write(KEY[5:20])
        stream.write(KEY[20:] + " b\n")
        stream.write("ends like a key: " + KEY[:6])
        stream.drain()  # at the end of the process: it never became one
    finally:
        redaction._known.clear()  # noqa: SLF001
        redaction._known.update(saved)  # noqa: SLF001
    assert sink.getvalue() == "a [k] b\nends like a key: " + KEY[:6]


def test_a_file_written_in_pieces_has_no_key_split_across_them(tmp_path):
    from evalkit._runtime import redaction
    from evalkit._runtime.atomic_write import write_atomic

    saved = redaction.known()
    try:
        redaction._known.update({KEY: "[k]"})  # noqa: SLF001
        write_atomic(tmp_path / "f.txt", lambda f: (f.write(KEY[:9]), f.write(KEY[9:]), f.write("!")))
    finally:
        redaction._known.clear()  # noqa: SLF001
        redaction._known.update(saved)  # noqa: SLF001
    assert (tmp_path / "f.txt").read_text() == "[k]!"


PYTEST_EVALS = """
import os
import pytest

@pytest.mark.eval
def test_judged():
    key = os.environ["ANTHROPIC_API_KEY"]
    print("captured " + key)
    assert "good" in f"the answer quoted {key}"

def test_unit_keeps_its_own_text():
    assert "ok" == "ok"
"""


def test_the_pytest_plugin_redacts_failure_text_captured_output_and_junit(pytester, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    pytester.makepyfile(test_evals=PYTEST_EVALS)
    junit = pytester.path / "junit.xml"
    result = pytester.runpytest_subprocess("-m", "eval", "--evalkit-evals", "keep", f"--junitxml={junit}", "-rA")
    assert result.ret == 1
    text = result.stdout.str() + result.stderr.str()
    assert "test_judged" in text and KEY not in text, text
    assert "[redacted ANTHROPIC_API_KEY]" in text
    xml = junit.read_text()
    assert KEY not in xml and "[redacted ANTHROPIC_API_KEY]" in xml
