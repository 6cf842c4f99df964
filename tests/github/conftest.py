"""Fixtures: GitHub's OpenAPI schemas as validators and the loopback GitHub fake."""

from __future__ import annotations

import json

import pytest
from github_helpers import SPEC, TOKEN, OpenAPI


@pytest.fixture(scope="session")
def openapi() -> OpenAPI:
    return OpenAPI(json.loads(SPEC.read_text()))


@pytest.fixture
def fake(fake_github):
    return fake_github(token=TOKEN)
