"""Retired models stop a run before any call (exit 2, one line); `evalkit models` lists the SDK's."""

from __future__ import annotations

from datetime import date

import pytest
from click.testing import CliRunner

from evalkit.cli.commands import main
from evalkit.llm import model_lifecycle
from evalkit.testing.script import Script

SUITE = """
name: greet
model: {model}
judge_model: claude-haiku-4-5-20251001
target: {{prompt: "Greet {{{{ name }}}}"}}
cases:
  - {{id: ada, input: {{name: Ada}}, checks: [{{type: contains, value: Ada}}]}}
"""


def test_parse_the_sdk_dates():
    assert model_lifecycle.parse_end_of_life("November 30th, 2026") == date(2026, 11, 30)
    assert model_lifecycle.parse_end_of_life("July 21st, 2025") == date(2025, 7, 21)
    assert model_lifecycle.parse_end_of_life("2026-06-15") == date(2026, 6, 15)
    assert model_lifecycle.parse_end_of_life("soon") is None


@pytest.mark.parametrize("today, code", [(date(2026, 12, 1), 2), (date(2026, 11, 30), 2), (date(2026, 11, 23), 0)])
def test_retired_model_exits_2_before_any_request(
    write, tmp_path, monkeypatch, today, code, fake_anthropic, anthropic_env
):
    monkeypatch.setattr(model_lifecycle, "today", lambda: today)
    suite = write("s.yml", SUITE.format(model="claude-sonnet-4-5-20250929"))
    fake = fake_anthropic(Script().reply("Hello Ada"))
    env = anthropic_env(fake)
    result = CliRunner().invoke(main, ["run", str(suite), "-o", str(tmp_path / "r.json")], env=env)
    assert result.exit_code == code, result.output
    if code == 2:
        assert fake.request_count == 0
        lines = result.output.strip().splitlines()
        assert lines == [
            "evalkit: model claude-sonnet-4-5-20250929 reached end of life on 2026-11-30: choose "
            "a current one (`evalkit models` lists them) and pass it with --model or `model:`"
        ]
    else:  # seven days before: the run goes on and warns with the date
        assert fake.request_count == 1
        assert "claude-sonnet-4-5-20250929 is deprecated and reaches end-of-life on 2026-11-30" in result.output


def test_a_retired_model_on_the_command_line_is_refused_too(write, monkeypatch, fake_anthropic, anthropic_env):
    monkeypatch.setattr(model_lifecycle, "today", lambda: date(2026, 11, 23))
    suite = write("s.yml", SUITE.format(model="claude-sonnet-4-6"))
    fake = fake_anthropic(Script().reply("Hello Ada"))
    env = anthropic_env(fake)
    result = CliRunner().invoke(main, ["run", str(suite), "--judge-model", "claude-sonnet-4-20250514"], env=env)
    assert result.exit_code == 2 and "claude-sonnet-4-20250514 reached end of life on 2026-06-15" in result.output
    assert result.output.strip().endswith("pass it with --judge-model or `judge_model:`"), result.output
    assert fake.request_count == 0


def test_a_retired_judge_model_in_the_suite_names_the_judges_option(write, monkeypatch, fake_anthropic, anthropic_env):
    monkeypatch.setattr(model_lifecycle, "today", lambda: date(2026, 11, 23))
    text = SUITE.format(model="claude-sonnet-4-6").replace(
        "judge_model: claude-haiku-4-5-20251001", "judge_model: claude-sonnet-4-20250514"
    )
    suite = write("s.yml", text)
    fake = fake_anthropic(Script().reply("Hello Ada"))
    env = anthropic_env(fake)
    result = CliRunner().invoke(main, ["run", str(suite)], env=env)
    assert result.exit_code == 2 and fake.request_count == 0, result.output
    assert result.output.strip().splitlines() == [
        "evalkit: model claude-sonnet-4-20250514 reached end of life on 2026-06-15: choose a current one "
        "(`evalkit models` lists them) and pass it with --judge-model or `judge_model:`"
    ]


def test_a_retired_model_that_is_both_target_and_judge_names_model():
    with pytest.raises(model_lifecycle.RetiredModelError, match=r"with --model or `model:`$"):
        model_lifecycle.refuse_retired(["claude-x"], {"claude-x": "retired"}, judge_only=())
    with pytest.raises(model_lifecycle.RetiredModelError, match=r"with --judge-model or `judge_model:`$"):
        model_lifecycle.refuse_retired(["claude-x"], {"claude-x": "retired"}, judge_only={"claude-x"})


def test_models_lists_the_sdk_models_with_dates_and_prices(monkeypatch, tmp_path):
    monkeypatch.setattr(model_lifecycle, "today", lambda: date(2026, 11, 23))
    monkeypatch.setenv("EVALKIT_CACHE_DIR", str(tmp_path))  # no day's answer from the API there
    out = CliRunner().invoke(main, ["models"]).output
    rows = {line.split()[0]: line for line in out.splitlines()[1:]}
    assert "current" in rows["claude-sonnet-4-6"] and "$3 / $15" in rows["claude-sonnet-4-6"]
    assert "retires 2026-11-30 (in 7 days)" in rows["claude-sonnet-4-5-20250929"]
    assert "claude-sonnet-4-20250514" not in rows  # retired ones only with --all
    everything = CliRunner().invoke(main, ["models", "--all"]).output
    assert "claude-sonnet-4-20250514" in everything and "retired 2026-06-15" in everything


def test_models_shows_opus_4_5s_retirement_from_evalkits_table_without_a_key(monkeypatch, tmp_path):
    monkeypatch.setattr(model_lifecycle, "today", lambda: date(2026, 11, 25))
    monkeypatch.setenv("EVALKIT_CACHE_DIR", str(tmp_path))  # no day's answer from the API there
    out = CliRunner().invoke(main, ["models"]).output
    rows = {line.split()[0]: line for line in out.splitlines()[1:]}
    assert "retires 2027-01-22 (in 58 days)" in rows["claude-opus-4-5-20251101"]
    assert rows["claude-opus-4-5-20251101"].endswith("evalkit table 2026-11-25")
    assert rows["claude-sonnet-4-6"].endswith("SDK model list")


def test_with_a_key_the_api_decides_and_its_answer_is_kept_a_day(tmp_path, monkeypatch, fake_anthropic, anthropic_env):
    monkeypatch.setattr(model_lifecycle, "today", lambda: date(2026, 11, 25))
    fake = fake_anthropic(Script())
    # The API knows something evalkit's table does not: Sonnet 4.6 retired.
    fake.models = [{"id": "claude-sonnet-4-6", "lifecycle": "retired", "retires_at": "2026-11-01T00:00:00Z"}]
    env = anthropic_env(fake)
    out = CliRunner().invoke(main, ["models", "--all"], env=env).output
    rows = {line.split()[0]: line for line in out.splitlines()[1:]}
    assert "retired 2026-11-01" in rows["claude-sonnet-4-6"] and rows["claude-sonnet-4-6"].endswith("API 2026-11-25")
    # Models the API no longer lists keep evalkit's dates.
    assert rows["claude-opus-4-5-20251101"].endswith("evalkit table 2026-11-25")
    suite = tmp_path / "s.yml"
    suite.write_text(SUITE.format(model="claude-sonnet-4-6"), encoding="utf-8")
    result = CliRunner().invoke(main, ["run", str(suite), "-o", str(tmp_path / "r.json")], env=env)
    assert result.exit_code == 2 and "claude-sonnet-4-6 reached end of life on 2026-11-01" in result.output
    assert fake.request_count == 0 and fake.models_requests == 1  # the day's answer was reused


def test_a_stale_api_answer_is_asked_again_and_a_failed_ask_falls_back_to_the_table(tmp_path):
    cache = tmp_path / "c"
    model_lifecycle.write_api_cache(cache, {"claude-x": {"lifecycle": "retired", "retires_at": None}}, now=1_000_000.0)
    assert model_lifecycle.read_api_cache(cache, now=1_000_000.0 + 3600)["claude-x"].state == "retired"
    assert model_lifecycle.read_api_cache(cache, now=1_000_000.0 + 2 * 24 * 3600) is None

    def offline():
        raise ConnectionError("no route to host")

    table = model_lifecycle.LifecycleTable(cache, offline)
    assert table.end_of_life()["claude-sonnet-4-5-20250929"] == "2026-11-30"
    assert "no route to host" in table.note and "evalkit's table of 2026-11-25" in table.note
    with pytest.raises(model_lifecycle.RetiredModelError, match="claude-x is retired"):
        model_lifecycle.refuse_retired(["claude-x"], {"claude-x": "retired"})


def test_the_refresh_script_writes_what_the_api_says(tmp_path, monkeypatch):
    import importlib.util
    import json
    from pathlib import Path

    script = Path(__file__).resolve().parents[2] / "scripts" / "refresh_lifecycle.py"
    spec = importlib.util.spec_from_file_location("refresh_lifecycle", script)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    table = tmp_path / "model_lifecycle.json"
    table.write_text(
        json.dumps(
            {
                "as_of": "2026-01-01",
                "source": "x",
                "models": {
                    "claude-old": {"lifecycle": "retired", "retires_at": "2025-01-01"},
                    "claude-back": {"lifecycle": "deprecated", "retires_at": "2027-01-01"},
                },
            }
        ),
        encoding="utf-8",
    )
    caps = tmp_path / "capabilities.json"
    caps.write_text(
        json.dumps(
            {
                "as_of": "2026-01-01",
                "sources": ["a page"],
                "models": {
                    "claude-back": {"structured_outputs": True, "thinking": {"enabled": True}, "sampling": True}
                },
            }
        ),
        encoding="utf-8",
    )
    monkeypatch.setattr(module, "TABLE", table)
    monkeypatch.setattr(module, "CAPABILITIES", caps)
    monkeypatch.setattr(
        module,
        "fetch_lifecycles",
        lambda timeout: {
            "claude-back": {
                "lifecycle": "active",
                "retires_at": None,
                "structured_outputs": True,
                "thinking": {"adaptive": True, "disabled": True},
                "effort": ["low"],
            },
            "claude-going": {"lifecycle": "deprecated", "retires_at": "2027-05-01"},
        },
    )
    assert module.main() == 0
    written = json.loads(table.read_text(encoding="utf-8"))
    assert written["models"] == {
        "claude-old": {"lifecycle": "retired", "retires_at": "2025-01-01"},
        "claude-going": {"lifecycle": "deprecated", "retires_at": "2027-05-01"},
    }
    assert written["as_of"] == date.today().isoformat()
    # The capabilities: the API's fields rewritten, what it does not list (sampling) kept, sources dated.
    refreshed = json.loads(caps.read_text(encoding="utf-8"))
    assert refreshed["models"] == {
        "claude-back": {
            "structured_outputs": True,
            "sampling": True,
            "effort": ["low"],
            "thinking": {"adaptive": True, "disabled": True},
        }
    }
    assert refreshed["as_of"] == date.today().isoformat() and refreshed["sources"][0] == "a page"
    assert refreshed["sources"][-1].startswith("GET /v1/models, read")
