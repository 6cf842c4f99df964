"""An in-process provider that answers from a `Script`: fast unit tests, no HTTP."""

from __future__ import annotations

import asyncio
from typing import Any

from evalkit.errors import ProviderError
from evalkit.llm.providers.interface import ModelRequest, ModelResponse
from evalkit.testing.script import Fault, Script, error_payload


class ScriptedProvider:
    """Answers each request from the script, after an optional simulated latency."""

    name = "scripted"

    def __init__(self, script: Script, *, latency: float = 0.0):
        self.script = script
        self.latency = latency
        self.requests: list[dict[str, Any]] = []

    async def generate(self, request: ModelRequest) -> ModelResponse:
        body = request.to_api_body()
        self.requests.append(body)
        if self.latency:
            await asyncio.sleep(self.latency)
        action = self.script.action_for(body)
        if isinstance(action, Fault):
            raise _fault_error(action)
        return ModelResponse.from_api_message(self.script.message(body, action))

    async def aclose(self) -> None:
        return None


def _fault_error(fault: Fault) -> ProviderError:
    if fault.kind == "drop":
        return ProviderError("connection dropped (scripted)", retryable=True)
    if fault.kind == "bad_json":
        return ProviderError("reply was not valid JSON (scripted)", retryable=True)
    if fault.kind == "bad_shape":
        return ProviderError("reply was not a message (scripted)", retryable=True, status=200)
    status, payload = error_payload(fault)
    return ProviderError(
        f"HTTP {status}: {payload['error']['message']}",
        retryable=status == 429 or status >= 500,
        retry_after=fault.retry_after,
        status=status,
    )
