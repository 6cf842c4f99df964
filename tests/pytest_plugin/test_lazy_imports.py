"""The plugin loads in every pytest session of a user who installs evalkit: it must stay light."""

import json
import subprocess
import sys

pytest_plugins = ["pytester"]

HEAVY = ("anthropic", "jinja2", "httpx", "pydantic", "yaml", "evalkit.engine", "evalkit.engine.agent_client")


def test_importing_the_plugin_imports_nothing_heavy():
    code = (
        f"import json, sys; import evalkit.pytest_plugin; print(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert json.loads(out) == []


def test_a_session_without_evals_imports_no_model_client(pytester):
    pytester.makeconftest("""
        import json, sys
        def pytest_sessionfinish(session):
            heavy = [m for m in ("anthropic", "jinja2", "evalkit.engine", "evalkit.engine.agent_client") if m in sys.modules]
            open("heavy.json", "w").write(json.dumps(heavy))
    """)
    pytester.makepyfile("def test_plain():\n    assert sorted([2, 1]) == [1, 2]\n")
    result = pytester.runpytest_subprocess()
    result.assert_outcomes(passed=1)
    assert json.loads((pytester.path / "heavy.json").read_text()) == []
