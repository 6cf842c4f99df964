"""Model tiers and defaults, and the one precedence rule that picks a model for each tier.

Two tiers: `high` for the system under test, `low` for the judge and extraction (the help-agents
design's names). The runner, `evalkit plan` and the ambient client all resolve models with
`resolve_tiers`, so a suite runs the same models whichever front door starts it.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

DEFAULT_TARGET_MODEL = "claude-sonnet-5-5"
DEFAULT_JUDGE_MODEL = "claude-haiku-5-5"
DEFAULT_TIERS: Mapping[str, str] = {"high": DEFAULT_TARGET_MODEL, "low": DEFAULT_JUDGE_MODEL}
# The environment's tier settings (seed 003's SYSTEM_AGENT_MODELS_HIGH / _LOW).
TIER_ENV: Mapping[str, str] = {"high": "SYSTEM_AGENT_MODELS_HIGH", "low": "SYSTEM_AGENT_MODELS_LOW"}


def env_tiers(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The tiers set (non-empty) in the environment."""
    env = os.environ if environ is None else environ
    return {tier: env[var].strip() for tier, var in TIER_ENV.items() if env.get(var, "").strip()}


def resolve_tiers(*layers: Mapping[str, str | None] | None) -> dict[str, str]:
    """Tier to model: for each tier the first layer that names a model wins, then the environment,
    then evalkit's defaults. Callers pass their layers most specific first (CLI, then suite)."""
    tiers: dict[str, str] = {}
    for layer in (*layers, env_tiers(), DEFAULT_TIERS):
        for tier, model in (layer or {}).items():
            if model and tier not in tiers:
                tiers[tier] = model
    return tiers
