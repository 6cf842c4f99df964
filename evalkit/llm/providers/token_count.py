"""Exact input tokens of a request from the Messages API's token counting endpoint
(`messages.count_tokens`: free, no model call), for `evalkit plan` when a key is present.

`anthropic` is imported when a counter is made, not when this module is imported."""

from __future__ import annotations

from typing import Any, Callable

from evalkit.llm.providers.interface import ModelRequest

# What `messages.count_tokens` accepts of a Messages request's body (not max_tokens, temperature): a
# structured-output format and thinking count too.
_COUNTED = ("model", "messages", "system", "tools", "tool_choice", "output_config", "thinking")

TokenCounter = Callable[[ModelRequest], int]


class CountFailed(Exception):
    """The endpoint did not answer with a count (the plan falls back to its estimate)."""


def token_counter(api_key: str, base_url: str | None = None, *, timeout: float = 30.0) -> TokenCounter:
    """A function giving a request's exact input tokens; raises CountFailed when the API does not
    answer (the SDK retries a rate limit or a 5xx twice first)."""
    import anthropic  # only a plan with a key loads it

    client = anthropic.Anthropic(api_key=api_key, base_url=base_url, max_retries=2, timeout=timeout)

    def count(request: ModelRequest) -> int:
        body: dict[str, Any] = request.to_api_body()
        try:
            return int(client.messages.count_tokens(**{k: body[k] for k in _COUNTED if k in body}).input_tokens)
        except anthropic.APIError as exc:
            raise CountFailed(f"{type(exc).__name__}: {' '.join(str(exc).split())[:200]}") from None

    return count
