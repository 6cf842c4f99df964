"""What a run produced: the Report, gates, intervals, field agreement, consistency over repeats
(pass@k, pass^k), provenance, the JSONL stream and its reader."""

__all__ = [
    "agreement",
    "consistency",
    "gates",
    "intervals",
    "provenance",
    "reader",
    "report",
    "storable",
    "stream",
]
