"""The one-pass YAML reader builds the same data as PyYAML's safe loader, knows every value's
line, and refuses what plain data cannot hold."""

from __future__ import annotations

import textwrap

import pytest
import yaml

from evalkit.suite.yaml_reader import read_yaml

SAME_AS_PYYAML = [
    "a: 1\nb: 1.5\nc: true\nd: null\ne: ~\nf: 2024-05-01\ng: 0x1f\nh: '01'\ni: 1e3\nj: .inf\nk: yes\n",
    "- plain\n- 'quoted 1'\n- \"double\\ttab\"\n- !!str 12\n- !!int '7'\n- ! 12\n",
    "key: |\n  block\n  text\nfolded: >\n  one\n  two\n",
    "base: &b {x: 1, y: 2}\nitem:\n  <<: *b\n  y: 3\n  z: 4\n",
    "a: &a {k: 1, m: 1}\nb: &b {k: 2, n: 2}\nc:\n  <<: [*a, *b]\n  o: 3\n",
    "c:\n  <<: {p: 1}\n  q: 2\n",
    "list: &l [1, 2]\nuse: [*l, *l]\nscalar: &s hello\nagain: *s\n",
    "1: one\n'1': text one\n2.5: float key\nnull: null key\n",
    "",
    "# only a comment\n",
    "[]\n",
    "- [a, [b, [c, {d: [e]}]]]\n",
    # Plain scalars become other types only by their first character; quoted ones stay text.
    "a: 'true'\nb: \"12\"\nc: ok\nd: on\ne:\nf: ''\ng: c123\nh: -1\ni: +1.5\nj: .5\nl: ! true\nm: Null\n"
    "n: ~x\no: 2024-05-01T10:00:00Z\n",
]


@pytest.mark.parametrize("text", SAME_AS_PYYAML)
def test_the_data_is_what_pyyaml_builds(tmp_path, text):
    path = tmp_path / "s.yml"
    path.write_text(text)
    assert read_yaml(path).data == yaml.safe_load(text)


def test_merged_keys_come_first_as_pyyaml_orders_them(tmp_path):
    text = "a: &a {k: 1, m: 1}\nc:\n  z: 0\n  <<: *a\n  k: 3\n"
    path = tmp_path / "s.yml"
    path.write_text(text)
    assert list(read_yaml(path).data["c"].items()) == list(yaml.safe_load(text)["c"].items())


def test_every_value_knows_its_line(tmp_path):
    path = tmp_path / "s.yml"
    path.write_text(
        textwrap.dedent("""\
        name: x
        cases:
          - id: a
            checks:
              - type: contains
                value: hi
          - {id: b, input: {q: 1}}
        """)
    )
    doc = read_yaml(path)
    assert doc.line(()) == 1
    assert doc.line(("name",)) == 1
    assert doc.line(("cases",)) == 2
    assert doc.line(("cases", 0)) == 3
    assert doc.line(("cases", 0, "checks")) == 4
    assert doc.line(("cases", 0, "checks", 0)) == 5
    assert doc.line(("cases", 0, "checks", 0, "value")) == 6
    assert doc.line(("cases", 1, "input", "q")) == 7
    assert doc.line(("cases", 1, "no such key")) == 7  # the nearest enclosing value


@pytest.mark.parametrize(
    "text, message",
    [
        ("a: &a [1, *a]\n", r"s.yml:1: alias \*a refers to a value that contains it"),
        ("a: *nowhere\n", r"s.yml:1: YAML syntax error: found undefined alias 'nowhere'"),
        ("a: 1\n---\nb: 2\n", r"s.yml:2: YAML syntax error: expected a single document"),
        ("a: !!binary aGk=\n", r"s.yml:1: YAML tag 'tag:yaml.org,2002:binary' is not allowed"),
        ("a: !!set {x, y}\n", r"s.yml:1: YAML tag 'tag:yaml.org,2002:set' is not allowed"),
        ("a: !local 1\n", r"s.yml:1: YAML tag '!local' is not allowed"),
        ("? [a, b]\n: 1\n", r"s.yml:1: a mapping key must be plain text or a number, not a list"),
        ("a:\n  <<: 5\n", r"s.yml:2: a `<<` merge key takes a mapping or a list of mappings"),
        ("a: 1\nb: 2\na: 3\n", r"s.yml:3: duplicate key 'a' \(first at line 1\)"),
        ("a: [1, 2\n", r"s.yml:2: YAML syntax error"),
    ],
)
def test_what_is_refused_names_the_line(tmp_path, text, message):
    path = tmp_path / "s.yml"
    path.write_text(text)
    with pytest.raises(ValueError, match=message):
        read_yaml(path)


def test_an_alias_shares_its_value_instead_of_copying_it(tmp_path):
    # Aliases are expanded by counting (the alias-bomb limit), not by copying.
    path = tmp_path / "s.yml"
    path.write_text("a: &a {k: [1, 2, 3]}\nb: *a\n")
    data = read_yaml(path).data
    assert data["b"] is data["a"]


def test_a_merge_sign_outside_a_key_is_text(tmp_path):
    # PyYAML fails with "could not determine a constructor"; as a value `<<` can only mean the text.
    path = tmp_path / "s.yml"
    path.write_text("when: <<\nlist: [<<]\n")
    assert read_yaml(path).data == {"when": "<<", "list": ["<<"]}
