"""The GitHub Action's entrypoint and its parts; run it as `python -m evalkit.action`."""

__all__ = [
    "baseline",
    "discovery",
    "evaluate",
    "guard",
    "inputs",
    "install",
    "outcome",
    "proxy",
    "publish",
    "redact",
    "sandbox",
    "shard_base",
    "sharded",
    "worker",
    "workspace",
]

