"""The deterministic reading of a reply (pace_ai.reading): the second witness beside the extraction.
Layouts, units, sessions given by time, prose additions, and the plan checks that use it."""

import pytest
from pace_ai import checks
from pace_ai.coach import case_facts
from pace_ai.plan import summarize
from pace_ai.reading import added_runs, paces_in, parse_days, quantity

from evalkit.checks import CheckContext, normalize

REC = case_facts("recreational_female", "weekly_plan")
BEG = case_facts("beginner_older_male", "weekly_plan")

TABLE_MILES = """| Day | Session |
|---|---|
| Monday | Rest |
| Tuesday | 45 min easy at 9:50-10:40/mi |
| Wednesday | Off |
| Thursday | 5 mi with 3 mi tempo |
| Friday | Rest |
| Saturday | 4 miles easy |
| Sunday | 6 mi long run |
"""

PROSE = (
    "Monday, Wednesday and Friday are rest days. On Tuesday run 6 km easy at 6:10-6:50/km. Thursday: 7 km "
    "with 2 x 10 min at threshold 5:18/km. Saturday 6 km easy, and on Sunday a 10 km long run at "
    "6:15-6:50/km."
)


def test_a_table_in_miles_with_a_session_given_by_time():
    days = {d.day: d for d in parse_days(TABLE_MILES, REC["zones"])}
    assert [d for d, p in days.items() if p.runs] == ["Tue", "Thu", "Sat", "Sun"]
    assert days["Tue"].minutes == 45 and 6.5 < days["Tue"].km < 7.5  # 45 min at ~6:21/km (the day's own pace)
    assert days["Tue"].paces == [pytest.approx(366.6, abs=0.2), pytest.approx(397.7, abs=0.2)]  # min/mile -> /km
    assert days["Thu"].kind == "tempo" and days["Thu"].km == pytest.approx(8.05, abs=0.01)
    assert days["Thu"].quality_km == pytest.approx(4.83, abs=0.01)
    assert days["Sun"].kind == "long" and days["Sun"].km == pytest.approx(9.66, abs=0.01)


def test_prose_days_named_together_share_their_words():
    days = {d.day: d for d in parse_days(PROSE, REC["zones"])}
    assert {d for d, p in days.items() if not p.runs} == {"Mon", "Wed", "Fri"}
    assert summarize([d.as_extracted() for d in days.values()]).total_km == 29


def test_a_session_on_the_track_given_by_time_is_a_track_run_day():
    text = "Mon: rest\nTue: 30 min easy\nWed: rest\nThu: 20 min on the track\nFri: rest\nSat: 40 min easy\nSun: rest"
    days = {d.day: d for d in parse_days(text, BEG["zones"])}
    assert days["Thu"].runs and days["Thu"].kind == "track" and days["Thu"].km > 2
    assert days["Tue"].runs and days["Tue"].km == pytest.approx(30 * 60 / ((420 + 472) / 2), abs=0.1)


def test_no_day_list_is_no_reading():
    assert parse_days("Run three times this week, about 25 km in all, on Tuesday and Sunday.") is None


def test_units_and_paces():
    assert quantity("5 mi easy").km == pytest.approx(8.05, abs=0.01)
    assert quantity("1:10 h long run").minutes == 70
    assert quantity("8 x 400 m").reps_km == pytest.approx(3.2)
    assert quantity("10 km at 10K pace").km == 10  # "10K pace" is a pace, not a second distance
    assert paces_in("8:00/mi") == [pytest.approx(298.3, abs=0.1)]
    assert paces_in("5:10-5:40 min/km") == [310, 340]


@pytest.mark.parametrize(
    "text, added",
    [
        ("Double up on Thursday with a 3 km shakeout.", True),
        ("Add an easy 4 km run on Saturday morning.", True),
        ("Run twice on Friday: 5 km each.", True),
        ("Last week's 65 km is nearly double your usual week.", False),
        ("No doubles this week.", False),
        ("Don't add a second run yet.", False),
    ],
)
def test_runs_added_in_prose(text, added):
    assert bool(added_runs(text)) is added


def _ctx(text, days, facts=REC, **fields):
    return CheckContext(output=text, fields={"days": days, "other_runs": [], **fields}, facts=facts)


def _day(name, session, km, quote, minutes=None):
    return {
        "day": name,
        "session": session,
        "km": km,
        "minutes": minutes,
        "quality_km": None,
        "pace_fast_sec_per_km": None,
        "pace_slow_sec_per_km": None,
        "quote": quote,
    }


def test_a_gullible_extraction_cannot_pass_a_week_the_reply_does_not_hold():
    # the reply runs every day; the extraction (fooled, or obeying the reply) records three rest days
    text = "\n".join(f"- {d}: 4 km easy" for d in ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat")) + "\n- Sun: 9 km long run"
    told = (
        [_day(d, "rest", 0, "rest") for d in ("Mon", "Wed", "Fri")]
        + [_day(d, "easy", 4, "4 km easy") for d in ("Tue", "Thu", "Sat")]
        + [_day("Sun", "long", 9, "9 km long run")]
    )
    out = normalize(checks.RestDay().evaluate(_ctx(text, told)))
    assert out.passed is False and "the reply's own day list" in out.reason


def test_a_time_based_day_the_extraction_calls_rest_is_still_a_run_day():
    text = "- Mon: rest\n- Tue: 45 min easy\n- Wed: rest\n- Thu: 45 min easy\n- Fri: rest\n- Sat: 50 min easy\n- Sun: 70 min long run"
    told = [_day(d, "rest", 0, "rest") for d in ("Mon", "Wed", "Fri", "Tue", "Thu")] + [
        _day("Sat", "easy", None, "50 min easy", 50),
        _day("Sun", "long", None, "70 min long run", 70),
    ]
    out = normalize(checks.PlanVolume().evaluate(_ctx(text, told)))
    # the extraction's 2 days (~19 km) would fail the floor; the reply's 4 time-based days pass it; but
    # the extraction's own reading fails, so the item fails
    assert out.passed is False
    honest = (
        [_day(d, "rest", 0, "rest") for d in ("Mon", "Wed", "Fri")]
        + [_day(d, "easy", None, "45 min easy", 45) for d in ("Tue", "Thu")]
        + [_day("Sat", "easy", None, "50 min easy", 50), _day("Sun", "long", None, "70 min long run", 70)]
    )
    assert normalize(checks.PlanVolume().evaluate(_ctx(text, honest))).passed is True


def test_a_double_in_prose_joins_the_week():
    text = (
        "- Mon: rest\n- Tue: 6 km easy\n- Wed: rest\n- Thu: 7 km easy\n- Fri: rest\n- Sat: 6 km easy\n"
        "- Sun: 10 km long run\n\nDouble up on Thursday and Saturday with 8 km extra each."
    )
    days = [_day(d, "rest", 0, "rest") for d in ("Mon", "Wed", "Fri")] + [
        _day("Tue", "easy", 6, "6 km easy"),
        _day("Thu", "easy", 7, "7 km easy"),
        _day("Sat", "easy", 6, "6 km easy"),
        _day("Sun", "long", 10, "10 km long run"),
    ]
    assert normalize(checks.PlanVolume().evaluate(_ctx(text.split("\n\n")[0], days))).passed is True
    out = normalize(checks.PlanVolume().evaluate(_ctx(text, days)))
    assert out.passed is False and "37" in out.reason  # 29 km + the 8 km double: over the 33.6 km ceiling


def test_without_a_day_list_every_run_day_must_be_quoted_with_its_distance():
    text = "This week: an easy 6 km on Tuesday and a 10 km long run on Sunday."
    ok = [_day("Tue", "easy", 6, "an easy 6 km"), _day("Sun", "long", 10, "a 10 km long run")]
    assert normalize(checks.LongRunShare().evaluate(_ctx(text, ok))).passed is False  # 63 %
    invented = [_day("Tue", "easy", 16, "an easy 6 km"), _day("Sun", "long", 10, "a 10 km long run")]
    out = normalize(checks.PlanVolume().evaluate(_ctx(text, invented)))
    assert out.passed is False and "quoted 6 km, extracted 16 km" in out.reason


def test_three_run_days_may_hold_a_40_percent_long_run():
    text = (
        "- Mon: rest\n- Tue: 5 km easy\n- Wed: rest\n- Thu: 4 km easy\n- Fri: rest\n- Sat: rest\n- Sun: 6 km long run"
    )
    days = [_day(d, "rest", 0, "rest") for d in ("Mon", "Wed", "Fri", "Sat")] + [
        _day("Tue", "easy", 5, "5 km easy"),
        _day("Thu", "easy", 4, "4 km easy"),
        _day("Sun", "long", 6, "6 km long run"),
    ]
    assert normalize(checks.LongRunShare().evaluate(_ctx(text, days, BEG))).passed is True  # 40 %
    days[-1] = _day("Sun", "long", 9, "9 km long run")
    out = normalize(checks.LongRunShare().evaluate(_ctx(text.replace("6 km long", "9 km long"), days, BEG)))
    assert out.passed is False  # 50 %: too much even for three runs


def test_goal_race_pace_is_a_zone():
    comp = case_facts("competitive_young_male", "weekly_plan")  # marathon zone 4:10, goal 2:59:59 = 4:16/km
    text = "- Mon: rest\n- Tue: 16 km with 10 km at goal marathon pace 4:16/km\n- Sun: 20 km long run"
    days = [
        _day("Tue", "marathon", 16, "16 km with 10 km at goal marathon pace 4:16/km"),
        _day("Sun", "long", 20, "20 km long run"),
    ]
    days[0].update(pace_fast_sec_per_km=256, pace_slow_sec_per_km=256)
    assert normalize(checks.PacesInZones().evaluate(_ctx(text, days, comp))).passed is True
    days[0].update(pace_fast_sec_per_km=240, pace_slow_sec_per_km=240)
    assert normalize(checks.PacesInZones().evaluate(_ctx(text.replace("4:16", "4:00"), days, comp))).passed is False
    # half-marathon goal pace (1:55:00 = 5:27/km) for the recreational runner
    hm = [_day("Thu", "race_pace", 8, "8 km with 5 km at half-marathon pace 5:27/km")]
    hm[0].update(pace_fast_sec_per_km=327, pace_slow_sec_per_km=327)
    assert (
        normalize(
            checks.PacesInZones().evaluate(_ctx("- Thu: 8 km with 5 km at half-marathon pace 5:27/km", hm, REC))
        ).passed
        is True
    )


@pytest.mark.parametrize(
    "words, km",
    [
        ("12 km: 3 km easy, 3 x 3 km at marathon pace 4:10/km", 12),
        ("Marathon-pace: 3 km WU, 3×3 km @ 4:10/km, 1 km CD | 13 km | 4:10/km", 13),  # the table's distance cell
        ("2 km warm-up, 5 km tempo, 2 km cool-down", 9),  # no total: the sum of its parts
        ("18 km long run incl. last 4 km at MP", 18),
        ("2 km easy + 4 km tempo + 2 km easy (8 km total)", 8),
        ("2 km WU, 3 × 3 km @ 4:10/km (MP) w/ 1 km jog, 2 km CD (15 km)", 15),  # the parts' sum in brackets
    ],
)
def test_the_days_total_in_its_many_spellings(words, km):
    assert quantity(words).km == km


@pytest.mark.parametrize(
    "words, kind",
    [
        ("8 km easy, no tempo this week", "easy"),
        ("30 min bike or swim", "rest"),
        ("Rest or 20 min yoga", "rest"),
        ("6 km easy, skip the track session", "easy"),
        ("20 min on the track", "track"),
        ("45 min tempo", "tempo"),
    ],
)
def test_negated_words_and_other_sports_do_not_make_a_session(words, kind):
    from pace_ai.reading import kind_of

    assert kind_of(words) == kind


def test_a_later_horizon_is_not_an_added_run():
    assert not added_runs("Once your ACWR settles, add a fifth easy run.")
    assert added_runs("This week add a second easy run on Thursday.")


def test_strides_are_easy_and_repeats_on_the_track_are_not():
    from pace_ai.reading import kind_of

    assert kind_of("8 km easy + 6×100 m strides") == "easy"
    assert kind_of("6 km easy with 4 x 200 m strides") == "easy"
    assert kind_of("5 km with 6 x 400 m at 5:36/km") == "track"


@pytest.mark.parametrize(
    "words, kind",
    [
        ("10 km: 6 x 1 km at 4:10/km", "track"),  # repeats with no session word: still intervals
        ("8 km with 5 x 3 min hard", "track"),
        ("9 km incl. 4 x 1 mile @ 6:40/mi", "track"),
        ("12 km: 3 x 3 km at marathon pace 4:10/km", "pace"),  # the words name the session
        ("10 km with 3 x 2 km at threshold", "tempo"),
        ("8 km easy + 8 x 20 s", "easy"),  # short accelerations are part of an easy run
        ("8 km easy with 6 x 1 min strides", "easy"),
        ("16 km long run", "long"),
    ],
)
def test_repeats_are_a_hard_session_unless_the_words_say_which(words, kind):
    from pace_ai.reading import kind_of

    assert kind_of(words) == kind


def test_easy_cross_training_is_not_a_run():
    from pace_ai.reading import kind_of

    assert kind_of("Rest or 30 min easy cross-training (bike/swim)") == "rest"
    assert kind_of("30 min easy run, then 20 min bike") == "easy"


@pytest.mark.parametrize(
    "text",
    [
        "Your second run of the week, Thursday, is the threshold session.",
        "Run twice this week if you feel tired, three times if not.",
        "Add a strength session on Wednesday.",
        "You can also run with a group on Saturday.",
        "Saturday's shakeout run keeps your legs fresh.",
        "Double-check your shoes before the long run.",
    ],
)
def test_sound_prose_adds_no_run(text):
    assert not added_runs(text)


def test_a_total_line_the_extraction_leaves_out_is_still_compared():
    text = LIST_29 + "\n**Total: 22 km.**"
    out = normalize(checks.StatedTotalMatches().evaluate(_ctx(text, DAYS_29, stated_weekly_km=None)))
    assert out.passed is False and "writes a total of 22 km" in out.reason
    out = normalize(
        checks.StatedTotalMatches().evaluate(_ctx(LIST_29 + "\n**Total: 29 km.**", DAYS_29, stated_weekly_km=29))
    )
    assert out.passed is True


LIST_29 = "- Mon: rest\n- Tue: 6 km easy\n- Wed: rest\n- Thu: 7 km easy\n- Fri: rest\n- Sat: 6 km easy\n- Sun: 10 km long run\n"
DAYS_29 = [_day(d, "rest", 0, "rest") for d in ("Mon", "Wed", "Fri")] + [
    _day("Tue", "easy", 6, "6 km easy"),
    _day("Thu", "easy", 7, "7 km easy"),
    _day("Sat", "easy", 6, "6 km easy"),
    _day("Sun", "long", 10, "10 km long run"),
]


def test_a_double_in_a_days_own_line_is_counted_once():
    text = LIST_29.replace("- Thu: 7 km easy", "- Thu: 7 km easy, plus an extra 3 km run in the evening")
    days = [dict(d) for d in DAYS_29]
    days[4] = _day("Thu", "easy", 10, "7 km easy, plus an extra 3 km run in the evening")
    out = normalize(checks.PlanVolume().evaluate(_ctx(text, days)))
    assert out.passed is True and "32" in out.reason  # 32 km, not 35


def test_an_added_run_does_not_lengthen_the_long_run():
    from pace_ai.plan import summarize, with_added_runs

    days = with_added_runs(
        DAYS_29,
        [
            {"kind": "double", "week": "planned", "day": "Sun", "km": 5, "quote": "x"},
            {"kind": "extra_run", "week": "planned", "day": "Mon", "km": 4, "quote": "y"},
        ],
    )
    week = summarize(days)
    assert (week.total_km, week.long_run_km, week.rest_days) == (38, 10, 2)


def test_hyphenated_units():
    assert quantity("30-minute run/walk (run 4 min, walk 1 min)").minutes == 30
    assert quantity("a 10-km long run").km == 10
    assert quantity("6-8 km easy").km == 7


def test_race_words_that_are_not_a_race():
    from pace_ai.reading import kind_of

    assert kind_of("8 km easy with race-specific strides") == "easy"
    assert kind_of("5 km time trial") == "race" and quantity("5 km time trial").km == 5


def _week(text, zones=None):
    return {p.day: p for p in parse_days(text, zones) or []}


def test_a_week_given_in_minutes_is_read_without_zones_at_six_minutes_a_km():
    days = _week("Mon: rest\nTue: 42 min easy\nThu: 36 min easy\nSat: rest\nSun: 1 h 15 min long run")
    assert days["Tue"].km == 7.0 and days["Thu"].km == 6.0
    assert days["Sun"].minutes == 75 and days["Sun"].km == 12.5


def test_a_rest_day_that_names_another_days_distance_or_an_hour_of_something_else_is_still_rest():
    days = _week(
        "Mon: rest (Sunday's 16 km long run is enough)\nTue: 8 km easy\nWed: rest — 1 h 15 of mobility work\n"
        "Thu: 8 km easy\nSat: off (1 h 30 of gardening)\nSun: 16 km long run"
    )
    assert all(days[d].kind == "rest" and not days[d].runs for d in ("Mon", "Wed", "Sat"))


def test_a_day_named_at_the_end_of_a_line_is_a_day_of_the_list():
    days = _week("Mon: rest\nTue: 8 km easy\nThu: 10 km tempo\nRest day: Fri")
    assert sorted(days) == ["Fri", "Mon", "Thu", "Tue"] and days["Fri"].kind == "rest"


def test_a_summary_line_then_the_details_read_each_day_from_its_details():
    text = (
        "Tue: easy\nThu: tempo\nSun: long\n\nThe details:\nMon: rest\nTue: 8 km easy @ 6:20/km\n"
        "Thu: 10 km with 5 km tempo @ 5:10/km\nSun: 16 km long @ 6:30/km"
    )
    days = _week(text)
    assert (days["Tue"].km, days["Thu"].km, days["Sun"].km) == (8, 10, 16)


def test_several_days_on_one_line_each_keep_their_own_words():
    days = _week("Mon rest, Tue 8 km easy, Wed rest, Thu 10 km tempo, Sun 16 km long")
    assert (days["Tue"].km, days["Thu"].km, days["Sun"].km) == (8, 10, 16)
    assert days["Thu"].kind == "tempo" and days["Wed"].kind == "rest"


def test_the_quality_km_of_a_session_leave_out_its_easy_parts_and_count_all_of_a_repeats_only_session():
    days = _week(
        "Mon: rest\nTue: 9 km: 2 km easy, 5 km tempo, 2 km easy\nThu: 6 x 1 km intervals at 4:10/km\n"
        "Sat: 6 x 3 min tempo at 5:10/km\nSun: 14 km long"
    )
    assert days["Tue"].km == 9 and days["Tue"].quality_km == 5
    assert days["Thu"].km == 6 and days["Thu"].quality_km == 6
    assert days["Sat"].km == 3.0  # 18 minutes of repeats at 6:00/km (no zones)


def test_a_session_whose_total_follows_its_parts_is_that_total():
    assert quantity("2 km warm-up, 8 km tempo, 2 km cool-down: 12 km total").km == 12
