"""Offline fakes for evalkit's own tests and a team's: scripted replies, loopback servers of the
Messages and GitHub REST APIs, a scripted in-process provider."""

__all__ = [
    "fake_anthropic",
    "fake_batches",
    "fake_github",
    "offline_server",
    "prompt_cache",
    "rate_limit",
    "script",
    "script_file",
    "scripted",
    "token_exchange",
]
