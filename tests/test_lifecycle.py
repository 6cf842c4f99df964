"""Retired models stop a run before any call (exit 2, one line); `evalkit models` lists the SDK's."""

from __future__ import annotations

from datetime import date

import pytest
from click.testing import CliRunner

from evalkit import lifecycle
from evalkit.cli import main
from evalkit.testing.fake_anthropic import FakeAnthropicServer
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
    assert lifecycle.parse_end_of_life("November 30th, 2026") == date(2026, 11, 30)
    assert lifecycle.parse_end_of_life("July 21st, 2025") == date(2025, 7, 21)
    assert lifecycle.parse_end_of_life("2026-06-15") == date(2026, 6, 15)
    assert lifecycle.parse_end_of_life("soon") is None


@pytest.mark.parametrize("today, code", [(date(2026, 12, 1), 2), (date(2026, 11, 30), 2), (date(2026, 11, 23), 0)])
def test_retired_model_exits_2_before_any_request(write, tmp_path, monkeypatch, today, code):
    monkeypatch.setattr(lifecycle, "today", lambda: today)
    suite = write("s.yml", SUITE.format(model="claude-sonnet-4-5-20250929"))
    with FakeAnthropicServer(Script().reply("Hello Ada")) as fake:
        env = {"ANTHROPIC_API_KEY": "k", "ANTHROPIC_BASE_URL": fake.url, "EVALKIT_CACHE_DIR": str(tmp_path / "c")}
        result = CliRunner().invoke(main, ["run", str(suite), "-o", str(tmp_path / "r.json")], env=env)
        assert result.exit_code == code, result.output
        if code == 2:
            assert fake.request_count == 0
            lines = result.output.strip().splitlines()
            assert lines == ["evalkit: model claude-sonnet-4-5-20250929 reached end of life on 2026-11-30: choose "
                             "a current one (`evalkit models` lists them) and pass it with --model or `model:`"]
        else:  # seven days before: the run goes on and warns with the date
            assert fake.request_count == 1
            assert "claude-sonnet-4-5-20250929 is deprecated and reaches end-of-life on November 30th, 2026" \
                in result.output


def test_a_retired_model_on_the_command_line_is_refused_too(write, tmp_path, monkeypatch):
    monkeypatch.setattr(lifecycle, "today", lambda: date(2026, 11, 23))
    suite = write("s.yml", SUITE.format(model="claude-sonnet-4-6"))
    with FakeAnthropicServer(Script().reply("Hello Ada")) as fake:
        env = {"ANTHROPIC_API_KEY": "k", "ANTHROPIC_BASE_URL": fake.url, "EVALKIT_CACHE_DIR": str(tmp_path / "c")}
        result = CliRunner().invoke(main, ["run", str(suite), "--judge-model", "claude-sonnet-4-20250514"], env=env)
        assert result.exit_code == 2 and "claude-sonnet-4-20250514 reached end of life on 2026-06-15" in result.output
        assert fake.request_count == 0


def test_models_lists_the_sdk_models_with_dates_and_prices(monkeypatch):
    monkeypatch.setattr(lifecycle, "today", lambda: date(2026, 11, 23))
    out = CliRunner().invoke(main, ["models"]).output
    rows = {line.split()[0]: line for line in out.splitlines()[1:]}
    assert "current" in rows["claude-sonnet-4-6"] and "$3 / $15" in rows["claude-sonnet-4-6"]
    assert "retires 2026-11-30 (in 7 days)" in rows["claude-sonnet-4-5-20250929"]
    assert "claude-sonnet-4-20250514" not in rows  # retired ones only with --all
    everything = CliRunner().invoke(main, ["models", "--all"]).output
    assert "claude-sonnet-4-20250514" in everything and "retired 2026-06-15" in everything
