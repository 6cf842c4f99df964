"""The plugin is tested with pytest's own `pytester` (enabled in each test module)."""

import pytest


@pytest.fixture(autouse=True)
def _clean_runtime(monkeypatch):
    """No key, default tiers and a fresh ambient client in every test."""
    from evalkit.engine import agent_client as runtime

    for var in ("ANTHROPIC_API_KEY", "SYSTEM_AGENT_MODELS_HIGH", "SYSTEM_AGENT_MODELS_LOW"):
        monkeypatch.delenv(var, raising=False)
    runtime.reset()
    yield
    runtime.reset()
