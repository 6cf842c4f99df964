"""The provider built on first use: a run served from the cache never imports anthropic; the
first request the cache cannot answer builds it once, however many ask at the same time."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import textwrap
import threading

import pytest

from evalkit.errors import MissingKeyError, ProviderError
from evalkit.llm.providers.interface import ModelRequest
from evalkit.llm.providers.lazy import LazyProvider
from evalkit.testing.script import Script
from evalkit.testing.scripted import ScriptedProvider

SUITE = """
target: {prompt: "Greet {{ name }}"}
model: claude-haiku-4-5-20251001
cases:
  - {id: ada, input: {name: Ada}, checks: [{type: contains, value: Hello}], rubric: [{id: warm, judge: is warm}]}
  - {id: bob, input: {name: Bob}, checks: [{type: contains, value: Hello}]}
"""

# Runs the CLI in this process (no fast exit) and says what was imported by the end.
PROBE = textwrap.dedent("""
    import json, sys
    from evalkit.cli.commands import main
    try:
        main(sys.argv[1:])
    except SystemExit as done:
        code = done.code
    print(json.dumps({"code": code, "anthropic": "anthropic" in sys.modules}))
""")


def cli_in_subprocess(env, *args):
    proc = subprocess.run([sys.executable, "-c", PROBE, *args], env=env, capture_output=True, text=True, timeout=120)
    assert proc.stdout.strip(), proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1]), proc.stderr


@pytest.mark.slow
def test_a_fully_cached_run_never_imports_anthropic(tmp_path, fake_anthropic, anthropic_env):
    suite = tmp_path / "s.yml"
    suite.write_text(SUITE, encoding="utf-8")
    script = (
        Script()
        .reply("Hello there")
        .tool_reply("record_verdicts", {"items": [{"id": "warm", "reason": "friendly", "verdict": "pass"}]})
    )
    fake = fake_anthropic(script)
    env = anthropic_env(fake, inherit=True, CI="1")
    run = ["run", str(suite), "-o", str(tmp_path / "r.json")]
    first, _ = cli_in_subprocess(env, *run)
    assert first == {"code": 0, "anthropic": True} and fake.request_count == 3
    second, err = cli_in_subprocess(env, *run)
    assert second == {"code": 0, "anthropic": False}, err
    assert fake.request_count == 3  # nothing asked again
    # One request the cache cannot answer: the client is built after all.
    third, _ = cli_in_subprocess({**env, "EVALKIT_CACHE_DIR": str(tmp_path / "other")}, *run)
    assert third == {"code": 0, "anthropic": True} and fake.request_count == 6


def test_concurrent_first_calls_build_the_provider_once():
    built = []

    def build():
        built.append(threading.current_thread().name)
        return ScriptedProvider(Script().reply("hi"))

    lazy = LazyProvider(build, "scripted")
    assert not lazy.built

    async def many():
        replies = await asyncio.gather(*(lazy.generate(ModelRequest.from_prompt(f"q{i}", model="m")) for i in range(5)))
        await lazy.aclose()
        return replies

    assert [r.text for r in asyncio.run(many())] == ["hi"] * 5
    # Built on the loop's own thread: a second thread importing the SDK beside it is what crashed.
    assert built == [threading.main_thread().name] and lazy.built


def test_a_provider_that_cannot_be_built_fails_each_call_without_retry():
    def build():
        raise MissingKeyError("no credentials in the profile")

    lazy = LazyProvider(build, "anthropic")
    with pytest.raises(ProviderError, match="anthropic client could not be created: no credentials") as err:
        asyncio.run(lazy.generate(ModelRequest.from_prompt("q", model="m")))
    assert not err.value.retryable


def test_closing_an_unused_provider_builds_nothing():
    lazy = LazyProvider(lambda: pytest.fail("built"), "anthropic")
    asyncio.run(lazy.aclose())
    assert not lazy.built
