"""The credential the Action's parent process holds for the Messages API: a stored API key, or an
access token from Anthropic's workload identity federation, minted from the job's GitHub OIDC token.

Either way it stays in the parent: the key proxy (evalkit/action/proxy.py) adds it to each request
the worker sends with its placeholder. With federation the parent asks GitHub for an identity token
(`permissions: id-token: write` gives the job `ACTIONS_ID_TOKEN_REQUEST_URL` and `_TOKEN`) and
exchanges it through the SDK's public `WorkloadIdentityCredentials`, cached by its `TokenCache`
(refreshed before it expires; each exchange asks GitHub for a fresh identity token).
"""

from __future__ import annotations

import json
import os
import threading
import urllib.error
import urllib.parse
import urllib.request
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from evalkit.errors import UsageError
from evalkit.github import commands
from evalkit.llm.cache import derive_seal

OAUTH_BETA = "oauth-2025-04-20"  # what the SDK sends beside a federated bearer token
DEFAULT_AUDIENCE = "https://api.anthropic.com"
_OIDC_TIMEOUT = 30.0
NO_OIDC = (
    "the federation inputs are set but the job has no OIDC token (no ACTIONS_ID_TOKEN_REQUEST_URL): "
    "give the job `permissions: id-token: write` (fork pull requests get none)"
)


@dataclass(frozen=True)
class Federation:
    """The federation inputs: which rule and organisation (and optionally service account and workspace)
    the job's identity token is exchanged under, and the audience it is requested for."""

    rule_id: str
    organization_id: str
    service_account_id: str | None = None
    workspace_id: str | None = None
    audience: str = DEFAULT_AUDIENCE


_masked: set[str] = set()
_mask_lock = threading.Lock()


def mask_once(value: str) -> None:
    """Mask `value` in the job's log (once: a token asked for again is the same token)."""
    with _mask_lock:
        if value not in _masked:
            _masked.add(value)
            commands.mask(value)


class Credential(ABC):
    """What the proxy adds to a forwarded request; never shown in a repr."""

    kind = "credential"

    @abstractmethod
    def headers(self, client_sent_bearer: bool) -> dict[str, str]:
        """The headers that authenticate a forwarded request."""

    def invalidate(self) -> bool:
        """Forget a credential upstream refused (401); True when asking again may help."""
        return False

    @abstractmethod
    def sdk_options(self) -> dict[str, Any]:
        """Keyword arguments for `anthropic.Anthropic` in the parent (the model lifecycle listing)."""

    @abstractmethod
    def seal(self) -> bytes:
        """The response cache's seal key for runs with this credential (the worker never sees it)."""

    def __repr__(self) -> str:
        return f"<{type(self).__name__}>"


class ApiKey(Credential):
    """A stored API key, sent the way the worker's client sent its placeholder (SDKs differ)."""

    kind = "anthropic_api_key"

    def __init__(self, key: str):
        self._key = key

    def headers(self, client_sent_bearer: bool) -> dict[str, str]:
        return {"Authorization": f"Bearer {self._key}"} if client_sent_bearer else {"x-api-key": self._key}

    def sdk_options(self) -> dict[str, Any]:
        return {"api_key": self._key}

    def seal(self) -> bytes:
        return derive_seal(self._key)  # the same key, the same seal: its cache outlives the run


class FederatedToken(Credential):
    """A short-lived access token from the federation exchange, as a bearer with the OAuth beta."""

    kind = "workload identity federation"

    def __init__(self, token: Callable[[], str], invalidate: Callable[[], None]):
        self._token = token
        self._invalidate = invalidate
        # Access tokens change from run to run: a seal of the run's own, so entries of another are misses.
        self._seal = os.urandom(32)

    def seal(self) -> bytes:
        return self._seal

    def access_token(self) -> str:
        token = self._token()
        mask_once(token)  # each newly minted token is masked in the log before any use
        return token

    def headers(self, client_sent_bearer: bool) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.access_token()}", "anthropic-beta": OAUTH_BETA}

    def invalidate(self) -> bool:
        self._invalidate()
        return True

    def sdk_options(self) -> dict[str, Any]:
        import anthropic

        return {"credentials": anthropic.StaticToken(self.access_token())}


def github_oidc_token(env: Mapping[str, str], audience: str) -> str:
    """A fresh identity token for this job from the runner's OIDC endpoint (needs `id-token: write`)."""
    url, bearer = env.get("ACTIONS_ID_TOKEN_REQUEST_URL", ""), env.get("ACTIONS_ID_TOKEN_REQUEST_TOKEN", "")
    if not url or not bearer:
        raise UsageError(NO_OIDC)
    sep = "&" if urllib.parse.urlsplit(url).query else "?"
    request = urllib.request.Request(
        url + sep + urllib.parse.urlencode({"audience": audience}),
        headers={"Authorization": f"bearer {bearer}", "Accept": "application/json"},
    )
    try:
        with urllib.request.urlopen(request, timeout=_OIDC_TIMEOUT) as resp:  # noqa: S310 - the runner's URL
            payload = json.loads(resp.read())
    except urllib.error.HTTPError as exc:
        raise UsageError(
            f"the job's OIDC token was refused by GitHub (HTTP {exc.code}): check `permissions: id-token: write`"
        ) from None
    except (OSError, ValueError) as exc:
        raise UsageError(f"could not get the job's OIDC token from GitHub: {type(exc).__name__}") from None
    value = payload.get("value") if isinstance(payload, dict) else None
    if not isinstance(value, str) or not value.strip():
        raise UsageError("GitHub's OIDC endpoint answered without a token (no `value`)")
    mask_once(value.strip())
    return value.strip()


def federated(federation: Federation, env: Mapping[str, str], upstream: str) -> FederatedToken:
    """Exchange the job's identity token now (a setup mistake is a one-line error here, not a failed
    model call later) and return the credential that keeps the access token fresh."""
    import anthropic

    github_oidc_token(env, federation.audience)  # fails fast, and with a plain message, without id-token: write
    exchange = anthropic.WorkloadIdentityCredentials(
        identity_token_provider=lambda: github_oidc_token(env, federation.audience),
        federation_rule_id=federation.rule_id,
        organization_id=federation.organization_id,
        service_account_id=federation.service_account_id,
        workspace_id=federation.workspace_id,
    )
    exchange.bind_base_url(upstream)
    cache = anthropic.TokenCache(exchange)
    credential = FederatedToken(cache.get_token, cache.invalidate)
    try:
        credential.access_token()
    except anthropic.WorkloadIdentityError as exc:
        status = f" (HTTP {exc.status_code})" if exc.status_code else ""
        raise UsageError(
            f"the workload identity federation exchange was refused{status}: "
            f"{' '.join(str(exc).split())[:300]}; check the federation rule, organisation and "
            "audience"
        ) from None
    except UsageError:
        raise
    except Exception as exc:  # noqa: BLE001 - a connection error and the like: one line, not a traceback
        raise UsageError(
            f"the workload identity federation exchange failed: {type(exc).__name__}: "
            f"{' '.join(str(exc).split())[:300]}"
        ) from None
    return credential
