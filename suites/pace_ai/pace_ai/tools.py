"""The pace-ai coaching tools: race prediction (VDOT), training zones, training load.

Pure Python, standard library only.

Science (see the suite's running-science reference):

* VDOT after Daniels & Gilbert ("Oxygen Power", 1979):
  ``VO2(v) = -4.60 + 0.182258 v + 0.000104 v^2`` (v in metres/minute) and
  ``%max(t) = 0.8 + 0.1894393 e^(-0.012778 t) + 0.2989558 e^(-0.1932605 t)``
  (t in minutes); ``VDOT = VO2(d/t) / %max(t)``. A time at another distance is
  found by bisection on t.
* Training paces are the velocities whose oxygen cost is a fixed fraction of
  VDOT (easy 63-73.5 %, threshold 88 %, interval 97.5 %, repetition 105 %);
  marathon pace is the VDOT-equivalent marathon *race* pace.
* ACWR is the coupled rolling-average form: acute = the last week, chronic = the
  mean of the last four weeks (the last week included); categories after
  Gabbett 2016, applied to the ratio rounded to 2 decimals.
"""

from __future__ import annotations

import math
import re
from numbers import Real
from typing import Any, Sequence

__all__ = [
    "RACE_DISTANCES_M",
    "analyze_training_load",
    "calculate_training_zones",
    "format_duration",
    "format_pace",
    "parse_distance",
    "parse_time",
    "predict_race_time",
    "vdot_from_performance",
]

# --------------------------------------------------------------------------
# Distances and times
# --------------------------------------------------------------------------

MILE_M = 1609.344
HALF_MARATHON_M = 21097.5
MARATHON_M = 42195.0

#: Canonical race names and their length in metres.
RACE_DISTANCES_M: dict[str, float] = {
    "1500m": 1500.0,
    "mile": MILE_M,
    "3K": 3000.0,
    "5K": 5000.0,
    "8K": 8000.0,
    "10K": 10000.0,
    "15K": 15000.0,
    "10_mile": 10 * MILE_M,
    "half_marathon": HALF_MARATHON_M,
    "marathon": MARATHON_M,
}

# Lower-cased spellings (after collapsing spaces, "-" and "_" to nothing) -> canonical name.
_ALIASES: dict[str, str] = {
    "1500": "1500m",
    "1500m": "1500m",
    "1.5k": "1500m",
    "1.5km": "1500m",
    "metricmile": "1500m",
    "mile": "mile",
    "1mile": "mile",
    "1mi": "mile",
    "mi": "mile",
    "onemile": "mile",
    "3k": "3K",
    "3km": "3K",
    "3000m": "3K",
    "3000": "3K",
    "5k": "5K",
    "5km": "5K",
    "5000m": "5K",
    "5000": "5K",
    "parkrun": "5K",
    "8k": "8K",
    "8km": "8K",
    "8000m": "8K",
    "10k": "10K",
    "10km": "10K",
    "10000m": "10K",
    "10000": "10K",
    "15k": "15K",
    "15km": "15K",
    "15000m": "15K",
    "10mile": "10_mile",
    "10miles": "10_mile",
    "10mi": "10_mile",
    "tenmile": "10_mile",
    "half": "half_marathon",
    "halfmarathon": "half_marathon",
    "hm": "half_marathon",
    "halfmara": "half_marathon",
    "21.1k": "half_marathon",
    "21.1km": "half_marathon",
    "21.0975k": "half_marathon",
    "21.0975km": "half_marathon",
    "21097.5m": "half_marathon",
    "21097.5": "half_marathon",
    "13.1mi": "half_marathon",
    "13.1miles": "half_marathon",
    "marathon": "marathon",
    "m": "marathon",
    "full": "marathon",
    "fullmarathon": "marathon",
    "mara": "marathon",
    "42.2k": "marathon",
    "42.2km": "marathon",
    "42.195k": "marathon",
    "42.195km": "marathon",
    "42195m": "marathon",
    "42195": "marathon",
    "26.2mi": "marathon",
    "26.2miles": "marathon",
}

_NUMBER_WITH_UNIT = re.compile(
    r"^(?P<num>\d+(?:\.\d+)?)(?P<unit>m|meters?|metres?|k|km|kms|kilometers?|kilometres?|mi|miles?)?$"
)


def _is_number(value: Any) -> bool:
    return isinstance(value, Real) and not isinstance(value, bool)


def parse_distance(distance: Any) -> tuple[float, str]:
    """Return ``(metres, label)`` for a race name or a number of metres.

    Names are case-insensitive and ignore spaces, ``-`` and ``_``: "5K", "5k",
    "5 km", "10K", "half", "Half-Marathon", "half marathon", "HM", "marathon",
    "M", "42.195k", "mile", "10 miles", ... A bare number (int, float or a
    numeric string) is metres. Raises ``ValueError`` naming the value otherwise.
    """
    if _is_number(distance):
        metres = float(distance)
        label = _label_for_metres(metres)
    elif isinstance(distance, str):
        if distance.strip().startswith("-"):
            raise ValueError(f"race distance must be positive, got {distance!r}")
        key = re.sub(r"[\s_\-]+", "", distance.strip().lower())
        if key in _ALIASES:
            label = _ALIASES[key]
            metres = RACE_DISTANCES_M[label]
        else:
            match = _NUMBER_WITH_UNIT.match(key)
            if not match:
                raise ValueError(
                    f"unknown race distance {distance!r}: use e.g. '5K', '10K', "
                    f"'half_marathon', 'marathon', 'mile' or a number of metres"
                )
            number = float(match.group("num"))
            unit = match.group("unit") or "m"
            if unit.startswith("k"):
                metres = number * 1000.0
            elif unit.startswith("mi"):
                metres = number * MILE_M
            else:
                metres = number
            label = _label_for_metres(metres)
    else:
        raise ValueError(f"race distance must be a name or a number of metres, got {distance!r}")
    if not math.isfinite(metres) or metres <= 0:
        raise ValueError(f"race distance must be positive, got {distance!r}")
    return metres, label


def _label_for_metres(metres: float) -> str:
    for name, length in RACE_DISTANCES_M.items():
        if abs(length - metres) <= 0.5:
            return name
    return f"{metres:g}m"


def parse_time(race_time: Any) -> float:
    """Return seconds for ``"mm:ss"``, ``"h:mm:ss"`` or a number of seconds.

    Seconds may be an int, a float or a numeric string ("1234", "1234.5").
    Fractional seconds are allowed in the last field ("19:57.4"). Raises
    ``ValueError`` naming the value for anything else or a non-positive time.
    """
    if _is_number(race_time):
        seconds = float(race_time)
    elif isinstance(race_time, str):
        text = race_time.strip()
        parts = text.split(":")
        try:
            if len(parts) == 1:
                seconds = float(parts[0])
            elif len(parts) in (2, 3):
                *whole, last = parts
                fields = [int(p) for p in whole]
                sec = float(last)
                if any(f < 0 for f in fields) or sec < 0 or sec >= 60:
                    raise ValueError
                if len(parts) == 3 and fields[1] >= 60:
                    raise ValueError
                if len(parts) == 3:
                    seconds = fields[0] * 3600 + fields[1] * 60 + sec
                else:
                    seconds = fields[0] * 60 + sec
            else:
                raise ValueError
        except ValueError:
            raise ValueError(f"race time {race_time!r} is not 'mm:ss', 'h:mm:ss' or seconds") from None
    else:
        raise ValueError(f"race time must be 'mm:ss', 'h:mm:ss' or seconds, got {race_time!r}")
    if not math.isfinite(seconds) or seconds <= 0:
        raise ValueError(f"race time must be positive, got {race_time!r}")
    return seconds


def format_duration(seconds: float) -> str:
    """``"h:mm:ss"`` from one hour up, ``"mm:ss"`` below (rounded to the second)."""
    total = int(round(seconds))
    hours, rest = divmod(total, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours}:{minutes:02d}:{secs:02d}"
    return f"{minutes:02d}:{secs:02d}"


def format_pace(sec_per_km: float) -> str:
    """``"m:ss"`` for a pace in seconds (rounded to the second)."""
    total = int(round(sec_per_km))
    return f"{total // 60}:{total % 60:02d}"


# --------------------------------------------------------------------------
# VDOT (Daniels & Gilbert)
# --------------------------------------------------------------------------


def _vo2_cost(v_m_per_min: float) -> float:
    return -4.60 + 0.182258 * v_m_per_min + 0.000104 * v_m_per_min**2


def _fraction_of_max(t_min: float) -> float:
    return 0.8 + 0.1894393 * math.exp(-0.012778 * t_min) + 0.2989558 * math.exp(-0.1932605 * t_min)


def vdot_from_performance(metres: float, seconds: float) -> float:
    """Daniels-Gilbert VDOT of running ``metres`` in ``seconds`` (full precision)."""
    t_min = seconds / 60.0
    return _vo2_cost(metres / t_min) / _fraction_of_max(t_min)


def _velocity_for_vo2(vo2: float) -> float:
    """Metres per minute whose oxygen cost is ``vo2`` (positive root of the quadratic)."""
    a, b, c = 0.000104, 0.182258, -(4.60 + vo2)
    return (-b + math.sqrt(b * b - 4 * a * c)) / (2 * a)


def _time_for_vdot(vdot: float, metres: float) -> float:
    """Seconds to run ``metres`` at ``vdot``, by bisection on the time in minutes.

    ``vdot_from_performance(d, t)`` decreases in t over any sensible range; the
    bracket starts at a pace far faster than any human and widens upwards.
    """
    lo = metres / 1000.0  # 1000 m/min: far faster than any runner
    hi = max(2.0 * lo, 60.0)
    while vdot_from_performance(metres, hi * 60.0) > vdot:
        hi *= 2.0
        if hi > 1e6:
            raise ValueError(f"cannot predict a time for VDOT {vdot!r} over {metres!r} m")
    for _ in range(200):
        mid = (lo + hi) / 2.0
        if vdot_from_performance(metres, mid * 60.0) > vdot:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-9:
            break
    return (lo + hi) / 2.0 * 60.0


# Outside roughly 3.5 min to 4+ h the model is an extrapolation.
_MODEL_MIN_S = 3.5 * 60
_MODEL_MAX_S = 4.5 * 3600


def predict_race_time(race_distance: Any, race_time: Any, target_distance: Any) -> dict:
    """Predict a time at ``target_distance`` from a race result (Daniels-Gilbert VDOT).

    ``race_distance`` / ``target_distance``: a race name ("5K", "10K",
    "half_marathon", "marathon", "mile", common spellings too) or metres.
    ``race_time``: "mm:ss", "h:mm:ss" or seconds.

    Returns a dict with keys ``vdot`` (1 decimal), ``vdot_exact``,
    ``race_distance`` (label), ``race_distance_m``, ``race_seconds``,
    ``race_time``, ``target_distance`` (label), ``target_distance_m``,
    ``predicted_seconds``, ``predicted_time``, ``predicted_pace_per_km``
    ("m:ss/km"), ``predicted_sec_per_km`` and ``warnings`` (list of strings,
    e.g. efforts outside the 3.5 min - 4+ h range the model was built for).
    """
    race_m, race_label = parse_distance(race_distance)
    race_s = parse_time(race_time)
    target_m, target_label = parse_distance(target_distance)

    vdot = vdot_from_performance(race_m, race_s)
    if not math.isfinite(vdot) or vdot <= 0:
        raise ValueError(f"race time {race_time!r} over {race_distance!r} is too slow to rate")
    predicted_s = _time_for_vdot(vdot, target_m)

    warnings = []
    for what, secs in (("race", race_s), ("predicted", predicted_s)):
        if secs < _MODEL_MIN_S or secs > _MODEL_MAX_S:
            warnings.append(
                f"{what} time {format_duration(secs)} is outside the ~3.5 min to 4+ h "
                f"range the Daniels-Gilbert model was fitted on"
            )
    sec_per_km = predicted_s / (target_m / 1000.0)
    return {
        "vdot": round(vdot, 1),
        "vdot_exact": vdot,
        "race_distance": race_label,
        "race_distance_m": race_m,
        "race_seconds": race_s,
        "race_time": format_duration(race_s),
        "target_distance": target_label,
        "target_distance_m": target_m,
        "predicted_seconds": predicted_s,
        "predicted_time": format_duration(predicted_s),
        "predicted_sec_per_km": sec_per_km,
        "predicted_pace_per_km": f"{format_pace(sec_per_km)}/km",
        "warnings": warnings,
    }


# --------------------------------------------------------------------------
# Training zones
# --------------------------------------------------------------------------

#: Fractions of VDOT (oxygen cost of the pace / VDOT) for each zone.
ZONE_FRACTIONS = {
    "easy": (0.63, 0.735),  # slow end, fast end
    "threshold": 0.88,
    "interval": 0.975,
    "repetition": 1.05,
}

MARATHON_PACE_DEFINITION = (
    "Marathon pace is the VDOT-equivalent marathon race pace: the Daniels-Gilbert "
    "predicted marathon time for this VDOT divided by 42.195 km. It matches Daniels' "
    "Table 5.2 within 2 s/km at VDOT 50 and 60; at VDOT <= 40 the printed table is a "
    "few seconds per km slower than this (e.g. 5:29 vs 5:26-5:27/km at VDOT 40)."
)


def _sec_per_km_at_fraction(vdot: float, fraction: float) -> float:
    return 60000.0 / _velocity_for_vo2(fraction * vdot)


def calculate_training_zones(vdot: Any) -> dict:
    """Daniels training paces for a VDOT.

    Returns ``{"vdot", "marathon_definition", "zones", "easy", "marathon",
    "threshold", "interval", "repetition"}``; each zone (also reachable under
    ``zones``) is a dict with ``min_sec_per_km`` (fast end), ``max_sec_per_km``
    (slow end; equal to ``min`` for a single pace), ``pace`` ("4:15/km" or
    "4:56–5:34/km"), ``pct_vdot`` (fraction or [slow, fast] fractions; None
    for marathon) and ``description``. Repetition also has ``sec_per_400m``
    and ``pace_per_400m`` ("1:27/400m"); interval has ``sec_per_400m`` too.
    """
    if not _is_number(vdot):
        if isinstance(vdot, str):
            try:
                vdot_f = float(vdot)
            except ValueError:
                raise ValueError(f"VDOT must be a number, got {vdot!r}") from None
        else:
            raise ValueError(f"VDOT must be a number, got {vdot!r}")
    else:
        vdot_f = float(vdot)
    if not math.isfinite(vdot_f) or vdot_f <= 0:
        raise ValueError(f"VDOT must be positive, got {vdot!r}")

    def single(sec: float, fraction: float | None, description: str) -> dict:
        return {
            "min_sec_per_km": sec,
            "max_sec_per_km": sec,
            "pace": f"{format_pace(sec)}/km",
            "pct_vdot": fraction,
            "description": description,
        }

    easy_slow_f, easy_fast_f = ZONE_FRACTIONS["easy"]
    easy_fast = _sec_per_km_at_fraction(vdot_f, easy_fast_f)
    easy_slow = _sec_per_km_at_fraction(vdot_f, easy_slow_f)
    easy = {
        "min_sec_per_km": easy_fast,
        "max_sec_per_km": easy_slow,
        "pace": f"{format_pace(easy_fast)}–{format_pace(easy_slow)}/km",
        "pct_vdot": [easy_slow_f, easy_fast_f],
        "description": "Easy / long runs, recovery: conversational effort.",
    }
    marathon_sec = _time_for_vdot(vdot_f, MARATHON_M) / (MARATHON_M / 1000.0)
    marathon = single(marathon_sec, None, "Marathon race pace (VDOT-equivalent marathon time / 42.195 km).")
    threshold = single(
        _sec_per_km_at_fraction(vdot_f, ZONE_FRACTIONS["threshold"]),
        ZONE_FRACTIONS["threshold"],
        "Threshold / tempo: comfortably hard, ~1 h race effort; 20-30 min or cruise intervals.",
    )
    interval = single(
        _sec_per_km_at_fraction(vdot_f, ZONE_FRACTIONS["interval"]),
        ZONE_FRACTIONS["interval"],
        "Interval (VO2max): 3-5 min repeats with equal jog recovery.",
    )
    interval["sec_per_400m"] = interval["min_sec_per_km"] * 0.4
    repetition = single(
        _sec_per_km_at_fraction(vdot_f, ZONE_FRACTIONS["repetition"]),
        ZONE_FRACTIONS["repetition"],
        "Repetition: fast, short repeats (200-400 m) with full recovery.",
    )
    rep_400 = repetition["min_sec_per_km"] * 0.4
    repetition["sec_per_400m"] = rep_400
    repetition["pace_per_400m"] = f"{format_pace(rep_400)}/400m"

    zones = {"easy": easy, "marathon": marathon, "threshold": threshold, "interval": interval, "repetition": repetition}
    return {"vdot": vdot_f, "marathon_definition": MARATHON_PACE_DEFINITION, "zones": zones, **zones}


# --------------------------------------------------------------------------
# Training load (ACWR)
# --------------------------------------------------------------------------

ACWR_NOTE = (
    "ACWR is a training-load signal (how this week compares with the last four), not an "
    "injury prediction: the coupled ratio is mathematically biased and the evidence linking "
    "it to injury is weak (Lolli et al. 2019; Impellizzeri et al. 2020)."
)


def _acwr_category(ratio_2dp: float) -> str:
    if ratio_2dp < 0.8:
        return "low"
    if ratio_2dp <= 1.3:
        return "optimal"
    if ratio_2dp < 1.5:
        return "elevated"
    return "high"


def _parse_week(index: int, value: Any) -> float:
    if _is_number(value):
        km = float(value)
    elif isinstance(value, str):
        try:
            km = float(value.strip())
        except ValueError:
            raise ValueError(f"week {index + 1}: distance {value!r} is not a number") from None
    else:
        raise ValueError(f"week {index + 1}: distance {value!r} is not a number")
    if not math.isfinite(km):
        raise ValueError(f"week {index + 1}: distance {value!r} is not a finite number")
    if km < 0:
        raise ValueError(f"week {index + 1}: distance {value!r} is negative")
    return km


def analyze_training_load(weekly_distances: Sequence[Any]) -> dict:
    """Acute:chronic workload ratio from weekly distances (km, oldest first).

    Coupled rolling average: ``acute`` = last week, ``chronic`` = mean of the
    last 4 weeks (last week included); only those 4 weeks enter the ratio,
    longer histories feed the week-over-week trend.

    Returns ``weeks`` (the parsed list), ``weeks_analyzed``, ``acute``,
    ``chronic``, ``acwr`` (3 decimals, None if insufficient), ``acwr_2dp``
    (the value categorised), ``risk_level`` (``low | optimal | elevated |
    high | insufficient_data``), ``risk_description``, ``insufficient_reason``
    (None unless insufficient), ``week_over_week_pct`` (one entry per
    consecutive pair, None where the earlier week is 0), ``largest_increase_pct``
    and ``largest_increase_week`` (1-based index of the later week; None if no
    week increased), ``two_week_change_pct`` (last week vs the week two weeks
    before it: Nielsen 2014 found > 30 % in two weeks raised injury rates; None
    with fewer than 3 weeks or a zero base) and ``note`` (ACWR is a load
    signal, not an injury prediction).

    Fewer than 4 weeks or a zero chronic load give ``risk_level
    "insufficient_data"`` and ``acwr None`` (never an exception); non-numeric,
    non-finite or negative weeks raise ``ValueError`` naming the value.
    """
    if isinstance(weekly_distances, (str, bytes)) or not isinstance(weekly_distances, Sequence):
        raise ValueError(f"weekly_distances must be a list of weekly km, got {weekly_distances!r}")
    weeks = [_parse_week(i, w) for i, w in enumerate(weekly_distances)]

    changes: list[float | None] = []
    for prev, cur in zip(weeks, weeks[1:]):
        changes.append(None if prev == 0 else round((cur - prev) / prev * 100.0, 1))
    increases = [(c, i + 2) for i, c in enumerate(changes) if c is not None and c > 0]
    largest = max(increases, default=None)
    two_week = None
    if len(weeks) >= 3 and weeks[-3] > 0:
        two_week = round((weeks[-1] - weeks[-3]) / weeks[-3] * 100.0, 1)

    result: dict[str, Any] = {
        "weeks": weeks,
        "weeks_analyzed": len(weeks),
        "acute": weeks[-1] if weeks else None,
        "chronic": None,
        "acwr": None,
        "acwr_2dp": None,
        "risk_level": "insufficient_data",
        "risk_description": None,
        "insufficient_reason": None,
        "week_over_week_pct": changes,
        "largest_increase_pct": largest[0] if largest else None,
        "largest_increase_week": largest[1] if largest else None,
        "two_week_change_pct": two_week,
        "note": ACWR_NOTE,
    }
    if len(weeks) < 4:
        result["insufficient_reason"] = f"need at least 4 weeks of data, got {len(weeks)}"
        result["risk_description"] = "Not enough history to compute an acute:chronic ratio."
        return result
    last4 = weeks[-4:]
    chronic = sum(last4) / 4.0
    result["chronic"] = chronic
    if chronic == 0:
        result["insufficient_reason"] = "chronic load is zero (no running in the last 4 weeks)"
        result["risk_description"] = "No recent load: the ratio is undefined."
        return result
    ratio = weeks[-1] / chronic
    ratio_2dp = round(ratio, 2)
    level = _acwr_category(ratio_2dp)
    result.update(
        {
            "acwr": round(ratio, 3),
            "acwr_2dp": ratio_2dp,
            "risk_level": level,
            "risk_description": {
                "low": "ACWR below 0.8: load well under the recent average (undertraining / deload).",
                "optimal": "ACWR 0.8-1.3: load in line with the recent average (the 'sweet spot').",
                "elevated": "ACWR above 1.3 and below 1.5: load rising faster than the runner is used to.",
                "high": "ACWR 1.5 or above: a load spike (the 'danger zone'); cut volume and intensity.",
            }[level],
        }
    )
    return result
