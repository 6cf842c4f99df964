"""The CLI's comparing runs: head against a base ref, or models against each other; each prints
its table and saves its data beside the results."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

import click

from evalkit.cli.history_page import past
from evalkit.compare import compare_reports, load_results
from evalkit.compare.model_vs_model import compare_models
from evalkit.engine.per_model_runs import model_path, run_per_model
from evalkit.exit_codes import passed_or_failed
from evalkit.render.compare import comparison_table, model_table, render_comparison, render_model_comparison
from evalkit.render.html import write_html
from evalkit.results.gates import exit_code


def against_base(
    base: Any,
    out: Path,
    markdown_path: str | None,
    gate: str,
    threshold_code: int,
    *,
    html_path: str | None = None,
    flaky: Any = None,
    history: tuple[str | None, str] = (None, "main"),
) -> int:
    """Compare head's results with the base's (`flaky`: the history's flaky cases; `history`: its
    file and branch, for the HTML report's charts); print and save it; the exit code `gate` asks for."""
    head = load_results(out)
    cmp = compare_reports(
        base.report, head, base_label=f"{base.ref} ({base.commit[:12]})", head_label="head", flaky=flaky
    )
    for rel in base.missing:
        cmp.notes.append(f"{rel} does not exist on {base.ref}: its cases are all new")
    cmp_path = out.with_name(out.stem + ".compare.json")
    cmp_path.write_text(cmp.model_dump_json(indent=2), encoding="utf-8")
    if markdown_path:
        md = Path(markdown_path)
        md.write_text(render_comparison(cmp, head=head) + "\n" + md.read_text(encoding="utf-8"), encoding="utf-8")
    if html_path:
        write_html(head, html_path, comparison=cmp, base=base.report, past=past(*history, head))
    click.echo("\n" + comparison_table(cmp), nl=False)
    for side, report in (("base", base.report), ("head", head)):
        click.echo(f"{side}: {report.usage.calls} requests made, {report.usage.cache_hits} from the cache")
    click.echo(f"comparison: {cmp_path}")
    regression_code = passed_or_failed(bool(cmp.regressed))
    return {"thresholds": threshold_code, "regressions": regression_code}.get(
        gate, max(threshold_code, regression_code)
    )


def models_side_by_side(
    suites: list[Any],
    models: list[str],
    new_client: Callable[[], Any],
    options: Any,
    out: Path,
    *,
    markdown_path: str | None,
    html_path: str | None = None,
) -> int:
    """Run once per model; save each report and the side-by-side table; exit 1 when any gate failed.
    The HTML page shows the last model against the first."""
    runs = run_per_model(suites, models, new_client, options)
    for model, report in runs:
        report.save(model_path(out, model))
        click.echo(
            f"{model}: verdict {report.verdict} · {report.usage.calls} calls, {report.usage.cache_hits} cache hits"
        )
    mc = compare_models(runs)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(mc.model_dump_json(indent=2), encoding="utf-8")
    if markdown_path:
        Path(markdown_path).write_text(render_model_comparison(mc), encoding="utf-8")
    if html_path and len(runs) > 1:
        (first, base), (last, head) = runs[0], runs[-1]
        write_html(
            head, html_path, base=base, comparison=compare_reports(base, head, base_label=first, head_label=last)
        )
    click.echo("\n" + model_table(mc), nl=False)
    click.echo(f"results: {out} (side by side), {out.stem}.<model>.json per model")
    return max(exit_code(r.verdict) for _, r in runs)
