"""Base against head (and model against model) on trajectories: tools that appeared, disappeared,
newly fail, changed arguments, calls and turns a run, order; repeats counted in runs; nothing said
without a trace or without a change; the capped "Trajectory changes" section in markdown and the
terminal; and `evalkit compare` end to end on two saved results files with traces."""

from __future__ import annotations

import json

from click.testing import CliRunner

from evalkit.cli.commands import main
from evalkit.compare import compare_reports, load_results
from evalkit.compare.model_vs_model import compare_models
from evalkit.compare.trajectory_diff import trajectory_diff
from evalkit.render.comment import clean
from evalkit.render.compare import (
    comparison_table,
    model_table,
    render_comparison,
    render_model_comparison,
    trajectory_section,
)
from evalkit.results.report import CaseResult, Report, RunResult, SuiteResult
from evalkit.testing.fake_anthropic import FakeAnthropicServer
from evalkit.testing.script import Script
from evalkit.trace.steps import Step


def traced(repeat: int, *calls, turns: int = 2) -> RunResult:
    """A run whose trace asks, answers `turns` times and makes `calls`: (name, arguments[, error])."""
    trace = [Step.message("user", "plan my week")] + [Step.message("assistant", "") for _ in range(turns - 1)]
    for name, arguments, *error in calls:
        trace.append(
            Step.tool_call(name, arguments, result=None if error else {"ok": True}, error=error[0] if error else None)
        )
    trace.append(Step.message("assistant", "done"))
    return RunResult(repeat=repeat, trace=trace)


def case(case_id: str, *runs: RunResult, verdict: str = "pass") -> CaseResult:
    return CaseResult(id=case_id, verdict=verdict, runs=list(runs))


def report(*cases: CaseResult) -> Report:
    return Report(verdict="pass", suites=[SuiteResult(name="s", path="s.yml", verdict="pass", cases=list(cases))])


BASE = case("plan", traced(0, ("load", {"weeks": 4}), ("search", {"q": "tempo runs", "limit": 5})))
HEAD = case(
    "plan",
    traced(0, ("search", {"q": "long runs"}), ("book", {"day": "mon"}, "calendar is read-only"), turns=3),
    verdict="fail",
)


def test_a_tool_that_disappears_appears_and_changes_arguments_is_listed_with_counts():
    diff = trajectory_diff(BASE, HEAD)
    assert diff is not None and diff.lines() == [
        "load disappeared: called in 1/1 runs → 0/1",
        "book appeared: called in 0/1 runs → 1/1, failing in 1",
        'search: argument q "tempo runs" → "long runs"',
        "search: argument limit 5 → (absent)",
        "model turns a run: 2 → 3",
    ]
    cmp = compare_reports(report(BASE), report(HEAD))
    assert cmp.cases()[0].trajectory == diff
    # the comparison's JSON keeps the diff, and reads back the same
    assert type(cmp).model_validate_json(cmp.model_dump_json()).cases()[0].trajectory == diff


def test_repeats_count_runs_and_a_tool_in_some_head_runs_but_no_base_run_appeared():
    base = case("c", *(traced(r, ("search", {"q": "x"})) for r in range(3)))
    head = case(
        "c",
        traced(0, ("search", {"q": "x"}), ("verify", {})),
        traced(1, ("search", {"q": "x"})),
        traced(2, ("search", {"q": "x"}), ("verify", {}, "timeout")),
    )
    assert trajectory_diff(base, head).lines() == [
        "verify appeared: called in 0/3 runs → 2/3, failing in 1",
        "tool calls a run: 1, 1, 1 → 2, 1, 2",
    ]
    gone = trajectory_diff(base, case("c", *(traced(r) for r in range(3))))
    assert gone.lines() == ["search disappeared: called in 3/3 runs → 0/3", "tool calls a run: 1, 1, 1 → 0, 0, 0"]


def test_calls_a_run_change_by_their_median_and_a_tool_that_newly_fails_is_said():
    base = case("c", traced(0, ("search", {"q": "a"})), traced(1, ("search", {"q": "a"})))
    head = case(
        "c",
        traced(0, ("search", {"q": "a"}), ("search", {"q": "a"}, "rate limited")),
        traced(1, ("search", {"q": "a"}), ("search", {"q": "a"})),
    )
    assert trajectory_diff(base, head).lines() == [
        "search: called more, 1 → 2 calls a run (median)",
        "search newly fails: failed in 0/2 runs → 1/2",
        "tool calls a run: 1, 1 → 2, 2",
    ]
    # one more call in one of three runs leaves the median: not a change
    noisy = case("c", *(traced(r, *[("search", {"q": "a"})] * (2 if r == 0 else 1)) for r in range(3)))
    assert trajectory_diff(case("c", *(traced(r, ("search", {"q": "a"})) for r in range(3))), noisy).empty


def test_the_same_calls_in_another_order_say_so():
    base = case("c", traced(0, ("a", {}), ("b", {}), ("c", {})))
    head = case("c", traced(0, ("b", {}), ("a", {}), ("c", {})))
    assert trajectory_diff(base, head).lines() == ["order: a → b → c  ⇒  b → a → c"]


def test_long_values_are_cut_and_many_values_counted():
    base = case("c", traced(0, ("search", {"q": "x" * 100})))
    head = case("c", *(traced(r, ("search", {"q": f"v{r}"})) for r in range(5)))
    (line,) = trajectory_diff(base, head).lines()
    assert line == 'search: argument q "' + "x" * 38 + '… → "v0", "v1", "v2" (+2 more)'


def test_no_trace_on_a_side_or_no_change_says_nothing():
    plain = case("plan", RunResult(repeat=0, output="hi"))
    assert trajectory_diff(plain, HEAD) is None and trajectory_diff(BASE, plain) is None
    assert trajectory_diff(BASE, BASE).empty
    for base, head in ((plain, HEAD), (BASE, BASE), (plain, plain)):
        cmp = compare_reports(report(base), report(head))
        assert cmp.cases()[0].trajectory is None
        assert "Trajectory changes" not in render_comparison(cmp)
        assert "trajectory changes" not in comparison_table(cmp)


def test_the_markdown_and_the_table_list_the_changes_per_case():
    same = case("same", traced(0, ("x", {})))
    cmp = compare_reports(report(BASE, same), report(HEAD, same))
    md = render_comparison(cmp)
    section = md[md.index("**🛠️ Trajectory changes**") : md.index("| Suite | Pass rate")]
    assert section.splitlines() == [
        "**🛠️ Trajectory changes** (tool calls, base → head)",
        "",
        "- `s/plan` · ❌ regressed",
        "  - ➖ load disappeared: called in 1/1 runs → 0/1",
        "  - ➕ book appeared: called in 0/1 runs → 1/1, failing in 1",
        '  - 🔀 search: argument q "tempo runs" → "long runs"',
        "  - 🔀 search: argument limit 5 → (absent)",
        "  - 🔢 model turns a run: 2 → 3",
        "",
    ]
    table = comparison_table(cmp)
    assert "trajectory changes:\n  s/plan\n    load disappeared: called in 1/1 runs → 0/1\n" in table
    assert "s/same" not in table.split("trajectory changes:")[1]


def test_the_section_is_capped_and_says_how_many_more():
    many = [(case(f"c{i}", traced(0, ("a", {"i": i}))), case(f"c{i}", traced(0, ("b", {"i": i})))) for i in range(15)]
    cmp = compare_reports(report(*(b for b, _ in many)), report(*(h for _, h in many)))
    section = trajectory_section(cmp)
    assert sum(len(c.changes) for c in section.cases) == 20 and section.more == 10
    md = render_comparison(cmp)
    assert md.count("  - ➖ a disappeared") == 10 and "*… and 10 more changes: `evalkit compare --format json`" in md
    assert "… and 10 more (the comparison's JSON lists them all)" in comparison_table(cmp)


def test_untrusted_tool_names_and_values_cannot_inject_markdown_in_the_comment():
    base = case("c", traced(0, ("search", {"q": "a", "who": "me", "note": ""})))
    head = case(
        "c",
        traced(
            0,
            ("search", {"q": "[x](https://evil.example)", "who": "@octocat <img src=x>", "note": "fixes #1"}),
            ("# Heading | <b>bold</b>", {}),
        ),
    )
    raw = render_comparison(compare_reports(report(base), report(head)))
    assert "<img src=x>" in raw and "[x](https://evil.example)" in raw  # what `clean` has to defuse
    md = render_comparison(compare_reports(report(base), report(head)), clean=clean)
    section = md[md.index("Trajectory changes") :]
    assert "<img" not in section and "<b>" not in section and "](https://evil.example" not in section
    assert "@octocat" not in section and "octocat" in section  # named, not pinged
    assert "fixes #1" not in section  # no closing keyword
    assert not any(line.lstrip().startswith("#") for line in section.splitlines())
    assert "# Heading \\| " in section  # a pipe cannot end a table cell


def test_model_against_model_compares_each_model_with_the_first():
    runs = [("model-a", report(BASE)), ("model-b", report(HEAD)), ("model-c", report(BASE))]
    mc = compare_models(runs)
    (row,) = mc.rows
    assert set(row.trajectories) == {"model-b"}  # model-c did what model-a did
    assert row.trajectories["model-b"].lines()[0] == "load disappeared: called in 1/1 runs → 0/1"
    md = render_model_comparison(mc)
    assert "**🛠️ Trajectory changes** (tool calls, each model against `model-a`)" in md
    assert "- `s/plan` · `model-b`" in md and "  - ➕ book appeared: called in 0/1 runs → 1/1, failing in 1" in md
    assert "trajectory changes (against model-a):\n  s/plan [model-b]\n" in model_table(mc)
    same = compare_models([("model-a", report(BASE)), ("model-c", report(BASE))])
    assert "Trajectory changes" not in render_model_comparison(same) and "trajectory" not in model_table(same)


def test_evalkit_compare_on_two_saved_results_files_lists_the_trajectory_changes(tmp_path):
    def side(*calls) -> Report:
        return Report(
            verdict="pass",
            suites=[
                SuiteResult(
                    name="agent",
                    path="agent.yml",
                    verdict="pass",
                    cases=[case(case_id, traced(0, *calls)) for case_id in ("plan", "other")],
                )
            ],
        )

    paths = {"base": tmp_path / "base.json", "head": tmp_path / "head.json"}
    side(("load", {"weeks": 4}), ("search", {"q": "tempo"})).save(paths["base"])
    side(("search", {"q": "long"})).save(paths["head"])

    def compare(*extra: str) -> str:
        result = CliRunner().invoke(
            main, ["compare", str(paths["base"]), str(paths["head"]), *extra], catch_exceptions=False
        )
        assert result.exit_code == 0, result.output  # nothing regressed: the tools changed, the verdicts did not
        return result.output

    md = compare("--format", "markdown")
    for case_id in ("plan", "other"):
        assert (
            f"- `agent/{case_id}`\n  - ➖ load disappeared: called in 1/1 runs → 0/1\n"
            f'  - 🔀 search: argument q "tempo" → "long"\n  - 🔢 tool calls a run: 2 → 1\n'
        ) in md
    assert "trajectory changes:\n  agent/plan\n    load disappeared" in compare()
    data = json.loads(compare("--format", "json"))
    assert data["suites"][0]["cases"][0]["trajectory"]["tools"][0]["kind"] == "disappeared"
    page = compare("--format", "html")
    assert "Trajectory changes" in page and "load disappeared: called in 1/1 runs → 0/1" in page
    assert '<code class="s">search</code>' in page  # head's own steps, in its drill-down
    assert f"Trajectory on {paths['base']} <span" in page and '<code class="s">load</code>' in page  # and base's
    assert (
        load_results(paths["head"]).suites[0].cases[0].runs[0].trace
        == side(("search", {"q": "long"})).suites[0].cases[0].runs[0].trace
    )


def test_long_tool_names_and_keys_are_cut_too():
    name, key = "t" * 500, "k" * 500
    (line,) = trajectory_diff(case("c", traced(0, (name, {key: 1}))), case("c", traced(0, (name, {key: 2})))).lines()
    assert line == f"{'t' * 59}…: argument {'k' * 59}… 1 → 2"


TOOLS_SUITE = """
name: weather
model: claude-haiku-4-5-20251001
target:
  prompt: "What should Ada wear in {{ city }}?"
  max_steps: 4
  tools:
    - {name: get_weather, description: The weather now., input_schema: {type: object, properties: {city: {type: string}}}}
    - {name: lookup_wardrobe, description: What Ada owns., input_schema: {type: object, properties: {}}}
cases:
  - id: paris
    input: {city: Paris}
    tool_results:
      get_weather: [{result: {sky: rain}}]
      lookup_wardrobe: [{result: [raincoat]}]
    checks: [{type: contains, value: raincoat}]
"""


def test_two_runs_of_a_prompt_target_with_tools_compare_their_trajectories(tmp_path, write, anthropic_env):
    """End to end: `evalkit run` records each side's tool loop against the fake, `evalkit compare` reads it."""
    suite = write("suite.yml", TOOLS_SUITE)
    sides = {
        "base": Script()
        .tool_use([("get_weather", {"city": "Paris"}), ("lookup_wardrobe", {})], turn=1)
        .reply("Take the raincoat.", turn=2),
        "head": Script().tool_use([("get_weather", {"city": "Lyon"})], turn=1).reply("Take the raincoat.", turn=2),
    }
    for side, script in sides.items():
        with FakeAnthropicServer(script) as fake:
            env = anthropic_env(fake)
            result = CliRunner().invoke(
                main,
                ["run", str(suite), "-o", str(tmp_path / f"{side}.json"), "--no-cache"],
                env=env,
                catch_exceptions=False,
            )
        assert result.exit_code == 0, result.output
    assert load_results(tmp_path / "head.jsonl").suites[0].cases[0].runs[0].trace is not None
    out = (
        CliRunner()
        .invoke(
            main,
            ["compare", str(tmp_path / "base.json"), str(tmp_path / "head.json"), "--format", "markdown"],
            catch_exceptions=False,
        )
        .output
    )
    assert (
        "- `weather/paris`\n  - ➖ lookup_wardrobe disappeared: called in 1/1 runs → 0/1\n"
        '  - 🔀 get_weather: argument city "Paris" → "Lyon"\n  - 🔢 tool calls a run: 2 → 1\n'
    ) in out
