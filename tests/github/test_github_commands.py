"""Workflow commands: escaping, groups, masks, stop-commands, outputs, the step summary."""

from __future__ import annotations

import io
import re

import pytest

from evalkit.errors import UsageError
from evalkit.github import commands as wc


def test_escaping():
    assert wc.escape_data("100%\r\ndone") == "100%25%0D%0Adone"
    assert wc.escape_property("a:b,c%\n") == "a%3Ab%2Cc%25%0A"
    assert wc.escape_data("a:b,c") == "a:b,c"


def test_annotation_line():
    out = io.StringIO()
    line = wc.annotation(
        "error", "score 0.4 < 0.8\nsee report", file="suites/a,b.yml", line=3, title="gate: pass_rate", stream=out
    )
    assert line == "::error file=suites/a%2Cb.yml,line=3,title=gate%3A pass_rate::score 0.4 < 0.8%0Asee report"
    assert out.getvalue() == line + "\n"
    assert wc.annotation("notice", "hi", stream=io.StringIO()) == "::notice::hi"
    with pytest.raises(ValueError):
        wc.annotation("fatal", "x", stream=io.StringIO())


def test_group_closes_even_on_error():
    out = io.StringIO()
    with pytest.raises(RuntimeError), wc.group("suite pace_ai", stream=out):
        out.write("working\n")
        raise RuntimeError
    assert out.getvalue() == "::group::suite pace_ai\nworking\n::endgroup::\n"


def test_mask_each_line():
    out = io.StringIO()
    wc.mask("line-one\nline%two\n\n", stream=out)
    assert out.getvalue() == "::add-mask::line-one\n::add-mask::line%25two\n"


def test_untrusted_text_cannot_issue_commands():
    out = io.StringIO()
    wc.print_untrusted("::add-mask::x\n::error::forged\n::stop-commands::guess\n", stream=out)
    lines = out.getvalue().splitlines()
    token = re.fullmatch(r"::stop-commands::([0-9a-f]{32})", lines[0]).group(1)
    assert lines[-1] == f"::{token}::"
    assert token not in "".join(lines[1:-1])
    with wc.untrusted(io.StringIO()) as a, wc.untrusted(io.StringIO()) as b:
        assert a != b


def test_set_output_uses_a_heredoc_delimiter(tmp_path):
    path = tmp_path / "output"
    wc.set_output("verdict", "fail", str(path))
    wc.set_output("report", "line 1\nline 2", str(path))
    text = path.read_text()
    blocks = re.findall(r"(\w+)<<(ghadelimiter_[0-9a-f-]{36})\n(.*?)\n\2\n", text, re.DOTALL)
    assert [(name, value) for name, _, value in blocks] == [("verdict", "fail"), ("report", "line 1\nline 2")]


def test_set_output_rejects_a_value_holding_the_delimiter(tmp_path, monkeypatch):
    class Fixed:
        def __str__(self):
            return "1234"

    monkeypatch.setattr(wc.uuid, "uuid4", Fixed)
    with pytest.raises(ValueError, match="delimiter"):
        wc.set_output("x", "a\nghadelimiter_1234\nevil=1", str(tmp_path / "o"))
    assert not (tmp_path / "o").exists()
    with pytest.raises(ValueError):
        wc.set_output("bad name", "v", str(tmp_path / "o"))


def test_set_output_reads_github_output(tmp_path, monkeypatch):
    monkeypatch.setenv("GITHUB_OUTPUT", str(tmp_path / "out"))
    wc.set_output("a", "b")
    assert "a<<ghadelimiter_" in (tmp_path / "out").read_text()
    monkeypatch.delenv("GITHUB_OUTPUT")
    with pytest.raises(UsageError, match="GITHUB_OUTPUT"):
        wc.set_output("a", "b")


def test_summary_appends_and_stays_under_the_cap(tmp_path):
    path = tmp_path / "summary.md"
    assert wc.append_summary("# One", str(path)) is False
    assert wc.append_summary("# Two", str(path)) is False
    assert path.read_text() == "# One\n# Two\n"
    big = "## Cases\n```\n" + "ü output line\n" * 100_000
    assert wc.append_summary(big, str(path)) is True
    data = path.read_bytes()
    assert len(data) <= wc.SUMMARY_LIMIT
    text = data.decode("utf-8")
    assert text.startswith("# One\n# Two\n## Cases") and text.rstrip().endswith(wc.SUMMARY_NOTE)
    assert text.count("```") == 2
    # A nearly full file takes nothing more.
    path.write_bytes(b"y" * (wc.SUMMARY_LIMIT - 3))
    assert wc.append_summary("x" * 10, str(path)) is True
    assert path.read_bytes() == b"y" * (wc.SUMMARY_LIMIT - 3)
