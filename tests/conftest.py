"""Shared fixtures for evalkit's own tests: suites written on the fly, scripted clients, and the
loopback fakes with the environment a run against them needs (tests/fakes.py)."""

from __future__ import annotations

import os
import socket
import sys
import tempfile
import textwrap
from pathlib import Path

import pytest

from evalkit.engine import load_suites, make_client, run
from evalkit.run.runner import RunOptions
from evalkit.testing.script import Script
from evalkit.testing.scripted import ScriptedProvider
from tests.fakes import anthropic_env, anthropic_environ, fake_anthropic, fake_github  # noqa: F401 - fixtures


def _import_everything_once() -> None:
    """pytester (the tests of the pytest plugin and of seed 003's pytest tests) puts sys.modules back as
    it found it after each test, dropping every module that test imported first. A later test then
    imports a second copy of such a module, while other modules still hold the first one's classes and
    caches (a price snapshot whose ModelPrice is not the new ModelPrice; a Script whose reply classes
    the fake server does not recognise). So every module of evalkit, and the dependencies it imports
    lazily, are imported here, before any test: no test imports one first."""
    import importlib
    import pkgutil

    import evalkit

    for info in pkgutil.walk_packages(evalkit.__path__, "evalkit."):
        if info.name.rsplit(".", 1)[-1] != "__main__":
            importlib.import_module(info.name)
    for name in ("anthropic", "jinja2", "genai_prices", "genai_prices.data_snapshot", "regex", "jsonschema"):
        importlib.import_module(name)
    from genai_prices import data_snapshot

    data_snapshot.get_snapshot()


_import_everything_once()


def pytest_configure(config: pytest.Config) -> None:
    # Tests that took over 8 s on a loaded 2-core machine (the whole Action, git worktrees, subprocess
    # runs of the CLI): `-m "not slow"` is a quick pass; CI runs them all.
    config.addinivalue_line("markers", "slow: takes over 8 s on a loaded 2-core machine")


def refusing_port() -> int:
    """A loopback port that refuses connections for the whole session.

    The socket is bound and never listens, so a connection gets "refused" at once; it stays open
    so that no other test's server (another xdist worker's, too) can be given the same port.
    A port bound and then released may be handed straight to the next server that asks.
    """
    holder = socket.socket()
    holder.bind(("127.0.0.1", 0))
    _PORT_HOLDERS.append(holder)
    return holder.getsockname()[1]


_PORT_HOLDERS: list[socket.socket] = []


# No test may reach a real model by accident: no key, and the SDK's default endpoint is a loopback
# port that refuses connections. Tests that want a model start a loopback fake and say so.
os.environ.pop("ANTHROPIC_API_KEY", None)
os.environ.pop("ANTHROPIC_AUTH_TOKEN", None)
os.environ["ANTHROPIC_BASE_URL"] = f"http://127.0.0.1:{refusing_port()}"
# Nor may a test read or write the developer's own caches (the response cache, the day's model
# lifecycle): the default cache folder is a fresh one for the session, unless a test names one.
os.environ.pop("EVALKIT_CACHE_DIR", None)
os.environ["XDG_CACHE_HOME"] = tempfile.mkdtemp(prefix="evalkit-test-cache-")


@pytest.fixture(autouse=True)
def _forget_secrets_after_each_test():
    """The `evalkit` command invoked in-process remembers its environment's secrets for every output
    of the process (evalkit/_runtime/redaction.py): not past the test that invoked it."""
    yield
    from evalkit._runtime import redaction

    redaction.protect({})


@pytest.fixture(autouse=True)
def _forget_modules_a_test_wrote(tmp_path_factory):
    """Each test's own target and plugin modules (`agent.py` in its tmp folder) are forgotten after
    it, as a new process would: the next test's module of the same name is its own, not a leftover
    (which evalkit now refuses to confuse with it)."""
    before = set(sys.modules)
    yield
    base = str(tmp_path_factory.getbasetemp())
    for name in set(sys.modules) - before:
        where = getattr(sys.modules.get(name), "__file__", None) or ""
        if where.startswith(base):
            sys.modules.pop(name, None)


@pytest.fixture
def refusing_url() -> str:
    """A loopback URL whose port refuses every connection (nothing is ever served there)."""
    return f"http://127.0.0.1:{refusing_port()}"


@pytest.fixture
def write(tmp_path: Path):
    """write("name.yml", text) -> path, with the text dedented."""

    def _write(name: str, text: str) -> Path:
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
        return path

    return _write


@pytest.fixture
def run_scripted(tmp_path: Path):
    """run_scripted(path, script, **options) -> Report, in process, without the disk cache."""

    def _run(path: Path, script: Script, **options):
        client = make_client(ScriptedProvider(script), no_cache=True, deprecated=None)
        return run(load_suites([path]), client, RunOptions(**options))

    return _run


def verdicts(tool_input_items: dict[str, str]) -> dict:
    """A judge tool input giving `verdict` per id with a reason."""
    return {"items": [{"id": k, "reason": f"because {k}", "verdict": v} for k, v in tool_input_items.items()]}
