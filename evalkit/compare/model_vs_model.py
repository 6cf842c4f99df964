"""Model against model: the same cases run once per model, side by side. The judge is held
fixed, so a difference is the model's, not the scorer's."""

from __future__ import annotations

from pydantic import BaseModel, Field

from evalkit.compare.comparison import SideStats
from evalkit.compare.diff import side_stats
from evalkit.compare.trajectory_diff import TrajectoryDiff, trajectory_diff
from evalkit.results.report import CaseResult, Report


class ModelColumn(BaseModel):
    model: str
    stats: SideStats
    model_cost_usd: float = Field(0.0, description="Dollars of this model's own calls (the judge's apart).")
    verdict: str = "skipped"


class ModelCaseRow(BaseModel):
    suite: str
    id: str
    verdicts: dict[str, str]
    items: dict[str, dict[str, str]] = Field(default_factory=dict, description="Item id to model to passed/runs.")
    differs: bool = False
    trajectories: dict[str, TrajectoryDiff] = Field(
        default_factory=dict,
        description="Model to what changed in its tool calls against the first model's (changes only).",
    )


class ModelComparison(BaseModel):
    models: list[str]
    judges: list[str]
    columns: list[ModelColumn]
    rows: list[ModelCaseRow]
    demo: bool = False

    @property
    def differing(self) -> list[ModelCaseRow]:
        return [r for r in self.rows if r.differs]

    def judge_line(self) -> str:
        if len(self.judges) == 1:
            return f"The judge is the same for every model: {self.judges[0]}."
        return "The judges differ between the runs (" + ", ".join(self.judges) + "): read differences with care."


def compare_models(runs: list[tuple[str, Report]]) -> ModelComparison:
    """One row per case (suite and id), one column per model."""
    models = [m for m, _ in runs]
    judges = sorted({s.models.get("judge", "") for _, r in runs for s in r.suites if s.models.get("judge")})
    columns = []
    for model, report in runs:
        own = sum(m.usage.cost_usd for m in report.models if m.model == model)
        columns.append(
            ModelColumn(
                model=model, stats=side_stats(report.suites, report), model_cost_usd=own, verdict=report.verdict
            )
        )
    rows: dict[tuple[str, str], ModelCaseRow] = {}
    first: dict[tuple[str, str], CaseResult] = {}
    for index, (model, report) in enumerate(runs):
        for suite in report.suites:
            for case in suite.cases:
                row = rows.setdefault((suite.name, case.id), ModelCaseRow(suite=suite.name, id=case.id, verdicts={}))
                row.verdicts[model] = case.verdict
                if index == 0:
                    first[(suite.name, case.id)] = case
                elif (suite.name, case.id) in first:
                    trajectory = trajectory_diff(first[(suite.name, case.id)], case)
                    if trajectory is not None and not trajectory.empty:
                        row.trajectories[model] = trajectory
                counts: dict[str, list[int]] = {}
                for run in case.runs:
                    for item in run.items:
                        if item.status != "n/a":
                            c = counts.setdefault(item.id, [0, 0])
                            c[0] += item.status == "pass"
                            c[1] += 1
                for item_id, (passed, total) in counts.items():
                    row.items.setdefault(item_id, {})[model] = f"{passed}/{total}"
    for row in rows.values():
        row.differs = len({row.verdicts.get(m, "—") for m in models}) > 1 or any(
            len({per.get(m, "—") for m in models}) > 1 for per in row.items.values()
        )
    return ModelComparison(
        models=models, judges=judges, columns=columns, rows=list(rows.values()), demo=any(r.demo for _, r in runs)
    )
