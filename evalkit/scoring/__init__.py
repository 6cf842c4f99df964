"""Deciding items: code checks and the judge, extraction of fields, output (and a run's trajectory)
fenced as data."""

__all__ = [
    "extract",
    "fencing",
    "items",
    "judge",
    "structured",
    "trajectory_text",
]
