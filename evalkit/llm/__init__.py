"""Model calls: the client (retries, concurrency, cache, usage), prices, model tiers and lifecycle,
the providers and Message Batches."""

from __future__ import annotations

from typing import TYPE_CHECKING

from evalkit._runtime.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from evalkit.llm.batching import batch_eligible, batch_run
    from evalkit.llm.budget import Budget, max_cost_problem, parse_max_cost, request_tokens, text_tokens
    from evalkit.llm.cache import ResponseCache, default_cache_dir, derive_seal, seal_from, use_seal
    from evalkit.llm.capabilities import UNKNOWN, Capabilities, CapabilityTable, effort_for, table_info
    from evalkit.llm.client import BoundClient, ModelClient, RetryPolicy, SyncClient
    from evalkit.llm.model_lifecycle import LifecycleTable, known_models, models_table
    from evalkit.llm.paid import PaidLedger
    from evalkit.llm.pricing import cost_usd
    from evalkit.llm.prompt_prefix import CHARS_PER_TOKEN, PrefixLedger
    from evalkit.llm.providers.anthropic import AnthropicProvider, fetch_lifecycles
    from evalkit.llm.providers.interface import CACHE_CONTROL, ModelRequest, ModelResponse, Provider
    from evalkit.llm.providers.lazy import LazyProvider
    from evalkit.llm.providers.token_count import token_counter
    from evalkit.llm.tiers import DEFAULT_JUDGE_MODEL, TIER_ENV, resolve_tiers
    from evalkit.llm.usage import Usage

# What the other rooms (and a team's code) use of this one; each name loads its module on first use.
__all__ = [
    "AnthropicProvider",
    "BoundClient",
    "Budget",
    "CACHE_CONTROL",
    "CHARS_PER_TOKEN",
    "Capabilities",
    "CapabilityTable",
    "DEFAULT_JUDGE_MODEL",
    "LazyProvider",
    "LifecycleTable",
    "ModelClient",
    "ModelRequest",
    "ModelResponse",
    "PaidLedger",
    "PrefixLedger",
    "Provider",
    "ResponseCache",
    "RetryPolicy",
    "SyncClient",
    "TIER_ENV",
    "UNKNOWN",
    "Usage",
    "batch_eligible",
    "batch_run",
    "cost_usd",
    "default_cache_dir",
    "derive_seal",
    "effort_for",
    "fetch_lifecycles",
    "known_models",
    "max_cost_problem",
    "models_table",
    "parse_max_cost",
    "request_tokens",
    "resolve_tiers",
    "seal_from",
    "table_info",
    "text_tokens",
    "token_counter",
    "use_seal",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "batch_eligible": "evalkit.llm.batching",
        "batch_run": "evalkit.llm.batching",
        "Budget": "evalkit.llm.budget",
        "max_cost_problem": "evalkit.llm.budget",
        "parse_max_cost": "evalkit.llm.budget",
        "request_tokens": "evalkit.llm.budget",
        "text_tokens": "evalkit.llm.budget",
        "ResponseCache": "evalkit.llm.cache",
        "default_cache_dir": "evalkit.llm.cache",
        "derive_seal": "evalkit.llm.cache",
        "seal_from": "evalkit.llm.cache",
        "use_seal": "evalkit.llm.cache",
        "Capabilities": "evalkit.llm.capabilities",
        "CapabilityTable": "evalkit.llm.capabilities",
        "UNKNOWN": "evalkit.llm.capabilities",
        "effort_for": "evalkit.llm.capabilities",
        "table_info": "evalkit.llm.capabilities",
        "BoundClient": "evalkit.llm.client",
        "ModelClient": "evalkit.llm.client",
        "RetryPolicy": "evalkit.llm.client",
        "SyncClient": "evalkit.llm.client",
        "LifecycleTable": "evalkit.llm.model_lifecycle",
        "known_models": "evalkit.llm.model_lifecycle",
        "models_table": "evalkit.llm.model_lifecycle",
        "PaidLedger": "evalkit.llm.paid",
        "cost_usd": "evalkit.llm.pricing",
        "CHARS_PER_TOKEN": "evalkit.llm.prompt_prefix",
        "PrefixLedger": "evalkit.llm.prompt_prefix",
        "AnthropicProvider": "evalkit.llm.providers.anthropic",
        "fetch_lifecycles": "evalkit.llm.providers.anthropic",
        "CACHE_CONTROL": "evalkit.llm.providers.interface",
        "ModelRequest": "evalkit.llm.providers.interface",
        "ModelResponse": "evalkit.llm.providers.interface",
        "Provider": "evalkit.llm.providers.interface",
        "LazyProvider": "evalkit.llm.providers.lazy",
        "token_counter": "evalkit.llm.providers.token_count",
        "DEFAULT_JUDGE_MODEL": "evalkit.llm.tiers",
        "TIER_ENV": "evalkit.llm.tiers",
        "resolve_tiers": "evalkit.llm.tiers",
        "Usage": "evalkit.llm.usage",
    },
)

del annotations, TYPE_CHECKING, lazy_exports
