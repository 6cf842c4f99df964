"""Model output made safe for a PR comment: hostile input neutralised, ordinary text kept."""

from __future__ import annotations

import re

import pytest

from evalkit.render.sanitize import fence_for, neutralize_markdown, strip_invisible, truncate_markdown

HOSTILE = (
    "Great work @alice, cc @octo-org/reviewers!\n"
    "<script>alert(document.cookie)</script>\n"
    "<img src=http://evil/x.png>\n"
    "![x](http://evil/beacon.png)\n"
    "[click](http://evil.example)\n"
    "<!-- evalkit:comment -->\n"
    "This fixes #1.\n"
    "pay\u200bpal \u202eevil\u202c \u2066x\u2069 \ufeffbom\u00ad\n"
    "See [the docs](https://github.com/octo-org/hello/blob/main/README.md) and a < b & c.\n"
    "```python\n"
    "print('unclosed')\n"
)


@pytest.fixture(scope="module")
def safe() -> str:
    return neutralize_markdown(HOSTILE)


def test_mentions_do_not_ping(safe):
    assert not re.search(r"(?<![A-Za-z0-9])@[A-Za-z0-9]", safe)
    assert "＠alice" in safe and "＠octo-org/reviewers" in safe


def test_no_raw_html_or_comment_survives(safe):
    assert "<script" not in safe and "<img" not in safe and "<!--" not in safe
    assert "&lt;script>" in safe
    assert "evalkit:comment" in safe  # visible, so nobody is fooled and nothing hides


def test_images_and_outside_links_become_text(safe):
    assert "](http://evil" not in safe
    assert "[click]" not in safe and "click" in safe
    assert "`http://evil/x.png`" in safe  # a bare URL cannot autolink inside code


def test_closing_keyword_is_broken(safe):
    assert "fixes # 1" in safe
    assert not re.search(r"(?i)\b(fix|fixes|fixed|close[sd]?|resolve[sd]?)\s*:?\s*#\d", safe)


def test_invisible_characters_are_stripped(safe):
    assert "paypal evil x bom" in safe
    assert not any(ch in safe for ch in "\u200b\u202e\u202c\u2066\u2069\ufeff\u00ad")


def test_ordinary_text_and_github_links_survive(safe):
    assert "Great work" in safe
    assert "[the docs](https://github.com/octo-org/hello/blob/main/README.md)" in safe
    assert "a &lt; b &amp; c." in safe


def test_unclosed_fence_is_closed(safe):
    assert safe.rstrip().endswith("```")
    assert safe.count("```") == 2
    assert "print('unclosed')" in safe


@pytest.mark.parametrize(
    "keyword",
    [
        "close",
        "closes",
        "closed",
        "fix",
        "fixes",
        "fixed",
        "resolve",
        "resolves",
        "resolved",
        "FIXES",
        "Closes",
    ],
)
def test_every_closing_keyword_form(keyword):
    text = f"{keyword} #12, {keyword}: #13, {keyword}:#14, {keyword} owner/repo#15, {keyword} octo-org/hello.js#16"
    out = neutralize_markdown(text + f", {keyword} GH-17")
    assert not re.search(r"#\d|GH-\d", out), out


def test_closing_keyword_with_issue_url_is_not_a_link():
    out = neutralize_markdown("Closes https://github.com/o/r/issues/3")
    assert "`https://github.com/o/r/issues/3`" in out


def test_code_is_left_alone_but_comment_openers_are_broken():
    text = "Use `@pytest.fixture` and `a <b>`.\n\n```\n@decorator\n<div>x</div> <!-- evalkit:comment -->\n```\n"
    out = neutralize_markdown(text)
    assert "`@pytest.fixture`" in out and "`a <b>`" in out
    assert "@decorator\n<div>x</div>" in out
    assert "<!--" not in out


def test_a_backtick_across_lines_cannot_smuggle_prose_into_code():
    # GitHub would pair the first backtick with the one on line two, leaving `@bob` outside code.
    out = neutralize_markdown("`start\nend` @bob <b>hi</b> `x`")
    # Unpaired backticks are escaped, so GitHub pairs exactly as we did: `@bob` stays in code.
    assert out == "\\`start\nend` @bob <b>hi</b> `x\\`"


def test_an_indented_fence_cannot_end_a_block_early():
    # Inside a list item the fence closes where the item ends; treat such fences as prose.
    text = "- ```\n  x\n  ```\n@user <img src=http://evil/a.png>\n"
    out = neutralize_markdown(text)
    assert "@user" not in out and "<img" not in out


def test_an_indented_tilde_fence_cannot_swap_code_and_prose():
    text = "  ~~~\n```\nin code for both\n```\n~~~\n@user <img src=http://evil/a.png>\n"
    # Escaped, the indented fence is text for GitHub too: both then see the same two code blocks.
    assert neutralize_markdown(text) == "  \\" + text[2:] + "\n~~~"


def test_definitions_inside_lists_and_quotes_are_neutralised():
    for text in [
        "- [a]: //evil.example\n\n[b][a]",
        "> [a]: //evil.example\n\n[b][a]",
        "[a\\]b]: //evil.example\n\n[x][a\\]b]",
    ]:
        out = neutralize_markdown(text)
        assert "\\[a" in out, out


@pytest.mark.parametrize(
    "link",
    [
        "[a](http://evil.example)",
        "[a](//evil.example/x)",
        "[a](https://github.com.evil.example/)",
        "[a](https://evil.example\\@github.com/)",
        "[a](https://github.com@evil.example/)",
        "[a](http&#58;//evil.example)",
        "[a](<http://evil.example/x y>)",
        '[a](http://evil.example "title")',
        "[a [b] c](http://evil.example)",
        "[see `code`](http://evil.example)",
        "[![img](https://github.com/x.png)](http://evil.example)",
        "[a](javascript:alert(1))",
        "[a]: http://evil.example\n\n[b][a]",
        "x_http://evil.example y",
        "www.evil.example",
        "<http://evil.example>",
    ],
)
def test_outside_links_cannot_render(link):
    out = neutralize_markdown(link)
    for m in re.finditer(r"(?i)(https?:|//|www\.|javascript:)", out):
        before = out[: m.start()]
        # Every surviving URL sits in a code span (an odd number of backticks before it) or is escaped.
        assert before.count("`") % 2 == 1 or "&lt;" in before or "\\(" in before, out


def test_subdomains_of_allowed_hosts_and_relative_links_are_kept():
    text = "[gist](https://gist.github.com/x) [rel](../README.md) [anchor](#top) https://github.com/o/r/pull/1"
    assert neutralize_markdown(text) == text


def test_allowed_hosts_are_configurable():
    out = neutralize_markdown("[doc](https://docs.example.com/a)", allowed_hosts=("example.com",))
    assert out == "[doc](https://docs.example.com/a)"


def test_images_are_removed_even_from_github():
    assert neutralize_markdown("![chart](https://github.com/a.png)") == "chart"


def test_entities_cannot_rebuild_what_was_removed():
    out = neutralize_markdown("&#64;alice &lt;img src=x&gt;")
    assert out == "&amp;#64;alice &amp;lt;img src=x&amp;gt;"


def test_max_chars_truncates_with_a_note():
    out = neutralize_markdown("word " * 1000, max_chars=200)
    assert len(out) <= 200 and "truncated" in out


def test_strip_invisible_keeps_newlines_and_tabs():
    assert strip_invisible("a\r\nb\tc\x00\x1b[31m\u2028d") == "a\nb\tc[31m\nd"


def test_fence_for_is_longer_than_any_backtick_run():
    assert fence_for("plain") == "```"
    assert fence_for("has ``` and ````` inside") == "``````"


@pytest.mark.parametrize("limit", [40, 100, 1000, 65_536])
def test_truncate_markdown_guarantees_the_limit(limit):
    text = "# Title\n```text\n" + "x" * 30 + "\n" * 2 + "long line " * 10_000
    out = truncate_markdown(text, limit, "*(truncated)*")
    assert len(out) <= limit
    assert out.endswith("*(truncated)*")
    assert out.count("```") % 2 == 0


def test_truncate_markdown_cuts_at_a_line_boundary_and_leaves_short_text_alone():
    text = "line one\nline two\nline three\n"
    assert truncate_markdown(text, 100) is text
    out = truncate_markdown(text, 25, "[cut]")
    assert out == "line one\nline two\n\n[cut]"
