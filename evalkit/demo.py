"""`evalkit demo`: the bundled suites against a loopback fake of the Messages API, with
scripted replies, through the real anthropic client — no key, no network, one command."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path
from typing import Any, Callable

import click

from evalkit._imports import import_object
from evalkit.engine import load_suites, make_client
from evalkit.errors import UsageError
from evalkit.providers.anthropic import AnthropicProvider
from evalkit.render.comment import render_comment
from evalkit.report import Report
from evalkit.runner import RunOptions
from evalkit.testing.fake_anthropic import FakeAnthropicServer
from evalkit.testing.script import Script

# Which scripted variant each bundled suite plays: one passes, one shows a blocked PR.
DEMO_SUITES = (("help_agents", "pass"), ("pace_ai", "fail"))


def bundled_suites_dir() -> Path:
    here = Path(__file__).resolve().parent.parent / "suites"
    if not here.is_dir():
        raise UsageError("the bundled suites are not here (evalkit was installed without its repository); "
                         "clone the repository and `pip install -e .` to run the demo")
    return here


def demo_plan(root: Path) -> list[tuple[Path, Any]]:
    """(suite folder, Script) for each bundled suite."""
    plan = []
    for name, variant in DEMO_SUITES:
        folder = root / name
        try:
            make_script = import_object("demo:script", folder)
        except ValueError as exc:
            raise UsageError(f"suite {name} has no demo replies ({exc})") from None
        finally:
            sys.modules.pop("demo", None)  # each suite folder has its own `demo` module
        plan.append((folder, make_script(variant)))
    return plan


def run_demo(output_dir: Path, execute: Callable[..., int]) -> int:
    """Run the bundled suites against the fake with `execute` (the CLI's run-save-summarise)."""

    plan = demo_plan(bundled_suites_dir())
    merged = Script()
    for _, script in plan:
        merged.extend(script)
    suites = load_suites([folder for folder, _ in plan])
    output_dir.mkdir(parents=True, exist_ok=True)
    click.echo("evalkit demo: scripted replies from a local fake of the Messages API; no model is called.\n",
               err=True)
    with FakeAnthropicServer(merged) as fake, tempfile.TemporaryDirectory() as cache:
        provider = AnthropicProvider(api_key="demo-not-a-key", base_url=fake.url)
        client = make_client(provider, concurrency=8, cache_dir=cache)
        jsonl = output_dir / "results.jsonl"
        jsonl.unlink(missing_ok=True)
        options = RunOptions(demo=True, jsonl_path=jsonl)
        code = execute(suites, client, options, output_dir / "results.json", str(output_dir / "report.md"),
                       str(output_dir / "report.html"))
    write_demo_comment(output_dir)
    return code


def write_demo_comment(output_dir: Path) -> Path:
    """The PR comment exactly as the Action would post it (marker, neutralised text), to
    `comment.md` and the terminal; the report's `demo` flag keeps it marked as a demo."""

    report = Report.load(output_dir / "results.json")
    body = render_comment(report, artifact_hint=str(output_dir))
    path = output_dir / "comment.md"
    path.write_text(body, encoding="utf-8")
    click.echo(f"\n--- the PR comment the Action would post ({path}) ---\n", err=True)
    click.echo(body)
    return path
