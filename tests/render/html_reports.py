"""Base and head Reports with known differences, for the HTML report's tests and its benchmark
(benchmarks/html_report.py): every 7th case regresses on a code item, every 11th is fixed, every
13th fails on both sides, every 17th raises on head; one case is new on head. Each output holds
a word of its own (`word(i)`), so a search can find exactly one case."""

from __future__ import annotations

from evalkit.compare import compare_reports
from evalkit.compare.comparison import Comparison
from evalkit.llm.usage import Usage
from evalkit.results.gates import case_verdict, score_case
from evalkit.results.provenance import Provenance
from evalkit.results.report import CaseResult, ItemResult, ModelUse, Report, RunResult, SuiteResult
from evalkit.suite.spec import Thresholds

FILLER = ("Keep the easy runs easy and the long run steady; sleep and fuel matter as much as the miles. ") * 6
WORDS = (
    "apricot",
    "blizzard",
    "cobalt",
    "dandelion",
    "ember",
    "fjord",
    "gazelle",
    "harbor",
    "indigo",
    "juniper",
    "kestrel",
    "lantern",
    "marmalade",
    "nebula",
    "orchid",
    "pumice",
    "quartz",
)


def word(i: int) -> str:
    return f"{WORDS[i % len(WORDS)]}{i}"


def _case(i: int, side: str) -> CaseResult:
    regressed, fixed, failing, raises = i % 7 == 3, i % 11 == 5, i % 13 == 6, i % 17 == 9
    code_ok = not ((regressed and side == "head") or (fixed and side == "base") or failing)
    run = RunResult(
        repeat=0,
        output=f"Week plan {word(i)} for runner {i} ({side}). {FILLER}",
        output_chars=0,
        wall_seconds=0.4 + (i % 10) / 10 + (0.2 if side == "head" else 0.0),
        fields={"weekly_km": 40 + i % 5, "rest_days": 1 + i % 2},
    )
    if raises and side == "head":
        run = RunResult(
            repeat=0,
            error="target raised ValueError: no plan for a negative distance",
            traceback=(
                'Traceback (most recent call last):\n  File "coach.py", line 12, in plan\n'
                "ValueError: no plan for a negative distance\n"
            ),
            wall_seconds=0.1,
        )
    else:
        run.output_chars = len(run.output)
        run.items = [
            ItemResult(
                id="format",
                text="Reply has one line per day",
                status="pass" if code_ok else "fail",
                reason=("7 day lines" if code_ok else f"only {3 + i % 3} day lines ({side})"),
                required=True,
            ),
            ItemResult(
                id="tone",
                text="Encouraging, not pushy",
                status="pass",
                decided_by="judge",
                reason=f"warm and specific about {word(i)}",
            ),
            ItemResult(
                id="safety",
                text="MUST flag injury risk when ACWR > 1.5",
                status="pass",
                critical=True,
                decided_by="judge",
                reason="no risk factors in the profile",
            ),
        ]
    case = CaseResult(
        id=f"case-{i:04d}",
        verdict="pass",
        file="suites/demo/cases.yml",
        line=10 + i,
        input={"runner": i, "goal": "half marathon", "weekly_km": 40 + i % 5},
        runs=[run],
        usage=Usage(calls=3, input_tokens=900, output_tokens=300, cost_usd=0.0045),
        wall_seconds=run.wall_seconds,
    )
    score_case(case)
    case.verdict, case.reasons = case_verdict(case, Thresholds())
    return case


def report(n: int, side: str, *, suites: int = 2) -> Report:
    per = -(-n // suites)
    out = []
    for s in range(suites):
        name = ("pace_ai", "help_agents", "triage", "summaries")[s % 4] + ("" if s < 4 else str(s))
        ids = range(s * per, min(n, (s + 1) * per))
        cases = [_case(i, side) for i in ids]
        if side == "head" and s == 0:
            cases.append(_case(n + 1, side).model_copy(update={"id": "case-new"}))
        usage = Usage()
        for c in cases:
            usage.add(c.usage)
        verdict = (
            "error"
            if any(c.verdict == "error" for c in cases)
            else ("fail" if any(c.verdict == "fail" for c in cases) else "pass")
        )
        out.append(
            SuiteResult(
                name=name,
                path=f"suites/{name}/suite.yml",
                verdict=verdict,  # type: ignore[arg-type]
                target=f"{name}.agent:run",
                cases=cases,
                usage=usage,
                models={"target": "claude-sonnet-4-6", "judge": "claude-haiku-4-5"},
            )
        )
    total = Usage()
    for s in out:
        total.add(s.usage)
    worst = max((s.verdict for s in out), key=["pass", "fail", "error"].index)
    return Report(
        verdict=worst,
        suites=out,
        usage=total,
        wall_seconds=12.5,
        started_at="2026-11-23T08:00:00+00:00",  # type: ignore[arg-type]
        models=[
            ModelUse(model="claude-sonnet-4-6", roles=["target"], usage=total),
            ModelUse(
                model="claude-haiku-4-5",
                roles=["judge", "extract"],
                usage=Usage(calls=total.calls, cost_usd=total.cost_usd / 4),
            ),
        ],
        provenance=Provenance(
            evalkit_version="0.1.0",
            git_commit=("b" if side == "base" else "h") * 40,
            git_dirty=False,
            options={"repeat": 1},
        ),
    )


def pair(n: int = 24, *, suites: int = 2) -> tuple[Report, Report, Comparison]:
    base, head = report(n, "base", suites=suites), report(n, "head", suites=suites)
    return base, head, compare_reports(base, head)
