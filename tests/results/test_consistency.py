"""Agreement across repeated runs, and the consensus value used by checks across cases."""

from __future__ import annotations

from evalkit.results.agreement import agreement, consensus, values_agree
from evalkit.suite.spec import FieldSpec

NUMBER = FieldSpec(type="number")


def test_numbers_agree_within_the_tolerance_of_their_median():
    assert values_agree([50, 52, 54], NUMBER, 0.10)
    assert not values_agree([50, 52, 60], NUMBER, 0.10)
    assert values_agree([50, 60], FieldSpec(type="number", tolerance=0.5), 0.0)  # the field's own wins
    assert values_agree([0, 0], NUMBER, 0.10) and not values_agree([0, 1e-9], NUMBER, 0.10)


def test_strings_agree_ignoring_case_and_spacing_enums_exactly():
    assert values_agree(["Rest  day", "rest day"], FieldSpec(type="string"), 0)
    assert not values_agree(["low", "high"], FieldSpec(type="enum", values=["low", "high"]), 0)


def test_a_value_missing_from_some_runs_disagrees():
    assert not values_agree([50, None, 50], NUMBER, 0.10)


def test_agreement_is_the_share_of_agreeing_fields_with_detail():
    fields = {"km": NUMBER, "rest": FieldSpec(type="boolean")}
    share, detail = agreement([{"km": 50, "rest": True}, {"km": 51, "rest": False}], fields, 0.10)
    assert share == 0.5
    assert [(d.field, d.agreed, d.values) for d in detail] == [("km", True, [50, 51]), ("rest", False, [True, False])]
    assert agreement([{"km": 1}], fields, 0.1) == (None, [])


def test_consensus_is_the_median_of_numbers_else_the_most_common_value():
    assert consensus([3, 1, 2, None]) == 2
    assert consensus(["a", "b", "b"]) == "b"
    assert consensus([None, None]) is None


def test_a_field_no_run_states_is_not_stated_and_lowers_agreement_unless_ignored():
    from evalkit.results.agreement import agreement
    from evalkit.suite.spec import FieldSpec

    fields = {"km": FieldSpec(type="number"), "risk": FieldSpec(type="boolean")}
    runs = [{"km": 40, "risk": None}, {"km": 41, "risk": None}, {"km": 40, "risk": None}]
    share, detail = agreement(runs, fields, 0.1)
    assert share == 0.5
    assert [(d.field, d.status, d.counted) for d in detail] == [("km", "agreed", True), ("risk", "not stated", True)]
    share, detail = agreement(runs, fields, 0.1, missing="ignore")
    assert share == 1.0 and detail[1].counted is False


def test_numbers_agree_when_every_run_is_within_tolerance_of_the_median():
    from evalkit.results.agreement import values_agree
    from evalkit.suite.spec import FieldSpec

    spec = FieldSpec(type="number")
    # spread 18 > 10 % of the median 100, but every run lies within ±10 of it
    assert values_agree([91, 100, 109], spec, 0.10)
    assert not values_agree([89, 100, 100], spec, 0.10)


def test_list_fields_agree_entry_by_entry():
    days = FieldSpec(type="list", items={"km": NUMBER, "session": FieldSpec(type="enum", values=["rest", "easy"])})
    a = [{"km": 10, "session": "easy"}, {"km": 0, "session": "rest"}]
    b = [{"km": 10.5, "session": "easy"}, {"km": 0, "session": "rest"}]
    assert values_agree([a, b], days, 0.10)
    assert not values_agree([a, [{"km": 10, "session": "easy"}, {"km": 0, "session": "easy"}]], days, 0.10)
    assert not values_agree([a, a[:1]], days, 0.10)
    c = [{"km": 10, "session": None}, {"km": 0, "session": "rest"}]
    assert values_agree([c, c], days, 0.10)  # an entry's sub-field stated in no run agrees
