"""A fake of Anthropic's token endpoint for workload identity federation (`POST /v1/oauth/token`,
the RFC 7523 `jwt-bearer` grant the SDK sends), served by `FakeAnthropicServer` when its
`token_exchange` is set: it mints short-lived `sk-ant-oat01-` access tokens for the identity tokens
it trusts, and says which it minted, so tests can follow a token from the exchange to each request."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

TOKEN_PATH = "/v1/oauth/token"
JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer"
OAUTH_BETA = "oauth-2025-04-20"
ACCESS_TOKEN_PREFIX = "sk-ant-oat01-"


@dataclass
class TokenExchange:
    """What the fake's token endpoint trusts: one federation rule of one organisation, and the identity
    tokens (JWTs) it accepts (a callable: any token it returns True for). `minted` and `exchanges`
    record what happened; `expires_in` is the lifetime of each minted token."""

    rule_id: str
    organization_id: str
    trusts: Callable[[str], bool]
    expires_in: int = 600
    minted: list[str] = field(default_factory=list)
    exchanges: list[dict[str, Any]] = field(default_factory=list)
    revoked: set[str] = field(default_factory=set)

    def exchange(self, body: Any) -> tuple[int, dict[str, Any]]:
        """The token endpoint's answer to one request body."""
        if not isinstance(body, dict):
            return 400, _oauth_error("invalid_request", "the body must be a JSON object")
        self.exchanges.append(body)
        if body.get("grant_type") != JWT_BEARER:
            return 400, _oauth_error("unsupported_grant_type", f"grant_type must be {JWT_BEARER}")
        missing = [
            k
            for k in ("assertion", "federation_rule_id", "organization_id")
            if not isinstance(body.get(k), str) or not body[k]
        ]
        if missing:
            return 400, _oauth_error("invalid_request", f"missing {', '.join(missing)}")
        if body["federation_rule_id"] != self.rule_id or body["organization_id"] != self.organization_id:
            return 400, _oauth_error("invalid_grant", "no such federation rule in this organization")
        if not self.trusts(body["assertion"]):
            return 400, _oauth_error("invalid_grant", "the assertion does not satisfy the federation rule")
        token = ACCESS_TOKEN_PREFIX + uuid.uuid4().hex
        self.minted.append(token)
        return 200, {"access_token": token, "token_type": "Bearer", "expires_in": self.expires_in}

    def accepts(self, token: str) -> bool:
        return token in self.minted and token not in self.revoked


def _oauth_error(code: str, description: str) -> dict[str, Any]:
    return {"error": code, "error_description": description}
