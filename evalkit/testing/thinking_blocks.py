"""Signed thinking blocks for the fakes: the blocks a thinking reply starts with, and the check that a
follow-up sends them back unmodified.

The real API signs each block so that a client cannot forge or edit thinking it sends back; the fakes
do the same with an HMAC under a secret of their own (one per `Script`), over the block's position in
its message, a nonce of its own (no two blocks share a signature, even with the same empty text) and its
text, so an edited, reordered or invented block fails to verify."""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
from typing import Any

# What the scripted model "thinks": shown with display `summarized`, empty with display `omitted`.
THOUGHT = "Weighing the output against each criterion (scripted thinking)."


class ThinkingSigner:
    """Signs and verifies thinking blocks under a secret no client sees."""

    def __init__(self, secret: bytes | None = None) -> None:
        self._secret = secret if secret is not None else secrets.token_bytes(32)

    def _mac(self, position: int, nonce: str, text: str) -> str:
        digest = hmac.new(self._secret, f"{position}\x00{nonce}\x00{text}".encode(), hashlib.sha256).digest()
        return base64.urlsafe_b64encode(digest).decode().rstrip("=")

    def thinking(self, text: str, position: int = 0) -> dict[str, Any]:
        """A `thinking` block whose signature binds `text` and its position in the reply."""
        nonce = secrets.token_hex(8)
        return {"type": "thinking", "thinking": text, "signature": f"sig_{nonce}.{self._mac(position, nonce, text)}"}

    def redacted(self, position: int = 0) -> dict[str, Any]:
        """A `redacted_thinking` block: its `data` is opaque to the client and verifiable here."""
        nonce = secrets.token_hex(8)
        return {"type": "redacted_thinking", "data": f"red_{nonce}.{self._mac(position, nonce, '')}"}

    def verifies(self, block: dict[str, Any], position: int) -> bool:
        """Whether a thinking or redacted_thinking block sent back is one this signer made, unmodified,
        at the position it was made for."""
        if block.get("type") == "thinking":
            text, sealed, prefix = block.get("thinking"), block.get("signature"), "sig_"
        else:
            text, sealed, prefix = "", block.get("data"), "red_"
        if (
            not isinstance(text, str)
            or not isinstance(sealed, str)
            or not sealed.startswith(prefix)
            or "." not in sealed
        ):
            return False
        nonce, mac = sealed[len(prefix) :].split(".", 1)
        return hmac.compare_digest(mac, self._mac(position, nonce, text))


def reply_thinking(signer: ThinkingSigner, *, display: str, redacted: bool) -> tuple[list[dict[str, Any]], str]:
    """The blocks a thinking reply starts with, and the thought they stand for (billed as output tokens
    whatever the display shows)."""
    if redacted:
        return [signer.redacted()], THOUGHT
    return [signer.thinking(THOUGHT if display == "summarized" else "")], THOUGHT
