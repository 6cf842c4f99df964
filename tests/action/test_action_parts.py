"""The Action's parts in process: suite discovery and selection, the comment body, inputs,
the environment allow-list, and the demo's comment."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from evalkit.action.discovery import discover, load_repo_suites, parse_list, select_named
from evalkit.action.inputs import parse_inputs
from evalkit.action.redact import redact, scrub_environment
from evalkit.errors import UsageError
from evalkit.render.comment import (
    MARKER,
    MAX_COMMENT_CHARS,
    code_span,
    finish,
    no_key_body,
    nothing_affected_body,
    render_comment,
)
from evalkit.results.report import CaseResult, ItemResult, Report, RunResult, SuiteResult

SUITE = """\
name: {name}
target: {{prompt: "Say hi to {{{{ input.who }}}}"}}
watch: {watch}
cases:
  - id: one
    input: {{who: Ada}}
    checks: [{{type: contains, value: hi}}]
"""

FIXTURES = """\
- id: basic
  input: {prompt: hello}
  checks: [{type: contains, value: hello}]
"""


def put(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")
    return root


def test_without_evalkit_yml_every_suite_file_is_found_skipping_dependencies(tmp_path):
    put(
        tmp_path,
        {
            "a/suite.yml": SUITE.format(name="a", watch="[]"),
            "b/x.suite.yml": SUITE.format(name="x", watch="[]"),
            "b/y.suite.yaml": SUITE.format(name="y", watch="[]"),
            "node_modules/p/suite.yml": "junk",
            ".venv/suite.yml": "junk",
            ".git/suite.yml": "junk",
            "venv2/pyvenv.cfg": "",
            "venv2/lib/suite.yml": "junk",
            "b/cases.yml": FIXTURES,
        },
    )
    refs, source = discover(tmp_path)
    assert source == "discovered"
    assert [r.rel for r in refs] == ["a/suite.yml", "b/x.suite.yml", "b/y.suite.yaml"]


def test_evalkit_yml_lists_paths_globs_and_fixture_lists_with_their_target(tmp_path):
    put(
        tmp_path,
        {
            "evalkit.yml": """\
            suites:
              - a
              - "more/*.suite.yml"
              - path: tests/agents/cases.yml
                target: agent:run
                watch: [tests/agents/agent.py]
            """,
            "a/suite.yml": SUITE.format(name="a", watch='["./prompts/**", "src/**"]'),
            "more/m.suite.yml": SUITE.format(name="m", watch="[]"),
            "elsewhere/suite.yml": SUITE.format(name="ignored", watch="[]"),
            "tests/agents/cases.yml": FIXTURES,
            "tests/agents/agent.py": "def run(input):\n    return input['prompt']\n",
        },
    )
    repo = load_repo_suites(tmp_path)
    assert repo.source == "evalkit.yml"
    assert [r.rel for r in repo.refs] == ["a/suite.yml", "more/m.suite.yml", "tests/agents/cases.yml"]
    fixture = repo.suites[2]
    assert fixture.target is not None and fixture.target.function == "agent:run"
    watch = repo.watch_map()
    assert watch["a/suite.yml"] == ["a/prompts/**", "src/**", "a/suite.yml"]
    assert watch["more/m.suite.yml"] == []  # watches nothing: always runs
    assert watch["tests/agents/cases.yml"] == ["tests/agents/agent.py", "tests/agents/cases.yml"]


def test_evalkit_yml_problems_are_reported_together(tmp_path):
    put(tmp_path, {"evalkit.yml": "suites: [missing, 'none/*.yml', {path: x, bogus: 1}]\n"})
    with pytest.raises(UsageError) as exc:
        discover(tmp_path)
    text = str(exc.value)
    assert "entry 1" in text and "entry 2" in text and "entry 3" in text


def test_the_suites_input_takes_names_paths_folders_and_globs(tmp_path):
    put(
        tmp_path,
        {
            "s/a/suite.yml": SUITE.format(name="alpha", watch="[]"),
            "s/b/suite.yml": SUITE.format(name="beta", watch="[]"),
            "extra/x.yml": SUITE.format(name="extra", watch="[]"),
        },
    )
    repo = load_repo_suites(tmp_path)
    assert select_named(repo, ["beta"]) == ["s/b/suite.yml"]
    assert select_named(repo, ["./s/a/"]) == ["s/a/suite.yml"]
    assert select_named(repo, ["s/*"]) == ["s/a/suite.yml", "s/b/suite.yml"]
    assert select_named(repo, ["s"]) == ["s/a/suite.yml", "s/b/suite.yml"]
    assert select_named(repo, ["extra/x.yml"]) == ["extra/x.yml"]  # a file not discovered is loaded
    with pytest.raises(UsageError, match="'gamma'.*alpha"):
        select_named(repo, ["gamma"])
    with pytest.raises(UsageError):
        select_named(repo, ["../outside"])
    assert parse_list("a, b\n# comment\nc  # why\n\n") == ["a", "b", "c"]


def _report(reason: str = "fine", n_cases: int = 1, demo: bool = False) -> Report:
    items = [ItemResult(id="polite", text="Is polite", status="fail", reason=reason, decided_by="judge")]
    cases = [
        CaseResult(
            id=f"case{i}",
            verdict="fail",
            runs=[RunResult(repeat=0, output="x", items=items)],
            reasons=["rubric 0% < 80%"],
        )
        for i in range(n_cases)
    ]
    return Report(
        verdict="fail",
        demo=demo,
        suites=[SuiteResult(name="greet", path="evals/greet.suite.yml", verdict="fail", cases=cases)],
    )


def test_comment_is_marked_and_neutralised():
    body = render_comment(
        _report("@admin <b>x</b> fixes #3 ![t](https://evil.example/t.png) <!-- evalkit:comment -->"),
        run_url="https://github.com/o/r/actions/runs/1",
    )
    assert body.startswith(MARKER + "\n") and body.count(MARKER) == 1
    assert "<!--" not in body[len(MARKER) :]
    for bad in ("@admin", "<b>", "fixes #3", "https://evil.example"):
        assert bad not in body
    assert "[workflow run](https://github.com/o/r/actions/runs/1)" in body


def test_long_comment_is_cut_to_65536_with_a_note_and_closed_details():
    body = render_comment(_report("r" * 900, n_cases=200), artifact_hint="`/tmp/x`")
    assert len(body) <= MAX_COMMENT_CHARS
    # Whole failing cases' details are left out from the end, and the note counts them.
    kept = body.count("<details>")
    assert 0 < kept < 200 and f"{200 - kept} failing cases' details left out" in body
    assert "results.json" in body and "/tmp/x" in body
    assert body.count("<details>") == body.count("</details>")
    assert "`case0`" in body and "<code>case0</code>" in body and "<code>case199</code>" not in body
    short = finish("hello\n")
    assert short == MARKER + "\nhello\n"


def test_nothing_affected_and_no_key_bodies():
    body = nothing_affected_body(
        ["README.md", "docs/`@team` <img src=x>.md"] + [f"f{i}" for i in range(40)],
        "42 file(s) changed in PR #1",
        ["evals/a.suite.yml"],
    )
    assert body.startswith(MARKER) and "`README.md`" in body and "… and 12 more" in body
    assert "``docs/`@team` <img src=x>.md``" in body  # inside a code span: no ping, no HTML
    assert code_span("`x`") == "`` `x` ``"
    fork = no_key_body("pull_request", is_fork=True)
    assert "fork" in fork and "not a failure" in fork and MARKER not in fork
    assert "Dependabot" in no_key_body("pull_request", is_fork=False)


def test_inputs_are_checked():
    env = {
        "INPUT_RUBRIC_THRESHOLD": " 0.9 ",
        "INPUT_COMMENT": "False",
        "INPUT_MODEL": "",
        "INPUT_ANTHROPIC_API_KEY": "k" * 20,
    }
    inputs = parse_inputs(env)
    assert inputs.rubric_threshold == 0.9 and inputs.agreement_threshold == 0.8
    assert inputs.comment is False and inputs.fail_on_gate is True and inputs.model is None
    assert "k" * 20 not in repr(inputs)
    with pytest.raises(UsageError, match="concurrency.*rubric_threshold"):
        parse_inputs({"INPUT_RUBRIC_THRESHOLD": "high", "INPUT_CONCURRENCY": "-1"})


def test_environment_allow_list():
    env = {
        "PATH": "/bin",
        "HOME": "/h",
        "LC_ALL": "C",
        "PYTHONPATH": "x",
        "ANTHROPIC_BASE_URL": "u",
        "ANTHROPIC_API_KEY": "secret",
        "SYSTEM_AGENT_MODELS_HIGH": "m",
        "EVALKIT_X": "1",
        "CI": "true",
        "GITHUB_WORKSPACE": "/w",
        "GITHUB_TOKEN": "t",
        "ACTIONS_RUNTIME_TOKEN": "t",
        "INPUT_GITHUB_TOKEN": "t",
        "GITHUB_ENV": "/f",
        "GITHUB_OUTPUT": "/f",
        "AWS_SECRET_ACCESS_KEY": "s",
    }
    dropped = scrub_environment(env)
    assert set(env) == {
        "PATH",
        "HOME",
        "LC_ALL",
        "PYTHONPATH",
        "ANTHROPIC_BASE_URL",
        "SYSTEM_AGENT_MODELS_HIGH",
        "EVALKIT_X",
        "CI",
        "GITHUB_WORKSPACE",
    }
    assert "ANTHROPIC_API_KEY" in dropped and "AWS_SECRET_ACCESS_KEY" in dropped


def test_redact_replaces_secrets_everywhere_in_the_report():
    secret = "sk-ant-0123456789abcdef"
    report = redact(_report(f"the key is {secret}"), [secret, ""])
    assert secret not in report.model_dump_json() and "***" in report.model_dump_json()


def test_demo_writes_the_comment_the_action_would_post(tmp_path, capsys):
    from evalkit.cli.demo import write_demo_comment

    _report("because", demo=True).save(tmp_path / "results.json")
    path = write_demo_comment(tmp_path)
    body = path.read_text()
    assert body.startswith(MARKER) and "Demo run with scripted replies" in body
    assert body in capsys.readouterr().out


def test_the_inconclusive_input_is_one_of_fail_warn_pass():
    from evalkit.action.inputs import parse_inputs

    base = {"INPUT_SUITES": "suites", "INPUT_ANTHROPIC_API_KEY": "k"}
    assert parse_inputs({**base, "INPUT_INCONCLUSIVE": "fail"}).inconclusive == "fail"
    assert parse_inputs(base).inconclusive is None
    with pytest.raises(UsageError, match="inconclusive: 'maybe' is not one of fail, warn, pass"):
        parse_inputs({**base, "INPUT_INCONCLUSIVE": "maybe"})


def test_the_max_cost_input_is_an_amount_of_dollars():
    from evalkit.action.inputs import parse_inputs

    base = {"INPUT_SUITES": "suites", "INPUT_ANTHROPIC_API_KEY": "k"}
    assert parse_inputs({**base, "INPUT_MAX_COST": "2.50"}).max_cost == 2.5
    assert parse_inputs({**base, "INPUT_MAX_COST": "$5"}).max_cost == 5
    assert parse_inputs(base).max_cost is None
    for bad, why in (("abc", "'abc' is not an amount of US dollars"), ("-1", "'-1' must be more than 0")):
        with pytest.raises(UsageError, match=f"^invalid input: max_cost: {why}"):
            parse_inputs({**base, "INPUT_MAX_COST": bad})


def test_the_history_keep_input_is_a_number_of_runs():
    base = {"INPUT_SUITES": "suites", "INPUT_ANTHROPIC_API_KEY": "k"}
    assert parse_inputs(base).history_keep == 500
    assert parse_inputs({**base, "INPUT_HISTORY_KEEP": " 40 "}).history_keep == 40
    for bad in ("0", "many", "100001"):
        with pytest.raises(UsageError, match=f"^invalid input: history_keep: '{bad}' is not a whole number"):
            parse_inputs({**base, "INPUT_HISTORY_KEEP": bad})
