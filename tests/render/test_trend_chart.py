"""The trend charts' geometry: each run's point where its value says, the line broken at a run
without the figure, the axis' round numbers, and no chart for fewer than two values."""

from __future__ import annotations

import pytest

from evalkit.render.trend_chart import BOTTOM, HEIGHT, LEFT, RIGHT, TOP, WIDTH, line_chart, nice_ceiling

PLOT_BOTTOM = HEIGHT - BOTTOM
PLOT_RIGHT = WIDTH - RIGHT


def pct(v: float) -> str:
    return f"{v:.0%}"


def chart(values, **kwargs):
    tips = [f"#{i + 1}" for i in range(len(values))]
    return line_chart("pass rate", values, tips, fmt=pct, labels=("#1", "this run"), **kwargs)


def test_points_sit_where_the_values_say():
    drawn = chart([0.0, 0.5, 1.0, 0.25], scale=1.0)
    xs = [p.x for p in drawn.points]
    ys = [p.y for p in drawn.points]
    assert xs == [LEFT, LEFT + (PLOT_RIGHT - LEFT) / 3, LEFT + 2 * (PLOT_RIGHT - LEFT) / 3, PLOT_RIGHT]
    assert ys[0] == PLOT_BOTTOM and ys[2] == TOP  # 0 % on the x axis, 100 % at the top of the plot
    assert ys[1] == (TOP + PLOT_BOTTOM) / 2
    assert ys[3] == pytest.approx(PLOT_BOTTOM - (PLOT_BOTTOM - TOP) / 4, abs=0.1)
    assert [p.shown for p in drawn.points] == ["0%", "50%", "100%", "25%"]
    assert [p.current for p in drawn.points] == [False, False, False, True]
    assert drawn.points[1].tip == "#2: 50%"
    assert drawn.lines == [" ".join(f"{p.x},{p.y}" for p in drawn.points)]


def test_a_run_without_the_figure_breaks_the_line_and_has_no_point():
    drawn = chart([0.2, 0.4, None, 0.6, 0.8], scale=1.0)
    assert len(drawn.points) == 4
    assert len(drawn.lines) == 2 and all(len(line.split()) == 2 for line in drawn.lines)
    assert drawn.points[2].x == LEFT + 3 * (PLOT_RIGHT - LEFT) / 4  # the gap keeps its slot


def test_a_lone_point_between_gaps_is_drawn_as_a_point_without_a_line():
    drawn = chart([0.2, None, 0.4, None, 0.6], scale=1.0)
    assert len(drawn.points) == 3 and drawn.lines == []


@pytest.mark.parametrize("values", [[], [0.5], [None, 0.5], [None, None, None]])
def test_fewer_than_two_known_values_is_no_chart(values):
    assert chart(values, scale=1.0) is None


def test_without_a_scale_the_axis_tops_at_a_round_number_above_the_largest_value():
    drawn = line_chart(
        "cost",
        [0.012, 0.031],
        ["#1", "#2"],
        fmt=lambda v: f"${v:.4f}",
        labels=("#1", "this run"),
        tick_fmt=lambda v: f"${v:g}",
    )
    assert [t.label for t in drawn.ticks] == ["$0", "$0.025", "$0.05"]
    assert drawn.ticks[0].y == PLOT_BOTTOM and drawn.ticks[2].y == TOP
    assert drawn.points[1].y == pytest.approx(PLOT_BOTTOM - (PLOT_BOTTOM - TOP) * 0.031 / 0.05, abs=0.1)
    assert drawn.summary == (
        "cost over the last 2 runs: lowest $0.0120, highest $0.0310; first $0.0120, this run $0.0310"
    )


@pytest.mark.parametrize(
    "value, top",
    [
        (0.0, 1.0),
        (0.7, 1.0),
        (1.0, 1.0),
        (1.2, 2.0),
        (2.1, 2.5),
        (3.0, 5.0),
        (7.0, 10.0),
        (0.0031, 0.005),
        (120.0, 200.0),
        (float("nan"), 1.0),
    ],
)
def test_nice_ceiling(value, top):
    assert nice_ceiling(value) == pytest.approx(top)


def test_values_outside_the_scale_stay_inside_the_plot():
    drawn = chart([-0.5, 1.5], scale=1.0)
    assert [p.y for p in drawn.points] == [PLOT_BOTTOM, TOP]
