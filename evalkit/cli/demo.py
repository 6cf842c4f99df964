"""`evalkit demo`: the bundled suites against a loopback fake of the Messages API, with
scripted replies, through the real anthropic client — no key, no network, one command."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path
from typing import Any, Callable

import click

from evalkit._runtime.import_names import import_object
from evalkit.compare import compare_reports
from evalkit.engine import load_suites, make_client, run
from evalkit.errors import UsageError
from evalkit.llm.providers.anthropic import AnthropicProvider
from evalkit.render.comment import clean, render_comment
from evalkit.render.compare import comparison_table, detailed_cases, render_comparison
from evalkit.render.html import write_html
from evalkit.results.report import Report
from evalkit.run.options import RunOptions
from evalkit.testing.fake_anthropic import FakeAnthropicServer
from evalkit.testing.script import Script

# Which scripted variant each bundled suite plays: one passes; the coach and the coach as an agent
# show a blocked PR (the agent's trajectory changes against the base too). A folder's replies are in
# its `demo` module; a `<name>.suite.yml` file's in `<name>_demo` beside it.
DEMO_SUITES = (("help_agents", "pass"), ("pace_ai", "fail"), ("pace_ai/agent.suite.yml", "fail"))
# The base branch the demo's head is compared with: every suite sound.
DEMO_BASE = (("help_agents", "pass"), ("pace_ai", "pass"), ("pace_ai/agent.suite.yml", "pass"))


def bundled_suites_dir() -> Path:
    here = Path(__file__).resolve().parents[2] / "suites"
    if not here.is_dir():
        raise UsageError(
            "the bundled suites are not here (evalkit was installed without its repository); "
            "clone the repository and `pip install -e .` to run the demo"
        )
    return here


def demo_plan(root: Path, variants: tuple[tuple[str, str], ...] = DEMO_SUITES) -> list[tuple[Path, Any]]:
    """(suite folder or file, Script) for each bundled suite."""
    plan = []
    for name, variant in variants:
        path = root / name
        folder = path if path.is_dir() else path.parent
        module = "demo" if path.is_dir() else path.name.removesuffix(".suite.yml") + "_demo"
        # Each suite folder has its own `demo` module (import_object puts its folder first on sys.path).
        sys.modules.pop(module, None)  # another folder's module of the same name, imported earlier, must not answer
        try:
            make_script = import_object(f"{module}:script", folder)
        except ValueError as exc:
            raise UsageError(f"suite {name} has no demo replies ({exc})") from None
        finally:
            sys.modules.pop(module, None)  # each suite folder has its own `demo` module
        plan.append((path, make_script(variant)))
    return plan


def run_demo(output_dir: Path, execute: Callable[..., int]) -> int:
    """Run the bundled suites against the fake with `execute` (the CLI's run-save-summarise)."""

    plan = demo_plan(bundled_suites_dir())
    merged = Script()
    for _, script in plan:
        merged.extend(script)
    suites = load_suites([folder for folder, _ in plan])
    output_dir.mkdir(parents=True, exist_ok=True)
    click.echo("evalkit demo: scripted replies from a local fake of the Messages API; no model is called.\n", err=True)
    with FakeAnthropicServer(merged) as fake, tempfile.TemporaryDirectory() as cache:
        provider = AnthropicProvider(api_key="demo-not-a-key", base_url=fake.url)
        client = make_client(provider, concurrency=8, cache_dir=cache)
        jsonl = output_dir / "results.jsonl"
        jsonl.unlink(missing_ok=True)
        options = RunOptions(demo=True, jsonl_path=jsonl)
        code = execute(
            suites,
            client,
            options,
            output_dir / "results.json",
            str(output_dir / "report.md"),
            html_path=str(output_dir / "report.html"),
        )
    lead, detailed = write_demo_comparison(output_dir, suites)
    write_demo_comment(output_dir, lead, detailed)
    return code


def write_demo_comparison(output_dir: Path, suites: list[Any]) -> tuple[str, list[str]]:
    """Run the scripted base (sound replies everywhere), compare the demo's head with it, and
    write `comparison.md` / `comparison.json` and the HTML report base vs head; returns the markdown
    the comment leads with and the cases (`suite/case`) it explains."""
    base_plan = demo_plan(bundled_suites_dir(), DEMO_BASE)
    merged = Script()
    for _, script in base_plan:
        merged.extend(script)
    with FakeAnthropicServer(merged) as fake, tempfile.TemporaryDirectory() as cache:
        provider = AnthropicProvider(api_key="demo-not-a-key", base_url=fake.url)
        base = run(suites, make_client(provider, concurrency=8, cache_dir=cache), RunOptions(demo=True))
    base.save(output_dir / "base.json")
    head = Report.load(output_dir / "results.json")
    cmp = compare_reports(
        base,
        head,
        base_label="base (scripted: sound replies)",
        head_label="head (scripted: reckless coaching, an agent skipping a tool)",
    )
    (output_dir / "comparison.json").write_text(cmp.model_dump_json(indent=2), encoding="utf-8")
    write_html(head, output_dir / "report.html", comparison=cmp, base=base)
    (output_dir / "comparison.md").write_text(render_comparison(cmp, head=head), encoding="utf-8")
    click.echo(f"\n--- compared with a scripted base branch ({output_dir / 'comparison.md'}) ---\n", err=True)
    click.echo(comparison_table(cmp), nl=False)
    return render_comparison(cmp, clean=clean, head=head) + "\n---\n\n", detailed_cases(cmp)


def write_demo_comment(output_dir: Path, lead: str = "", detailed: list[str] | None = None) -> Path:
    """The PR comment exactly as the Action would post it (marker, neutralised text), to
    `comment.md` and the terminal; the report's `demo` flag keeps it marked as a demo."""

    report = Report.load(output_dir / "results.json")
    body = render_comment(report, artifact_hint=str(output_dir), lead=lead, detailed=detailed or ())
    path = output_dir / "comment.md"
    path.write_text(body, encoding="utf-8")
    click.echo(f"\n--- the PR comment the Action would post ({path}) ---\n", err=True)
    click.echo(body)
    return path
