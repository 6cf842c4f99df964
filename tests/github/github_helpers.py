"""Test helpers: GitHub's OpenAPI schemas as validators, event fixtures (unique name: imported by tests)."""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

import jsonschema

# A verbatim copy of the excerpt of GitHub's OpenAPI description (@octokit/openapi 23.0.2, MIT),
# kept beside the tests so CI needs nothing outside the repository.
SPEC = Path(__file__).parent / "github-openapi-subset.json"
EVENTS = Path(__file__).parent / "events"
TOKEN = "ghs_s3cr3tT0kenForTests0123456789"


def to_jsonschema(schema: Any, *, strict: bool = False, in_all_of: bool = False) -> Any:
    """OpenAPI 3.0 schema → JSON Schema: `nullable` becomes a null branch; strict forbids extra keys."""
    if isinstance(schema, list):
        return [to_jsonschema(s, strict=strict) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out = {}
    for key, value in schema.items():
        if key in ("nullable", "example", "examples"):
            continue
        if key == "properties":
            out[key] = {k: to_jsonschema(v, strict=strict) for k, v in value.items()}
        elif key == "allOf":
            out[key] = [to_jsonschema(v, strict=strict, in_all_of=True) for v in value]
        else:
            out[key] = to_jsonschema(value, strict=strict)
    # Strict mode: the fake may not invent fields the real API does not document.
    if strict and "properties" in out and "additionalProperties" not in out and not in_all_of:
        out["additionalProperties"] = False
    if schema.get("nullable"):
        return {"anyOf": [out, {"type": "null"}]}
    return out


class OpenAPI:
    """Validators for the operations and webhooks of github-openapi-subset.json."""

    def __init__(self, spec: dict[str, Any]):
        self.spec = spec

    def operation(self, path: str, method: str) -> dict[str, Any]:
        return self.spec["paths"][path][method.lower()]

    @functools.lru_cache(maxsize=None)  # noqa: B019 - one instance per session
    def response_validator(self, path: str, method: str, status: int) -> jsonschema.Draft4Validator:
        resp = self.operation(path, method)["responses"][str(status)]
        schema = to_jsonschema(resp["content"]["application/json"]["schema"], strict=True)
        return jsonschema.Draft4Validator(schema)

    @functools.lru_cache(maxsize=None)  # noqa: B019
    def request_validator(self, path: str, method: str) -> jsonschema.Draft4Validator:
        body = self.operation(path, method)["requestBody"]
        return jsonschema.Draft4Validator(to_jsonschema(body["content"]["application/json"]["schema"]))

    @functools.lru_cache(maxsize=None)  # noqa: B019
    def webhook_validator(self, name: str) -> jsonschema.Draft4Validator:
        body = self.spec["x-webhooks"][name]["post"]["requestBody"]
        return jsonschema.Draft4Validator(to_jsonschema(body["content"]["application/json"]["schema"]))

    def validate_response(self, path: str, method: str, status: int, data: Any) -> None:
        self.response_validator(path, method, status).validate(data)

    def validate_request(self, path: str, method: str, body: Any) -> None:
        self.request_validator(path, method).validate(body)

    def validate_webhook(self, name: str, payload: Any) -> None:
        self.webhook_validator(name).validate(payload)


def load_event_fixture(name: str) -> dict[str, Any]:
    return json.loads((EVENTS / name).read_text())


def actions_env(tmp_path: Path, event_name: str, fixture: str, **extra: str) -> dict[str, str]:
    """A runner-like environment for one event fixture."""
    path = tmp_path / "event.json"
    path.write_text((EVENTS / fixture).read_text())
    env = {
        "GITHUB_EVENT_NAME": event_name,
        "GITHUB_EVENT_PATH": str(path),
        "GITHUB_REPOSITORY": "octo-org/hello",
        "GITHUB_SERVER_URL": "https://github.com",
        "GITHUB_RUN_ID": "987654321",
        "GITHUB_SHA": "2222222222222222222222222222222222222222",
    }
    env.update(extra)
    return env
