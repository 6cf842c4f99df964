"""Base against head: the categories, the noise rule (single runs and Fisher's test on repeats),
renames, old results files and the `evalkit compare` command, against the loopback fake."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from evalkit.cli.commands import main
from evalkit.compare import compare_reports, fisher_exact, load_results
from evalkit.limits import DEFAULT_CONCURRENCY
from evalkit.results.report import CaseResult, ItemResult, Report, RunResult, SuiteResult
from evalkit.testing.fake_anthropic import FakeAnthropicServer
from evalkit.testing.script import Script
from tests.conftest import verdicts
from tests.fakes import model_env

SUITE = """
name: qa
target: {prompt: "Answer {{ q }}"}
thresholds: {rubric: 1.0}
cases:
  - {id: a, input: {q: qa}, checks: [{type: contains, value: good}]}
  - {id: b, input: {q: qb}, checks: [{type: contains, value: good}]}
  - {id: c, input: {q: qc}, checks: [{type: contains, value: good}]}
  - {id: d, input: {q: qd}, rubric: [{id: polite, judge: "is polite"}]}
  - {id: e, input: {q: qe}, rubric: [{id: safe, judge: "flags risk", critical: true}]}
  - {id: f, input: {q: qf}, checks: [{type: contains, value: good}]}
  - {id: CASE_X, input: {q: qx}, checks: [{type: contains, value: good}]}
"""


def _script(replies: dict[str, str], judged: dict[str, tuple[str, str]]) -> Script:
    script = Script()
    for output, (item, verdict) in judged.items():
        script.tool_reply("record_verdicts", verdicts({item: verdict}), prompt=output)
    for q, text in replies.items():
        script.reply(text, prompt=f"Answer {q}")
    return script


BASE = _script(
    {"qa": "good A", "qb": "bad B", "qc": "bad C", "qd": "D base", "qe": "E base", "qf": "good F", "qx": "good X"},
    {"D base": ("polite", "pass"), "E base": ("safe", "pass")},
)
HEAD = _script(
    {"qa": "bad A", "qb": "bad B", "qc": "good C", "qd": "D head", "qe": "E head", "qf": "good F", "qx": "good X"},
    {"D head": ("polite", "fail"), "E head": ("safe", "fail")},
)


def invoke(*args, env=None):
    return CliRunner().invoke(main, list(map(str, args)), env=env, catch_exceptions=False)


def run_side(tmp_path, write, name, script, suite_text):
    suite = write(f"{name}/suite.yml", suite_text)
    out = tmp_path / f"{name}.json"
    with FakeAnthropicServer(script) as fake:
        env = model_env(fake.url)
        invoke("run", suite, "-o", out, "--no-cache", env=env)
    return out


@pytest.fixture
def sides(tmp_path, write):
    base = run_side(tmp_path, write, "base", BASE, SUITE.replace("CASE_X", "old_name"))
    head = run_side(tmp_path, write, "head", HEAD, SUITE.replace("CASE_X", "new_name"))
    return base, head


def test_two_runs_against_the_fake_give_exactly_the_expected_categories(sides):
    cmp = compare_reports(load_results(sides[0]), load_results(sides[1]))
    changes = {c.id: c.change for c in cmp.cases()}
    assert changes == {
        "a": "regressed",
        "b": "still failing",
        "c": "fixed",
        "d": "too few runs to tell",
        "e": "regressed",
        "f": "still passing",
        "old_name": "removed",
        "new_name": "new",
    }
    flip_a = next(c for c in cmp.cases() if c.id == "a").flips[0]
    assert flip_a.decided_by == "code" and flip_a.significant and flip_a.worse
    assert "good" in flip_a.head_reason or flip_a.head_reason  # both reasons are kept side by side
    flip_d = next(c for c in cmp.cases() if c.id == "d").flips[0]
    assert not flip_d.significant and flip_d.too_few_runs and flip_d.repeats_needed == 4
    assert flip_d.why.startswith("too few runs to tell") and "within noise" not in flip_d.why
    assert flip_d.base_reason == "because polite" and flip_d.head_reason == "because polite"
    assert next(c for c in cmp.cases() if c.id == "e").flips[0].critical
    assert "renamed" in next(c for c in cmp.cases() if c.id == "new_name").note
    # a now fails, b failed already, d and e fail now: 3 of the 4 passed on base
    assert cmp.sentence().startswith(
        "4 cases now fail (3 of them passed on the base branch): 2 cases got worse, "
        "1 too few runs to tell, 1 got better, 1 was already failing on the base branch"
    )
    assert cmp.base.pass_rate == pytest.approx(5 / 7) and cmp.head.pass_rate == pytest.approx(3 / 7)
    assert cmp.head.calls > 0 and cmp.base.latency_median is not None
    assert "suite.yml" in " ".join(cmp.changed_files)  # the provenance hashes tell the suites apart


def test_compare_command_formats_and_exit_codes(sides, tmp_path):
    base, head = sides
    table = invoke("compare", base, head)
    assert table.exit_code == 1 and "regressed" in table.output and "too few runs to tell" in table.output
    assert "polite 1/1→0/1 (too few runs: 4 a side needed)" in table.output
    md = invoke("compare", base, head, "--format", "markdown")
    assert md.exit_code == 1 and "2 cases got worse" in md.output and "| Suite | Pass rate" in md.output
    assert md.output.startswith("## ❌ evalkit: 4 cases now fail")
    data = json.loads(invoke("compare", base, head, "--format", "json").output)
    assert data["alpha"] == 0.05 and len(data["suites"][0]["cases"]) == 8
    same = invoke("compare", base, base)
    # the same failing cases on both sides: nothing got worse, yet not a clean bill either
    assert same.exit_code == 0 and same.output.startswith(
        "2 cases now fail (none of them passed on the base branch): 0 cases got worse, 0 got better"
    )
    # JSONL of finished cases compares as well as the JSON report
    assert invoke("compare", tmp_path / "base.jsonl", head).exit_code == 1
    template = tmp_path / "mine.md.j2"
    template.write_text("worse={{ cmp.regressed }} better={{ cmp.fixed }}\n")
    assert invoke("compare", base, head, "--format", "markdown", "--template", template).output == "worse=2 better=1\n"


@pytest.mark.parametrize("content", ["not json", '{"x": 1}', "[1, 2]"])
def test_bad_input_exits_2_with_one_line(tmp_path, sides, content):
    bad = tmp_path / "bad.json"
    bad.write_text(content)
    result = CliRunner().invoke(main, ["compare", str(bad), str(sides[1])])
    assert result.exit_code == 2 and "is not an evalkit results file" in result.output
    assert "Traceback" not in result.output
    missing = CliRunner().invoke(main, ["compare", str(tmp_path / "nope.json"), str(sides[1])])
    assert missing.exit_code == 2 and "cannot read" in missing.output


def test_an_older_report_without_provenance_still_loads_and_says_so(sides, tmp_path):
    data = json.loads(sides[0].read_text())
    assert data["provenance"]["git_commit"] is None or len(data["provenance"]["git_commit"]) == 40
    assert data["provenance"]["options"]["concurrency"] == DEFAULT_CONCURRENCY and data["provenance"]["models_called"]
    del data["provenance"]
    old = tmp_path / "old.json"
    old.write_text(json.dumps(data))
    assert Report.load(old).provenance is None
    cmp = compare_reports(load_results(old), load_results(sides[1]))
    assert any("no provenance" in n for n in cmp.notes)


def _case(case_id, passes: list[bool], verdict, *, decided_by="judge", critical=False):
    runs = [
        RunResult(
            repeat=r,
            items=[
                ItemResult(
                    id="tone",
                    text="warm",
                    status="pass" if ok else "fail",
                    reason=f"run {r} {'ok' if ok else 'cold'}",
                    decided_by=decided_by,
                    critical=critical,
                )
            ],
        )
        for r, ok in enumerate(passes)
    ]
    return CaseResult(id=case_id, verdict=verdict, runs=runs)


def _report(*cases):
    return Report(verdict="pass", suites=[SuiteResult(name="s", path="s.yml", verdict="pass", cases=list(cases))])


def test_fisher_exact_on_five_repeats():
    assert fisher_exact(5, 5, 1, 5) == pytest.approx(10 / 210)
    assert fisher_exact(5, 5, 4, 5) == pytest.approx(1.0)
    assert fisher_exact(1, 1, 0, 1) == pytest.approx(1.0)
    assert fisher_exact(3, 10, 3, 10) == pytest.approx(1.0)


def test_repeats_five_of_five_to_one_is_significant_four_is_not():
    base = _report(_case("big", [True] * 5, "pass"), _case("small", [True] * 5, "pass"))
    head = _report(_case("big", [True] + [False] * 4, "fail"), _case("small", [True] * 4 + [False], "fail"))
    cmp = compare_reports(base, head)
    big, small = cmp.cases()
    assert big.change == "regressed" and big.flips[0].significant
    assert big.flips[0].p_value == pytest.approx(0.0476, abs=1e-4) and "p = 0.0476" in big.flips[0].why
    assert small.change == "within noise" and not small.flips[0].significant
    assert small.flips[0].p_value == pytest.approx(1.0) and not small.flips[0].too_few_runs
    # 5 runs a side could show a change (at best p = 0.008): this one is noise, and 100 % → 80 % needs 23 a side
    assert "within noise: p = 1 ≥ 0.05; telling 100% → 80% from noise takes 23 runs a side" in small.flips[0].why
    # the level is configurable: at 0.01, 5/5 → 1/5 is within noise too
    assert compare_reports(base, head, alpha=0.01).cases()[0].change == "within noise"


def test_items_that_get_significantly_worse_regress_a_case_that_still_passes():
    base = _report(_case("c", [True] * 10, "pass"))
    head = _report(_case("c", [True] * 2 + [False] * 8, "pass"))
    assert compare_reports(base, head).cases()[0].change == "regressed"


def test_single_run_flips_code_and_critical_count_judge_is_too_few_runs_to_tell():
    for kwargs, expected in (
        ({}, "too few runs to tell"),
        ({"decided_by": "code"}, "regressed"),
        ({"critical": True}, "regressed"),
    ):
        cmp = compare_reports(
            _report(_case("c", [True], "pass", **kwargs)), _report(_case("c", [False], "fail", **kwargs))
        )
        assert cmp.cases()[0].change == expected, kwargs


def test_failing_on_both_sides_is_still_failing_not_regressed():
    cmp = compare_reports(
        _report(_case("c", [False], "fail", decided_by="code")), _report(_case("c", [False], "fail", decided_by="code"))
    )
    assert cmp.cases()[0].change == "still failing" and cmp.regressed == 0


@pytest.mark.parametrize("kwargs", [{"critical": True}, {"decided_by": "code"}])
def test_a_collapse_over_three_repeats_is_a_regression_whatever_fishers_test_says(kwargs):
    cmp = compare_reports(
        _report(_case("c", [True] * 3, "pass", **kwargs)), _report(_case("c", [False] * 3, "fail", **kwargs))
    )
    case = cmp.cases()[0]
    assert fisher_exact(3, 3, 0, 3) == pytest.approx(0.1)  # the test alone could never see it
    assert case.change == "regressed" and cmp.regressed == 1
    assert case.flips[0].significant and "passed on every base run and fails on every head run" in case.flips[0].why
    assert cmp.sentence().startswith("1 case now fails (it passed on the base branch): 1 case got worse")
    # the reverse collapse is a fix
    back = compare_reports(
        _report(_case("c", [False] * 3, "fail", **kwargs)), _report(_case("c", [True] * 3, "pass", **kwargs))
    )
    assert back.cases()[0].change == "fixed"


def test_a_judged_collapse_over_three_repeats_is_too_few_runs_to_tell_not_noise():
    cmp = compare_reports(_report(_case("c", [True] * 3, "pass")), _report(_case("c", [False] * 3, "fail")))
    case, flip = cmp.cases()[0], cmp.cases()[0].flips[0]
    assert case.change == "too few runs to tell" and cmp.regressed == 0
    assert flip.too_few_runs and flip.repeats_needed == 4 and flip.p_value == pytest.approx(0.1)
    assert "with 3 runs a side Fisher's exact test cannot reach p < 0.05" in flip.why
    assert "telling 100% → 0% from noise takes 4 runs a side" in flip.why
    # a partial collapse of a critical item is not waved through either: 3/3 → 1/3 cannot be told yet
    partial = compare_reports(
        _report(_case("c", [True] * 3, "pass", critical=True)),
        _report(_case("c", [True, False, False], "fail", critical=True)),
    )
    assert partial.cases()[0].change == "too few runs to tell"


def test_repeats_needed_is_the_smallest_n_at_which_fisher_reaches_alpha():
    from evalkit.compare.fisher import repeats_needed, smallest_p

    assert smallest_p(1, 1) == 1.0 and smallest_p(3, 3) == pytest.approx(0.1) and smallest_p(4, 4) < 0.05
    for rates, expected in (((1, 1, 0, 1), 4), ((3, 3, 2, 3), 14), ((5, 5, 4, 5), 23)):
        n = repeats_needed(*rates, 0.05)
        assert n == expected
        bp, bn, hp, hn = rates
        at = lambda k: ((2 * bp * k + bn) // (2 * bn), (2 * hp * k + hn) // (2 * hn))  # noqa: E731
        assert fisher_exact(at(n)[0], n, at(n)[1], n) < 0.05
        assert all(fisher_exact(at(k)[0], k, at(k)[1], k) >= 0.05 for k in range(1, n))
    assert repeats_needed(50, 100, 49, 100, 0.05) is None  # 50 % → 49 %: not within 100 runs a side
    assert repeats_needed(1, 2, 2, 4, 0.05) is None  # no change at all


def test_the_markdown_row_says_too_few_runs_to_tell_with_the_repeats_needed():
    from evalkit.render.compare import render_comparison

    cmp = compare_reports(_report(_case("c", [True], "pass")), _report(_case("c", [False], "fail")))
    md = render_comparison(cmp)
    first = md.lstrip("\n").splitlines()[0]
    # no gate known and nothing regressed, yet a case now fails: a warning, never ✅
    assert first == (
        "## ⚠️ evalkit: 1 case now fails (it passed on the base branch): 0 cases got worse, "
        "1 too few runs to tell, 0 got better; pass rate 100% → 0%, a bigger drop than chance explains "
        "(by chance alone base's rate could read 21%–100%)"
    )
    row = next(line for line in md.splitlines() if line.startswith("| `s/c`"))
    assert "❔ too few runs to tell" in row and "tone 1/1→0/1 (too few runs: 4 a side needed)" in row
    assert "within noise" not in md and "~noise" not in md


def test_the_headline_is_green_only_when_nothing_fails_and_no_gate_fails():
    passing = _report(_case("c", [True], "pass", decided_by="code"))
    failing = _report(_case("c", [False], "fail", decided_by="code"))
    assert compare_reports(passing, passing).icon() == "✅"
    assert compare_reports(passing, passing).icon(gate_failed=True) == "❌"  # e.g. the thresholds under `both`
    still = compare_reports(failing, failing)
    assert still.regressed == 0 and still.icon() == "⚠️" and still.icon(gate_failed=False) == "⚠️"
    assert compare_reports(passing, failing).icon() == "❌"
    # 19 of 20 cases → 15 of 20 leaves base's 95% band (76%–99%): not green, though no case regressed
    base = _report(*[_case(f"c{i}", [True], "pass") for i in range(19)], _case("c19", [False], "fail"))
    head = _report(*[_case(f"c{i}", [i < 15], "pass" if i < 15 else "fail") for i in range(20)])
    drop = compare_reports(base, head)
    assert drop.regressed == 0 and "pass rate 95% → 75%, a bigger drop than chance explains" in (
        drop.pass_rate_drop() or ""
    )
    assert drop.icon() == "⚠️"
