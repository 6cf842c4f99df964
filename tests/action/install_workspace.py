"""A workspace whose target imports a package only its `install:` file provides: a small
wheel built here (by hand: a wheel is a zip with METADATA, WHEEL and RECORD)."""

from __future__ import annotations

import base64
import hashlib
import zipfile
from pathlib import Path

PACKAGE = "evalkit_test_greetlib"
SUITE = f"""\
name: own-code
target: agent:run
checks:
  - {{type: contains, value: "Hello from {PACKAGE}"}}
cases:
  - id: ada
    input: {{who: Ada}}
"""
AGENT = f"""\
from {PACKAGE} import greet


def run(input):
    return greet(input["who"])
"""


def build_wheel(folder: Path) -> Path:
    """evalkit_test_greetlib-1.0-py3-none-any.whl in `folder`."""
    folder.mkdir(parents=True, exist_ok=True)
    dist = f"{PACKAGE}-1.0.dist-info"
    files = {
        f"{PACKAGE}/__init__.py": f'def greet(who):\n    return f"Hello from {PACKAGE}, {{who}}!"\n',
        f"{dist}/METADATA": f"Metadata-Version: 2.1\nName: {PACKAGE}\nVersion: 1.0\n",
        f"{dist}/WHEEL": "Wheel-Version: 1.0\nGenerator: evalkit-tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    }
    record = []
    for name, text in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b"=").decode()
        record.append(f"{name},sha256={digest},{len(text.encode())}")
    record.append(f"{dist}/RECORD,,")
    files[f"{dist}/RECORD"] = "\n".join(record) + "\n"
    wheel = folder / f"{PACKAGE}-1.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as zf:
        for name, text in files.items():
            zf.writestr(name, text)
    return wheel


def make_install_workspace(root: Path, *, broken: bool = False) -> Path:
    """The workspace: the suite, its agent, the wheel and requirements-eval.txt naming it."""
    (root / "evals").mkdir(parents=True, exist_ok=True)
    (root / "evals" / "own.suite.yml").write_text(SUITE)
    (root / "evals" / "agent.py").write_text(AGENT)
    wheel = build_wheel(root / "wheels")
    name = wheel.name.replace("1.0", "9.9") if broken else wheel.name
    (root / "requirements-eval.txt").write_text(f"--no-index\n./wheels/{name}\n")
    return root
