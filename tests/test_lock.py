"""The locks agree with pyproject.toml, offline: the Action image's (requirements-action.txt) and
the development set's (requirements-dev.txt, the same plus the [test] and [postgres] extras, which .ci/run's main
test run installs). Every dependency is pinned to a version its specifier allows, and every pin
has hashes (pip --require-hashes refuses anything less). `.ci/lock --check` also re-resolves
against the registry."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[1]


def _pins(lock: str = "requirements-action.txt") -> dict[str, tuple[str, list[str]]]:
    text = (ROOT / lock).read_text()
    pins = {}
    for block in re.split(r"\n(?=\S)", text.strip()):
        lines = [line.strip(" \\") for line in block.splitlines() if not line.strip().startswith("#")]
        if not lines:
            continue
        name, version = lines[0].split(";")[0].strip().split("==")
        pins[canonicalize_name(name)] = (version, [h for h in lines[1:] if h.startswith("--hash=sha256:")])
    return pins


def _dependencies(*extras: str) -> list[Requirement]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    deps = project["dependencies"] + [d for e in extras for d in project["optional-dependencies"][e]]
    return [Requirement(d) for d in deps]


@pytest.mark.parametrize(
    "lock, extras", [("requirements-action.txt", ()), ("requirements-dev.txt", ("test", "postgres"))]
)
def test_every_dependency_is_pinned_to_an_allowed_version_with_hashes(lock, extras):
    pins = _pins(lock)
    for dep in _dependencies(*extras):
        assert canonicalize_name(dep.name) in pins, f"{dep.name} is not in {lock}: run .ci/lock"
        version, _ = pins[canonicalize_name(dep.name)]
        assert dep.specifier.contains(version, prereleases=True), f"{dep} but {lock} pins {version}: run .ci/lock"
    for name, (version, hashes) in pins.items():
        assert hashes and all(re.fullmatch(r"--hash=sha256:[0-9a-f]{64}", h) for h in hashes), name


def test_the_dockerfile_installs_the_lock_with_require_hashes():
    text = (ROOT / "Dockerfile").read_text()
    assert "COPY requirements-action.txt" in text
    assert "pip install --require-hashes --no-deps --requirement requirements-action.txt" in text


def test_the_tests_run_every_package_at_the_version_the_image_ships():
    action, dev = _pins("requirements-action.txt"), _pins("requirements-dev.txt")
    assert action.keys() <= dev.keys()
    assert {name: dev[name][0] for name in action} == {name: version for name, (version, _) in action.items()}


def test_ci_installs_the_development_lock_with_require_hashes():
    text = (ROOT / ".ci" / "run").read_text()
    assert "--require-hashes --requirement requirements-dev.txt" in text
