"""Offline fakes for evalkit's own tests and a team's: scripted replies, loopback servers of the
Messages and GitHub REST APIs, a scripted in-process provider."""

from __future__ import annotations

from typing import TYPE_CHECKING

from evalkit._runtime.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from evalkit.testing.fake_anthropic import FakeAnthropicServer
    from evalkit.testing.script import Script

# What the other rooms (and a team's code) use of this one; each name loads its module on first use.
__all__ = [
    "FakeAnthropicServer",
    "Script",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "FakeAnthropicServer": "evalkit.testing.fake_anthropic",
        "Script": "evalkit.testing.script",
    },
)

del annotations, TYPE_CHECKING, lazy_exports
