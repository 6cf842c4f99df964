"""What a run produced: the Report, gates, intervals, field agreement, provenance, the JSONL stream
and its reader."""

__all__ = [
    "agreement",
    "gates",
    "intervals",
    "provenance",
    "reader",
    "report",
    "storable",
    "stream",
]
