"""pace-ai: the running-coach tools evaluated by the ``pace-ai`` suite.

``pace_ai.tools`` holds the three calculators (race prediction / VDOT, training
zones, training load / ACWR); ``pace_ai.profiles`` loads the synthetic runner
profiles and derives the facts a coaching prompt and its rubric need.
"""

from pace_ai.tools import (
    analyze_training_load,
    calculate_training_zones,
    parse_distance,
    parse_time,
    predict_race_time,
)

__all__ = [
    "analyze_training_load",
    "calculate_training_zones",
    "parse_distance",
    "parse_time",
    "predict_race_time",
]
