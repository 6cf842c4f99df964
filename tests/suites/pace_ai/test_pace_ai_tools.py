"""pace-ai tools against the published reference values (running-science.md)."""

import math

import pytest
from pace_ai.tools import (
    analyze_training_load,
    calculate_training_zones,
    parse_distance,
    parse_time,
    predict_race_time,
)

# --------------------------------------------------------------------------
# Race equivalents: Daniels' Running Formula, 3rd ed., Table 5.1
# --------------------------------------------------------------------------

DISTANCES = ["5K", "10K", "half_marathon", "marathon"]
RACE_TABLE = {
    40: ["24:08", "50:03", "1:50:59", "3:49:45"],
    50: ["19:57", "41:21", "1:31:35", "3:10:49"],
    60: ["17:03", "35:22", "1:18:09", "2:43:25"],
}


def _tolerance(seconds):
    return max(3.0, 0.002 * seconds)


@pytest.mark.parametrize("vdot", sorted(RACE_TABLE))
@pytest.mark.parametrize("src,dst", [(s, d) for s in range(4) for d in range(4) if s != d])
def test_prediction_matches_table_row(vdot, src, dst):
    """From every table time, every other column of the same row is predicted."""
    row = RACE_TABLE[vdot]
    result = predict_race_time(DISTANCES[src], row[src], DISTANCES[dst])
    expected = parse_time(row[dst])
    assert abs(result["predicted_seconds"] - expected) <= _tolerance(expected), (
        f"VDOT {vdot}: {DISTANCES[src]} {row[src]} -> {DISTANCES[dst]} {result['predicted_time']} vs table {row[dst]}"
    )


@pytest.mark.parametrize("vdot", sorted(RACE_TABLE))
@pytest.mark.parametrize("col", range(4))
def test_vdot_from_table_time(vdot, col):
    result = predict_race_time(DISTANCES[col], RACE_TABLE[vdot][col], "5K")
    assert abs(result["vdot_exact"] - vdot) <= 0.1
    assert result["vdot"] == round(result["vdot_exact"], 1)


@pytest.mark.parametrize("col", range(4))
def test_same_distance_prediction_round_trips(col):
    row = RACE_TABLE[50]
    result = predict_race_time(DISTANCES[col], row[col], DISTANCES[col])
    assert result["predicted_seconds"] == pytest.approx(parse_time(row[col]), abs=0.01)


def test_prediction_result_shape():
    r = predict_race_time("10K", "41:21", "half marathon")
    for key in (
        "vdot",
        "vdot_exact",
        "race_distance",
        "race_distance_m",
        "race_seconds",
        "race_time",
        "target_distance",
        "target_distance_m",
        "predicted_seconds",
        "predicted_time",
        "predicted_sec_per_km",
        "predicted_pace_per_km",
        "warnings",
    ):
        assert key in r
    assert r["race_distance_m"] == 10000.0
    assert r["target_distance_m"] == 21097.5
    assert r["target_distance"] == "half_marathon"
    assert r["predicted_time"].count(":") == 2  # h:mm:ss above an hour
    assert r["race_time"] == "41:21"  # mm:ss below
    assert isinstance(r["vdot_exact"], float)
    assert r["warnings"] == []


def test_outside_model_range_warns_but_predicts():
    short = predict_race_time(800, "2:00", "5K")  # a 2-minute race: below ~3.5 min
    assert short["predicted_seconds"] > 0
    assert any("race time" in w for w in short["warnings"])
    long = predict_race_time("5K", "40:00", "marathon")  # predicted ~6 h: beyond 4+ h
    assert any("predicted time" in w for w in long["warnings"])
    assert predict_race_time("5K", "20:00", "10K")["warnings"] == []


def test_longer_target_is_slower_and_pace_slows():
    five = predict_race_time("10K", "45:00", "5K")
    half = predict_race_time("10K", "45:00", "half_marathon")
    assert five["predicted_seconds"] < 45 * 60 < half["predicted_seconds"]
    assert five["predicted_sec_per_km"] < 270 < half["predicted_sec_per_km"]


# --------------------------------------------------------------------------
# Distance and time parsing
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "spelling,metres",
    [
        ("5K", 5000),
        ("5k", 5000),
        ("5 km", 5000),
        ("5km", 5000),
        ("5000", 5000),
        (5000, 5000),
        ("10K", 10000),
        ("10 K", 10000),
        ("10km", 10000),
        (10000.0, 10000),
        ("half_marathon", 21097.5),
        ("half", 21097.5),
        ("half marathon", 21097.5),
        ("Half-Marathon", 21097.5),
        ("HM", 21097.5),
        ("21.1 km", 21097.5),
        ("marathon", 42195),
        ("Marathon", 42195),
        ("M", 42195),
        ("42.195k", 42195),
        ("42.195 km", 42195),
        ("mile", 1609.344),
        ("1 mile", 1609.344),
        ("10 miles", 16093.44),
        ("3000m", 3000),
        ("1500", 1500),
        (" 8 km ", 8000),
    ],
)
def test_distance_spellings(spelling, metres):
    assert parse_distance(spelling)[0] == pytest.approx(metres)


@pytest.mark.parametrize(
    "text,seconds",
    [
        ("19:57", 1197),
        ("1:31:35", 5495),
        ("3:10:49", 11449),
        (1197, 1197),
        (1197.5, 1197.5),
        ("1234", 1234),
        ("1234.5", 1234.5),
        ("19:57.4", 1197.4),
        ("0:19:57", 1197),
        ("65:00", 3900),
    ],
)
def test_time_formats(text, seconds):
    assert parse_time(text) == pytest.approx(seconds)


def test_time_forms_agree():
    a = predict_race_time("5K", "19:57", "10K")
    b = predict_race_time(5000, 1197, 10000)
    c = predict_race_time("5 km", "1197", "10km")
    assert a["predicted_seconds"] == pytest.approx(b["predicted_seconds"]) == pytest.approx(c["predicted_seconds"])


# --------------------------------------------------------------------------
# Bad input
# --------------------------------------------------------------------------


@pytest.mark.parametrize("distance", [0, -5000, "0", "-5 km", "ultra", "5 parsecs", "", None, True])
def test_bad_distance(distance):
    with pytest.raises(ValueError) as info:
        predict_race_time(distance, "20:00", "10K")
    assert repr(distance) in str(info.value)
    with pytest.raises(ValueError) as info:
        predict_race_time("5K", "20:00", distance)
    assert repr(distance) in str(info.value)


@pytest.mark.parametrize(
    "race_time",
    [0, -1, "0:00", "-20:00", "abc", "20:75", "1:75:00", "1:2:3:4", "", None, [1200], float("nan"), float("inf")],
)
def test_bad_time(race_time):
    with pytest.raises(ValueError) as info:
        predict_race_time("5K", race_time, "10K")
    assert repr(race_time) in str(info.value)


@pytest.mark.parametrize("vdot", [0, -10, "fast", None, float("nan")])
def test_bad_vdot(vdot):
    with pytest.raises(ValueError) as info:
        calculate_training_zones(vdot)
    assert repr(vdot) in str(info.value)


@pytest.mark.parametrize(
    "weeks,bad",
    [
        ([40, 40, "lots", 40], "'lots'"),
        ([40, None, 40, 40], "None"),
        ([40, 40, -5, 40], "-5"),
        ([40, 40, 40, float("nan")], "nan"),
        ([40, [1], 40, 40], "[1]"),
    ],
)
def test_bad_weeks(weeks, bad):
    with pytest.raises(ValueError) as info:
        analyze_training_load(weeks)
    assert bad in str(info.value)


@pytest.mark.parametrize("weeks", [40, "40,40,40,40", None])
def test_weeks_must_be_a_list(weeks):
    with pytest.raises(ValueError) as info:
        analyze_training_load(weeks)
    assert repr(weeks) in str(info.value)


# --------------------------------------------------------------------------
# Training paces: Table 5.2
# --------------------------------------------------------------------------


def _s(text):
    m, s = text.split(":")
    return int(m) * 60 + int(s)


# vdot: (easy fast, easy slow, marathon, threshold, interval, repetition per 400 m in s)
PACE_TABLE = {
    40: ("5:56", "6:38", "5:29", "5:06", "4:39", 104),
    50: ("4:56", "5:34", "4:31", "4:15", "3:55", 87),
    60: ("4:15", "4:49", "3:52", "3:40", "3:23", 75),
}


@pytest.mark.parametrize("vdot", sorted(PACE_TABLE))
def test_easy_range(vdot):
    z = calculate_training_zones(vdot)
    fast, slow = _s(PACE_TABLE[vdot][0]), _s(PACE_TABLE[vdot][1])
    assert abs(z["easy"]["min_sec_per_km"] - fast) <= 8
    assert abs(z["easy"]["max_sec_per_km"] - slow) <= 8


@pytest.mark.parametrize("vdot", sorted(PACE_TABLE))
def test_threshold_pace(vdot):
    assert abs(calculate_training_zones(vdot)["threshold"]["min_sec_per_km"] - _s(PACE_TABLE[vdot][3])) <= 2


@pytest.mark.parametrize("vdot", sorted(PACE_TABLE))
def test_interval_pace(vdot):
    assert abs(calculate_training_zones(vdot)["interval"]["min_sec_per_km"] - _s(PACE_TABLE[vdot][4])) <= 3


@pytest.mark.parametrize("vdot", sorted(PACE_TABLE))
def test_repetition_per_400(vdot):
    z = calculate_training_zones(vdot)
    assert abs(z["repetition"]["sec_per_400m"] - PACE_TABLE[vdot][5]) <= 3
    assert z["repetition"]["sec_per_400m"] == pytest.approx(z["repetition"]["min_sec_per_km"] * 0.4)


# Marathon pace is defined as the VDOT-equivalent marathon race pace (predicted
# marathon time / 42.195 km). It is within the ±2 s/km tolerance at VDOT 50 and
# 60, but NOT at VDOT 40: the formula gives 5:26.5/km against the table's 5:29
# (2.5 s off). The reference says the table runs a few seconds slower at VDOT
# <= 40; the table's own 3:49:45 race equivalent is 5:26.6/km, so the printed
# M pace is not the race-equivalent pace there. Kept as a strict xfail rather
# than loosening the tolerance; the definition itself is tested just below.
@pytest.mark.parametrize(
    "vdot",
    [
        pytest.param(
            40,
            marks=pytest.mark.xfail(
                strict=True,
                reason=(
                    "Table 5.2 M pace at VDOT 40 (5:29) is ~2.5 s/km slower than the race-equivalent "
                    "marathon pace (5:26.5); the +-2 s/km tolerance cannot be met with this definition"
                ),
            ),
        ),
        50,
        60,
    ],
)
def test_marathon_pace_table(vdot):
    assert abs(calculate_training_zones(vdot)["marathon"]["min_sec_per_km"] - _s(PACE_TABLE[vdot][2])) <= 2


@pytest.mark.parametrize("vdot", sorted(RACE_TABLE))
def test_marathon_pace_is_race_equivalent_pace(vdot):
    """The documented definition: the Table 5.1 marathon time / 42.195 km, within 2 s/km."""
    table_pace = parse_time(RACE_TABLE[vdot][3]) / 42.195
    assert abs(calculate_training_zones(vdot)["marathon"]["min_sec_per_km"] - table_pace) <= 2
    # at VDOT 40 the printed M pace is a few seconds slower, never faster
    if vdot == 40:
        assert 0 < _s(PACE_TABLE[40][2]) - calculate_training_zones(40)["marathon"]["min_sec_per_km"] <= 4


def test_zone_shape_and_strings():
    z = calculate_training_zones(50)
    assert set(z["zones"]) == {"easy", "marathon", "threshold", "interval", "repetition"}
    for name in ("easy", "marathon", "threshold", "interval", "repetition"):
        zone = z[name]
        assert zone is z["zones"][name]
        assert zone["min_sec_per_km"] <= zone["max_sec_per_km"]
        assert zone["pace"].endswith("/km")
    for name in ("marathon", "threshold", "interval", "repetition"):
        assert z[name]["min_sec_per_km"] == z[name]["max_sec_per_km"]
    assert z["threshold"]["pace"] == "4:15/km"
    assert z["easy"]["pace"] == "4:55–5:34/km"
    assert z["repetition"]["pace_per_400m"] == "1:28/400m"
    assert "marathon" in z["marathon_definition"].lower()


SWEEP = [v / 2 for v in range(50, 171)]  # VDOT 25 .. 85


@pytest.mark.parametrize("vdot", SWEEP)
def test_zone_ordering(vdot):
    z = calculate_training_zones(vdot)
    assert z["easy"]["max_sec_per_km"] > z["easy"]["min_sec_per_km"] > z["marathon"]["min_sec_per_km"]
    assert z["marathon"]["min_sec_per_km"] > z["threshold"]["min_sec_per_km"]
    assert z["threshold"]["min_sec_per_km"] > z["interval"]["min_sec_per_km"]
    assert z["interval"]["min_sec_per_km"] > z["repetition"]["min_sec_per_km"]


def test_every_pace_faster_as_vdot_rises():
    prev = None
    for vdot in SWEEP:
        z = calculate_training_zones(vdot)
        cur = [
            z["easy"]["max_sec_per_km"],
            z["easy"]["min_sec_per_km"],
            z["marathon"]["min_sec_per_km"],
            z["threshold"]["min_sec_per_km"],
            z["interval"]["min_sec_per_km"],
            z["repetition"]["min_sec_per_km"],
            z["repetition"]["sec_per_400m"],
        ]
        assert all(math.isfinite(x) and x > 0 for x in cur)
        if prev is not None:
            assert all(c < p for c, p in zip(cur, prev)), vdot
        prev = cur


# --------------------------------------------------------------------------
# ACWR
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "weeks,acwr,level",
    [
        ([40, 40, 40, 40], 1.00, "optimal"),
        ([40, 40, 40, 60], 1.333, "elevated"),
        ([30, 30, 30, 60], 1.60, "high"),
        ([40, 40, 40, 30], 0.80, "optimal"),
        ([40, 44, 48, 53], 1.146, "optimal"),
    ],
)
def test_acwr_vectors(weeks, acwr, level):
    r = analyze_training_load(weeks)
    assert r["acwr"] == pytest.approx(acwr, abs=0.0005)
    assert r["risk_level"] == level
    assert r["acute"] == weeks[-1]
    assert r["chronic"] == pytest.approx(sum(weeks) / 4)
    assert r["acwr_2dp"] == round(r["acwr"], 2)
    assert "not" in r["note"] and "Lolli" in r["note"] and "Impellizzeri" in r["note"]


def test_acwr_insufficient_data():
    r = analyze_training_load([30, 35])
    assert r["risk_level"] == "insufficient_data"
    assert r["acwr"] is None and r["chronic"] is None
    assert r["insufficient_reason"]
    assert r["week_over_week_pct"] == [pytest.approx(16.7)]


@pytest.mark.parametrize("weeks", [[], [10], [0, 0, 0], [0, 0, 0, 0], [50, 60, 0, 0, 0, 0]])
def test_acwr_insufficient_never_raises(weeks):
    r = analyze_training_load(weeks)
    assert r["risk_level"] == "insufficient_data"
    assert r["acwr"] is None


def test_acwr_uses_only_last_four_weeks():
    a = analyze_training_load([40, 40, 40, 60])
    b = analyze_training_load([100, 5, 70, 40, 40, 40, 60])
    assert a["acwr"] == b["acwr"] and a["risk_level"] == b["risk_level"]
    assert b["weeks_analyzed"] == 7
    assert len(b["week_over_week_pct"]) == 6


@pytest.mark.parametrize(
    "weeks,acwr_2dp,level",
    [
        ([10, 10, 10, 5], 0.57, "low"),
        ([40, 40, 40, 29], 0.78, "low"),
        ([40, 40, 40, 52], 1.21, "optimal"),
        ([40, 40, 40, 58.5], 1.31, "elevated"),
        ([0, 0, 0, 10], 4.0, "high"),
    ],
)
def test_acwr_bands(weeks, acwr_2dp, level):
    r = analyze_training_load(weeks)
    assert r["acwr_2dp"] == acwr_2dp
    assert r["risk_level"] == level


def test_acwr_rounds_to_two_decimals_before_categorising():
    # 1.3049 -> 1.30 -> optimal, although the raw ratio is above 1.3
    chronic_weeks = [40, 40, 40]
    last = 1.3049 * (120 / (4 - 1.3049))  # solve last / ((120 + last) / 4) = 1.3049
    r = analyze_training_load(chronic_weeks + [last])
    assert r["acwr_2dp"] == 1.30 and r["risk_level"] == "optimal"
    # 1.4951 -> 1.50 -> high
    last = 1.4951 * (120 / (4 - 1.4951))
    r = analyze_training_load(chronic_weeks + [last])
    assert r["acwr_2dp"] == 1.50 and r["risk_level"] == "high"


def test_week_over_week_changes():
    r = analyze_training_load([30, 0, 40, 44, 33, 66])
    assert r["week_over_week_pct"] == [-100.0, None, 10.0, -25.0, 100.0]
    assert r["largest_increase_pct"] == 100.0
    assert r["largest_increase_week"] == 6
    assert r["two_week_change_pct"] == 50.0
    flat = analyze_training_load([40, 40, 30, 20])
    assert flat["largest_increase_pct"] is None and flat["largest_increase_week"] is None


def test_numeric_strings_accepted_as_weeks():
    assert analyze_training_load(["40", "40", "40", "60"])["acwr"] == pytest.approx(1.333, abs=0.0005)


def test_a_marathon_prediction_past_four_and_a_half_hours_warns_that_the_model_is_extrapolating():
    slow = predict_race_time("5K", "30:00", "marathon")  # 4:43:39
    assert slow["predicted_time"] == "4:43:39" and any("outside" in w for w in slow["warnings"])
    assert predict_race_time("5K", "25:10", "marathon")["warnings"] == []


def test_three_weeks_of_data_give_the_two_week_change():
    assert analyze_training_load([20, 25, 30])["two_week_change_pct"] == 50.0
