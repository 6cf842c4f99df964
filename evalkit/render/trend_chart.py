"""A small line chart of one figure over a suite's last runs, as geometry for an inline SVG: where each
run's point goes, the y axis ticks, and the lines between points (broken where a run has no value).
The template turns it into markup (escaped there); nothing here is markup."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

WIDTH, HEIGHT = 300, 150
# The plot's margins: room for the y axis labels on the left and the run labels below.
LEFT, RIGHT, TOP, BOTTOM = 52, 14, 12, 34
NICE_STEPS = (1.0, 2.0, 2.5, 5.0, 10.0)


@dataclass(frozen=True)
class Point:
    x: float
    y: float
    shown: str  # the value as a reader wants it: "80%", "$0.0123", "1.20 s"
    tip: str  # the run and the value, for the point's tooltip
    current: bool  # the report's own run: drawn larger, as a ring


@dataclass(frozen=True)
class Tick:
    y: float
    label: str


@dataclass(frozen=True)
class LineChart:
    title: str
    summary: str  # the chart in one sentence: its text alternative
    points: list[Point]
    lines: list[str]  # polyline coordinates ("x,y x,y ..."), one per unbroken run of known values
    ticks: list[Tick]
    first_label: str  # under the first slot
    last_label: str  # under the last slot (the report's own run)
    width: int = WIDTH
    height: int = HEIGHT
    left: int = LEFT
    right: int = WIDTH - RIGHT
    top: int = TOP
    bottom: int = HEIGHT - BOTTOM


def nice_ceiling(value: float) -> float:
    """The smallest of 1, 2, 2.5, 5 times a power of ten that is at least `value` (1 for nothing)."""
    if value <= 0 or not math.isfinite(value):
        return 1.0
    power = 10.0 ** math.floor(math.log10(value))
    return next(step * power for step in NICE_STEPS if step * power >= value * (1 - 1e-12))


def line_chart(
    title: str,
    values: Sequence[float | None],
    tips: Sequence[str],
    *,
    fmt: Callable[[float], str],
    labels: tuple[str, str],
    scale: float | None = None,
    tick_fmt: Callable[[float], str] | None = None,
) -> LineChart | None:
    """A chart of `values`, one slot a run, oldest first (the last is the report's own run); `tips`
    names each run for its tooltip, `scale` fixes the top of the y axis (else a round number above the
    largest value), `tick_fmt` writes the axis' round numbers (else `fmt`). None when fewer than two
    values are known: one point is not a trend."""
    known = [v for v in values if v is not None]
    if len(known) < 2 or len(values) != len(tips):
        return None
    top = scale if scale is not None else nice_ceiling(max(known))
    span = (WIDTH - RIGHT - LEFT) / (len(values) - 1)
    height = HEIGHT - BOTTOM - TOP

    def y_of(v: float) -> float:
        return round(TOP + height * (1 - min(max(v / top, 0.0), 1.0)), 1)

    points: list[Point] = []
    lines: list[str] = []
    segment: list[str] = []
    for i, (value, tip) in enumerate(zip(values, tips, strict=True)):
        if value is None:  # a run without the figure: the line breaks there rather than bridging it
            lines += [" ".join(segment)] if len(segment) > 1 else []
            segment = []
            continue
        point = Point(round(LEFT + i * span, 1), y_of(value), fmt(value), f"{tip}: {fmt(value)}", i == len(values) - 1)
        points.append(point)
        segment.append(f"{point.x},{point.y}")
    lines += [" ".join(segment)] if len(segment) > 1 else []
    ticks = [Tick(y_of(top * f), (tick_fmt or fmt)(top * f)) for f in (0.0, 0.5, 1.0)]
    return LineChart(
        title=title,
        summary=_summary(title, values, fmt),
        points=points,
        lines=lines,
        ticks=ticks,
        first_label=labels[0],
        last_label=labels[1],
    )


def _summary(title: str, values: Sequence[float | None], fmt: Callable[[float], str]) -> str:
    known = [v for v in values if v is not None]
    own = values[-1]
    return (
        f"{title} over the last {len(values)} runs: lowest {fmt(min(known))}, highest {fmt(max(known))}; "
        f"first {fmt(known[0])}, this run {'—' if own is None else fmt(own)}"
    )
