"""A saved calibration older than the suite's judge prompt or gold set is marked STALE wherever it is
shown (selftest, the log line, the markdown report and so the PR comment), by content hash, not by
file times."""

from __future__ import annotations

import os

from click.testing import CliRunner

from evalkit.cli.commands import main
from evalkit.render.comment import render_comment
from evalkit.render.log import suite_line
from evalkit.render.markdown import render_markdown
from evalkit.results.report import Report, SuiteResult
from evalkit.suite import load_suite
from evalkit.suite.calibration import Calibration, calibration_note, fingerprints, load_calibration, save_calibration

SUITE = """
name: cal
target: m:f
fields:
  km: {type: number, description: the week's km}
cases:
  - id: c
    rubric:
      - {id: kind, judge: The reply is kind}
gold:
  - case: c
    output: reply one
    fields: {km: 10}
    labels: {kind: pass}
  - case: c
    output: reply two
    fields: {km: 20}
    labels: {kind: fail}
"""


def _calibrated(write, text=SUITE):
    """The suite, with figures saved as `evalkit calibrate` saves them (hashes of the suite as it is)."""
    path = write("cal.suite.yml", text)
    suite = load_suite(path)
    prompt, gold = fingerprints(suite)
    save_calibration(
        suite,
        Calibration(
            suite="cal",
            judge_model="j",
            repeats=1,
            measured_at="2026-11-25T00:00:00",
            gold_outputs=2,
            agreement=1.0,
            kappa=1.0,
            labels=2,
            verdicts=2,
            calls=4,
            judge_prompt_sha256=prompt,
            gold_sha256=gold,
        ),
    )
    return path


def _note(path):
    return calibration_note(load_suite(path))


def test_a_calibration_of_the_suite_as_it_is_is_not_stale_whatever_the_file_times(write):
    path = _calibrated(write)
    assert not _note(path).startswith("STALE")
    later = os.stat(path).st_mtime + 3600  # the suite file "newer" than the figures, as after a checkout
    os.utime(path, (later, later))
    assert not _note(path).startswith("STALE")


def test_a_changed_judge_criterion_makes_it_stale(write):
    path = _calibrated(write)
    path.write_text(path.read_text().replace("The reply is kind", "The reply is kind and brief"))
    assert _note(path).startswith(
        "STALE (the judge prompt changed since: rerun `evalkit calibrate`) — judge agreement with 2 gold labels: 100%"
    )


def test_a_changed_field_description_is_a_changed_prompt_too(write):
    path = _calibrated(write)
    path.write_text(path.read_text().replace("the week's km", "the week's km in total"))
    assert _note(path).startswith("STALE (the judge prompt changed since:")


def test_a_changed_or_added_gold_entry_makes_it_stale(write):
    path = _calibrated(write)
    path.write_text(path.read_text().replace("labels: {kind: fail}", "labels: {kind: pass}"))
    assert _note(path).startswith("STALE (the gold set changed since: rerun `evalkit calibrate`)")
    path = _calibrated(write)
    path.write_text(path.read_text() + "  - {case: c, output: reply three, fields: {km: 5}, labels: {kind: pass}}\n")
    assert _note(path).startswith("STALE (the gold set changed since:")
    path.write_text(path.read_text().replace("The reply is kind", "The reply is warm"))
    assert _note(path).startswith("STALE (the judge prompt changed since; the gold set changed since:")


def test_figures_saved_without_hashes_cannot_vouch_for_the_suite(write):
    path = _calibrated(write)
    suite = load_suite(path)
    saved = load_calibration(suite)
    save_calibration(suite, saved.model_copy(update={"judge_prompt_sha256": None, "gold_sha256": None}))
    assert _note(path).startswith("STALE (it records no hash of the judge prompt and gold set it measured:")


def test_stale_is_shown_in_selftest_the_log_line_the_report_and_the_comment(write):
    path = _calibrated(write)
    path.write_text(path.read_text().replace("output: reply two", "output: reply 2"))
    note = _note(path)
    assert note.startswith("STALE (the gold set changed since")
    out = CliRunner().invoke(main, ["selftest", str(path)]).output
    assert "; STALE (the gold set changed since: rerun `evalkit calibrate`) — judge agreement" in out
    result = SuiteResult(name="cal", path=str(path), verdict="pass", calibration=note)
    assert "STALE (the gold set changed since" in suite_line(result)
    report = Report(verdict="pass", suites=[result])
    assert "🎯 STALE (the gold set changed since" in render_markdown(report)
    assert "STALE (the gold set changed since" in render_comment(report)


def test_evalkit_calibrate_saves_the_hashes_so_its_figures_are_current_until_the_suite_changes(tmp_path, write):
    from tests.engine.test_calibrate import run_calibrate, wrong_on_two

    _, saved = run_calibrate(tmp_path, write, wrong_on_two, "--repeats", "1")
    path = tmp_path / "cal.suite.yml"
    assert (saved["judge_prompt_sha256"], saved["gold_sha256"]) == fingerprints(load_suite(path))
    assert not _note(path).startswith("STALE")
    path.write_text(path.read_text().replace("The reply is kind", "The reply is polite"))
    assert _note(path).startswith("STALE (the judge prompt changed since:")
