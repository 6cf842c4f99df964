"""The real anthropic client against each test module's own `fake` (a FakeAnthropicServer fixture)."""

from __future__ import annotations

import anthropic
import pytest


@pytest.fixture
def client(fake):
    c = anthropic.Anthropic(api_key="test-key", base_url=fake.url, max_retries=0)
    yield c
    c.close()
