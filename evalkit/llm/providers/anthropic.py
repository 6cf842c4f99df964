"""The Anthropic Messages API behind evalkit's Provider interface.

`anthropic` is imported inside functions only: importing it costs over a second, and this
module is reachable from the pytest plugin. The SDK never retries (`max_retries=0`): the one
retry layer is evalkit's client, driven by `ProviderError.retryable` / `.retry_after`.
"""

from __future__ import annotations

import email.utils
import inspect
import json
import time
from typing import Any, AsyncIterator

from evalkit.errors import MissingKeyError, ProviderError
from evalkit.llm.providers.batches import BatchResult, BatchStatus
from evalkit.llm.providers.interface import ModelRequest, ModelResponse
from evalkit.llm.providers.ratelimit import parse_rate_limit_headers

# Statuses the API asks clients to retry (the SDK's own policy: timeouts, lock conflicts,
# rate limits, every 5xx including 529 overloaded).
_RETRYABLE_STATUSES = frozenset({408, 409, 429})


class AnthropicProvider:
    """Calls `messages.create` on an `AsyncAnthropic` client that does not retry."""

    name = "anthropic"

    def __init__(
        self,
        api_key: str | None = None,
        base_url: str | None = None,
        *,
        max_connections: int = 100,
        timeout: float = 600,
    ):
        import anthropic  # anthropic loads when a provider is made, not when this module is imported
        import httpx2

        # Connect quickly or fail (a wrong base URL should not hang for the read timeout).
        http_timeout = httpx2.Timeout(timeout, connect=min(5.0, timeout))
        http_client = anthropic.DefaultAsyncHttpxClient(
            timeout=http_timeout,
            limits=httpx2.Limits(max_connections=max_connections, max_keepalive_connections=min(100, max_connections)),
        )
        # None lets the SDK read ANTHROPIC_API_KEY / ANTHROPIC_BASE_URL (and its profiles).
        try:
            self._client = anthropic.AsyncAnthropic(
                api_key=api_key, base_url=base_url, timeout=http_timeout, max_retries=0, http_client=http_client
            )
        except anthropic.CredentialsError as exc:  # e.g. ANTHROPIC_CONFIG_DIR without a profile
            raise MissingKeyError(f"No ANTHROPIC_API_KEY: set it, or run `evalkit demo` ({exc})") from exc
        if self._client.api_key is None and self._client.auth_token is None and self._client.credentials is None:
            raise MissingKeyError("No ANTHROPIC_API_KEY: set it, or run `evalkit demo`")
        self.base_url = str(self._client.base_url)
        self._sdk_params = frozenset(inspect.signature(self._client.messages.create).parameters)

    async def generate(self, request: ModelRequest) -> ModelResponse:
        body = request.to_api_body()
        # Fields this SDK version no longer names (2.12.0 has no `temperature`) travel in
        # extra_body, so the API itself accepts or rejects them, visibly.
        extra = {k: body.pop(k) for k in list(body) if k not in self._sdk_params}
        try:
            # The body is built from our own request type, not the SDK's TypedDicts; the API
            # validates it.
            # The raw response carries the rate-limit headers the client paces itself by.
            create: Any = self._client.messages.with_raw_response.create
            raw = await create(**body, **({"extra_body": extra} if extra else {}))
            # The body is read into evalkit's own response type: the SDK's Message objects
            # would only be turned back into this dict (a third of the provider's time a call).
            data = await raw.json()
        except Exception as exc:
            raise _provider_error(exc, self.base_url) from exc
        try:
            response = ModelResponse.from_api_message(data)
        except ValueError as exc:
            raise ProviderError(f"Anthropic API reply was not a message: {exc}", retryable=True, status=200) from exc
        response.rate_limit = parse_rate_limit_headers(raw.headers)
        return response

    def batches(self) -> Any:
        """The Message Batches API on this provider's client (an `evalkit.llm.batching.BatchAPI`)."""
        return AnthropicBatches(self._client, self.base_url)

    async def aclose(self) -> None:
        await self._client.close()


# A batch request errored with one of these error types fails the same way again: it is not retried.
_PERMANENT = frozenset({"invalid_request_error", "authentication_error", "permission_error", "not_found_error"})


class AnthropicBatches:
    """Uses the AsyncAnthropic client of an AnthropicProvider (one connection pool, one key)."""

    def __init__(self, client: Any, base_url: str = ""):
        self._batches = client.messages.batches
        self._base_url = base_url

    async def create(self, requests: list[dict[str, Any]]) -> BatchStatus:
        # The params are evalkit's own Messages-API bodies; the SDK sends them as they are.
        return await self._status(self._batches.create(requests=requests))

    async def retrieve(self, batch_id: str) -> BatchStatus:
        return await self._status(self._batches.retrieve(batch_id))

    async def cancel(self, batch_id: str) -> BatchStatus:
        return await self._status(self._batches.cancel(batch_id))

    async def results(self, batch_id: str) -> AsyncIterator[BatchResult]:
        try:
            lines = await self._batches.results(batch_id)
            async for line in lines:
                yield _result(line.model_dump())
        except ProviderError:
            raise
        except Exception as exc:
            raise _provider_error(exc, self._base_url) from exc

    async def _status(self, call: Any) -> BatchStatus:
        try:
            batch = await call
        except Exception as exc:
            raise _provider_error(exc, self._base_url) from exc
        counts = batch.request_counts.model_dump()
        return BatchStatus(
            id=batch.id, ended=batch.processing_status == "ended", counts={k: int(v or 0) for k, v in counts.items()}
        )


def _result(line: dict[str, Any]) -> BatchResult:
    custom_id, result = str(line.get("custom_id")), line.get("result") or {}
    kind = str(result.get("type") or "errored")
    if kind == "succeeded":
        try:
            return BatchResult(custom_id, kind, response=ModelResponse.from_api_message(result.get("message") or {}))
        except ValueError as exc:  # retried once, like a request the batch errored
            return BatchResult(custom_id, "errored", error=f"the reply was not a message: {exc}", retryable=True)
    if kind == "errored":
        error = ((result.get("error") or {}).get("error")) or {}
        etype = str(error.get("type") or "error")
        return BatchResult(
            custom_id,
            kind,
            error=f"{etype}: {' '.join(str(error.get('message', '')).split())[:300]}",
            retryable=etype not in _PERMANENT,
        )
    return BatchResult(custom_id, kind, error=f"the batch ended with this request {kind}")


def fetch_lifecycles(
    *, api_key: str | None = None, base_url: str | None = None, timeout: float = 10.0, credentials: Any = None
) -> dict[str, dict[str, Any]]:
    """Model id to its `lifecycle`, `retires_at` (ISO date or None), whether it supports
    `structured_outputs`, which `thinking` types it accepts ({type: bool}), its `effort` levels and its
    `max_tokens` (the most output tokens a request may ask; None wherever the API does not say), from
    `GET /v1/models`.

    The SDK's public `models.list()` pages through every model; key and base URL come from the
    environment unless given (`credentials`: an SDK `AccessTokenProvider`, e.g. a federated token's).
    One attempt, short timeout: the caller falls back to evalkit's table."""
    import anthropic  # likewise, on use

    client = anthropic.Anthropic(
        api_key=api_key, credentials=credentials, base_url=base_url, max_retries=0, timeout=timeout
    )
    try:
        out: dict[str, dict[str, Any]] = {}
        for info in client.models.list(limit=1000):
            retires = getattr(info, "retires_at", None)
            caps = getattr(info, "capabilities", None)
            out[info.id] = {
                "lifecycle": getattr(info, "lifecycle", None) or "active",
                "retires_at": retires.date().isoformat() if retires is not None else None,
                "structured_outputs": _supported(caps, "structured_outputs"),
                "thinking": _thinking_types(caps),
                "effort": _effort_levels(caps),
                "max_tokens": _count(getattr(info, "max_tokens", None)),
            }
        return out
    finally:
        client.close()


def _provider_error(exc: Exception, base_url: str = "") -> ProviderError:
    """Translate an SDK (or transport) failure into a ProviderError with a retry decision."""
    import anthropic  # likewise, on use

    if isinstance(exc, anthropic.APIStatusError):
        status = exc.status_code
        etype = exc.type or "error"
        detail = exc.api_message or _short(exc.body) or exc.message
        retryable = status in _RETRYABLE_STATUSES or status >= 500
        should_retry = exc.response.headers.get("x-should-retry")
        if should_retry in ("true", "false"):
            retryable = should_retry == "true"
        return ProviderError(
            f"Anthropic API {status} {etype}: {_one_line(detail)}",
            retryable=retryable,
            retry_after=_retry_after(exc.response.headers),
            status=status,
            rate_limit=parse_rate_limit_headers(exc.response.headers),
        )
    if isinstance(exc, anthropic.APITimeoutError):
        return ProviderError(f"Anthropic API request timed out ({base_url})", retryable=True)
    if isinstance(exc, anthropic.APIConnectionError):
        cause = exc.__cause__ or exc.__context__
        why = f"{type(cause).__name__}: {cause}" if cause is not None else exc.message
        return ProviderError(f"Anthropic API connection failed ({base_url}): {_one_line(why)}", retryable=True)
    if isinstance(exc, anthropic.APIResponseValidationError):
        return ProviderError(
            f"Anthropic API reply did not match the Message schema: {_one_line(exc.message)}",
            retryable=True,
            status=exc.status_code,
        )
    if isinstance(exc, (json.JSONDecodeError, UnicodeDecodeError)):
        # A 200 whose body is cut short or is not JSON: the SDK raises json.JSONDecodeError
        # straight from `response.json()` (and would not retry it); a retry usually succeeds.
        return ProviderError(
            f"Anthropic API reply was not valid JSON: {_one_line(str(exc))}", retryable=True, status=200
        )
    if isinstance(exc, anthropic.AnthropicError):
        return ProviderError(f"Anthropic client error: {_one_line(str(exc))}")
    # Raised before any request is sent (bad arguments, the SDK's "streaming is required"
    # check, missing credentials): retrying cannot help.
    return ProviderError(f"Anthropic request failed: {type(exc).__name__}: {_one_line(str(exc))}")


def _count(value: Any) -> int | None:
    """A positive integer the API gave, or None."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def _supported(capabilities: Any, name: str) -> bool | None:
    """`capabilities.<name>.supported` of a `ModelInfo`, or None when the API does not say."""
    support = getattr(capabilities, name, None) if capabilities is not None else None
    value = getattr(support, "supported", None)
    return value if isinstance(value, bool) else None


def _thinking_types(capabilities: Any) -> dict[str, bool] | None:
    """`capabilities.thinking.types` of a `ModelInfo` as {type: accepted}, or None when the API does not say."""
    types = getattr(getattr(capabilities, "thinking", None), "types", None)
    if types is None:
        return None
    out = {}
    for name in ("adaptive", "enabled", "disabled", "between_tools"):
        value = getattr(getattr(types, name, None), "supported", None)
        if isinstance(value, bool):
            out[name] = value
    return out or None


def _effort_levels(capabilities: Any) -> list[str] | None:
    """The `output_config.effort` levels a `ModelInfo` lists as supported, or None when the API does not say."""
    effort = getattr(capabilities, "effort", None)
    if effort is None or not isinstance(getattr(effort, "supported", None), bool):
        return None
    if not effort.supported:
        return []
    return [
        level
        for level in ("low", "medium", "high", "xhigh", "max")
        if getattr(getattr(effort, level, None), "supported", None) is True
    ]


def _retry_after(headers: Any) -> float | None:
    """Seconds to wait from `retry-after-ms`, else `retry-after` (seconds or an HTTP date)."""
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        value = headers.get(name)
        if value is None:
            continue
        try:
            seconds = float(value) * scale
        except ValueError:
            parsed = email.utils.parsedate_tz(value) if scale == 1.0 else None
            if parsed is None:
                continue
            seconds = email.utils.mktime_tz(parsed) - time.time()
        return max(0.0, seconds)
    return None


def _short(body: object) -> str:
    return "" if body is None else (body if isinstance(body, str) else json.dumps(body, default=str))[:300]


def _one_line(text: str) -> str:
    return " ".join(str(text).split())[:500]
