"""The Action image's lock (requirements-action.txt) agrees with pyproject.toml, offline:
every dependency is pinned to a version its specifier allows, and every pin has hashes
(pip --require-hashes in the Dockerfile refuses anything less). `.ci/lock --check` also
re-resolves against the registry."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[1]


def _pins() -> dict[str, tuple[str, list[str]]]:
    text = (ROOT / "requirements-action.txt").read_text()
    pins = {}
    for block in re.split(r"\n(?=\S)", text.strip()):
        lines = [line.strip(" \\") for line in block.splitlines() if not line.strip().startswith("#")]
        if not lines:
            continue
        name, version = lines[0].split(";")[0].strip().split("==")
        pins[canonicalize_name(name)] = (version, [h for h in lines[1:] if h.startswith("--hash=sha256:")])
    return pins


def test_every_dependency_is_pinned_to_an_allowed_version_with_hashes():
    deps = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    pins = _pins()
    for dep in map(Requirement, deps):
        assert canonicalize_name(dep.name) in pins, f"{dep.name} is not in the lock: run .ci/lock"
        version, _ = pins[canonicalize_name(dep.name)]
        assert dep.specifier.contains(version, prereleases=True), f"{dep} but the lock pins {version}: run .ci/lock"
    for name, (version, hashes) in pins.items():
        assert hashes and all(re.fullmatch(r"--hash=sha256:[0-9a-f]{64}", h) for h in hashes), name


def test_the_dockerfile_installs_the_lock_with_require_hashes():
    text = (ROOT / "Dockerfile").read_text()
    assert "COPY requirements-action.txt" in text
    assert "pip install --require-hashes --no-deps --requirement requirements-action.txt" in text
