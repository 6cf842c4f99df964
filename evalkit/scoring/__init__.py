"""Deciding items: code checks and the judge, extraction of fields, output fenced as data."""

__all__ = [
    "extract",
    "fencing",
    "items",
    "judge",
    "structured",
]
