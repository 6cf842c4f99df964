"""The loopback fakes and the environment a run against them needs, as fixtures in one place
(tests/conftest.py imports them for every test).

    def test_a_run(fake_anthropic, anthropic_env):
        fake = fake_anthropic(Script().reply("hi"))            # started; stopped after the test
        result = CliRunner().invoke(main, ["run", "s.yml"], env=anthropic_env(fake))

A test that starts a child process asks for `anthropic_env(fake, inherit=True)`: this process's
environment without its ANTHROPIC_ variables, and PYTHONPATH kept, so the child runs this checkout's
code (not whatever evalkit the interpreter has installed).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from evalkit.testing.fake_anthropic import FakeAnthropicServer
from evalkit.testing.fake_github import FakeGitHub
from evalkit.testing.script import Script

# Any key will do for the fakes; tests that care about its value (redaction) pass their own.
FAKE_KEY = "test-key"


def model_env(url: str, cache_dir: Path | None = None, *, key: str = FAKE_KEY) -> dict[str, str]:
    """What the `evalkit` command needs to reach a model at `url`, with its response cache in
    `cache_dir` (None: the session's, see tests/conftest.py). For helpers that take no fixtures;
    a test asks for `anthropic_env`."""
    cache = {"EVALKIT_CACHE_DIR": str(cache_dir)} if cache_dir is not None else {}
    return {"ANTHROPIC_API_KEY": key, "ANTHROPIC_BASE_URL": url, **cache}


def child_env(pythonpath: Sequence[str | Path] = ()) -> dict[str, str]:
    """This process's environment for a child process: no ANTHROPIC_ variable of ours reaches it
    (the test says which it wants), and PYTHONPATH is `pythonpath` ahead of ours, so the child
    imports this checkout's evalkit as the test does."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
    paths = [str(p) for p in pythonpath] + ([os.environ["PYTHONPATH"]] if os.environ.get("PYTHONPATH") else [])
    if paths:
        env["PYTHONPATH"] = os.pathsep.join(paths)
    return env


@pytest.fixture
def fake_anthropic() -> Iterator[Callable[..., FakeAnthropicServer]]:
    """fake_anthropic(script, **options) -> a started loopback Messages API (options as
    FakeAnthropicServer takes them: latency, rate_limit, batch_delay, unknown_models); every one
    started is stopped after the test."""
    started: list[FakeAnthropicServer] = []

    def start(script: Script | None = None, **options: Any) -> FakeAnthropicServer:
        fake = FakeAnthropicServer(script, **options).start()
        started.append(fake)
        return fake

    yield start
    for fake in reversed(started):
        fake.stop()


@pytest.fixture
def fake_github() -> Iterator[Callable[..., FakeGitHub]]:
    """fake_github(**options) -> a started loopback GitHub REST API (options as FakeGitHub takes
    them: token, read_only, fail_files, ...); every one started is stopped after the test."""
    started: list[FakeGitHub] = []

    def start(**options: Any) -> FakeGitHub:
        fake = FakeGitHub(**options)
        fake.start()
        started.append(fake)
        return fake

    yield start
    for fake in reversed(started):
        fake.stop()


@pytest.fixture
def anthropic_env(tmp_path: Path) -> Callable[..., dict[str, str]]:
    """anthropic_env(fake_or_url, key=..., inherit=False, pythonpath=(), **more) -> the environment
    of a run against that fake: its URL, a key, a response cache in the test's own folder
    (tmp_path/cache). inherit=True starts from child_env(pythonpath) (for a child process); `more`
    is added last."""

    def env(
        fake: FakeAnthropicServer | str,
        *,
        key: str = FAKE_KEY,
        inherit: bool = False,
        pythonpath: Sequence[str | Path] = (),
        **more: str,
    ) -> dict[str, str]:
        url = fake if isinstance(fake, str) else fake.url
        base = child_env(pythonpath) if inherit else {}
        return {**base, **model_env(url, tmp_path / "cache", key=key), **more}

    return env


@pytest.fixture
def anthropic_environ(monkeypatch: pytest.MonkeyPatch) -> Callable[..., None]:
    """anthropic_environ(fake_or_url, key=...) points this process's SDK at that fake, with a key,
    for the test (os.environ, put back after it): for code under test that reads the environment
    in-process. Its response cache stays the session's (tests/conftest.py)."""

    def point(fake: FakeAnthropicServer | str, *, key: str = FAKE_KEY) -> None:
        monkeypatch.setenv("ANTHROPIC_API_KEY", key)
        monkeypatch.setenv("ANTHROPIC_BASE_URL", fake if isinstance(fake, str) else fake.url)

    return point
