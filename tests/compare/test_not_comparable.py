"""When what produces or scores a case changed between base and head (a model, the suite's thresholds,
the case's input or rubric), the comparison says "not comparable: <what changed>", never a verdict."""

from __future__ import annotations

from evalkit.compare import compare_reports
from evalkit.render.compare import render_comparison
from evalkit.results.report import CaseResult, ItemResult, Report, RunResult, SuiteResult, Thresholds


def _case(case_id: str, ok: bool, *, decided_by: str = "judge", text: str = "warm", q: str = "hi") -> CaseResult:
    item = ItemResult(
        id="tone", text=text, status="pass" if ok else "fail", reason="r", decided_by=decided_by, critical=True
    )
    return CaseResult(
        id=case_id, verdict="pass" if ok else "fail", input={"q": q}, runs=[RunResult(repeat=0, items=[item])]
    )


def _report(
    *cases: CaseResult, judge: str = "claude-haiku-5-5", target: str = "claude-sonnet-5-5", rubric: float = 0.8
) -> Report:
    suite = SuiteResult(
        name="s",
        path="s.yml",
        verdict="pass",
        cases=list(cases),
        thresholds=Thresholds(rubric=rubric),
        models={"target": target, "judge": judge},
    )
    return Report(verdict="pass", suites=[suite])


def test_a_changed_judge_model_makes_judged_cases_not_comparable_and_leaves_code_checks_alone():
    base = _report(_case("judged", True), _case("coded", True, decided_by="code"))
    head = _report(_case("judged", False), _case("coded", False, decided_by="code"), judge="claude-opus-5-5")
    cmp = compare_reports(base, head)
    judged, coded = cmp.cases()
    assert judged.change == "not comparable" and not judged.flips
    assert judged.note == "not comparable: judge model claude-haiku-5-5 → claude-opus-5-5"
    assert coded.change == "regressed"  # code decides the same way whatever the judge
    assert cmp.regressed == 1
    assert "1 not comparable (judge model claude-haiku-5-5 → claude-opus-5-5)" in cmp.sentence()
    md = render_comparison(cmp)
    assert (
        "| `s/judged` | 🚫 not comparable | ✅ | ❌ | not comparable: judge model claude-haiku-5-5 → "
        "claude-opus-5-5 |" in md
    )


def test_a_changed_target_model_thresholds_input_or_rubric_say_what_changed():
    base = _report(_case("a", True), _case("b", True), _case("c", True, decided_by="code"))
    notes = {
        "target": _report(
            _case("a", False), _case("b", True), _case("c", True, decided_by="code"), target="claude-opus-5-5"
        ),
        "thresholds": _report(_case("a", False), _case("b", True), _case("c", True, decided_by="code"), rubric=0.9),
        "case": _report(
            _case("a", False, q="bye"), _case("b", False, text="cold"), _case("c", True, decided_by="code")
        ),
    }
    cmp = compare_reports(base, notes["target"])
    assert {c.id: c.note for c in cmp.cases()} == {
        k: "not comparable: target model claude-sonnet-5-5 → claude-opus-5-5" for k in "abc"
    }
    cmp = compare_reports(base, notes["thresholds"])
    assert all(c.note == "not comparable: the suite's thresholds changed" for c in cmp.cases())
    cmp = compare_reports(base, notes["case"])
    a, b, c = cmp.cases()
    assert a.note == "not comparable: the case's input changed" and b.note == "not comparable: rubric item tone changed"
    assert c.change == "still passing" and cmp.regressed == 0


def test_the_same_setup_is_comparable():
    cmp = compare_reports(_report(_case("a", True)), _report(_case("a", False)))
    assert cmp.cases()[0].change == "regressed" and not cmp.count("not comparable")
