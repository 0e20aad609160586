"""The settlement PDF's charts: hold % by gaming day, and the distribution of point totals.

Both charts fix their value axis themselves (``value_axis_bounds``) rather than letting
reportlab pick it at draw time: the point-totals chart must know the scale to place the
expected-probability markers over the bars, and a fixed scale keeps a chart the same for
the same figures.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from reportlab.graphics.charts.barcharts import VerticalBarChart
from reportlab.graphics.charts.legends import Legend
from reportlab.graphics.shapes import Circle, Drawing, Group, PolyLine, String
from reportlab.lib import colors

from casino.reports.pdf_format import FONT, ratio_as_float, register_fonts, text_width

ACTUAL_COLOR = colors.HexColor("#1f5f99")
THEORETICAL_COLOR = colors.HexColor("#d9822b")
GRID_COLOR = colors.HexColor("#dddddd")
_LABEL_SIZE = 7.0
_AXIS_TITLE_SIZE = 8.5
_LEFT = 52.0  # room for the value labels and the rotated axis title
_BOTTOM = 34.0  # room for the category labels and the axis title
_BOTTOM_SLANTED = 58.0  # the same, when the category labels are slanted
_LEGEND_WIDTH = 150.0
_TOP = 8.0
_NICE_STEPS = (1.0, 2.0, 2.5, 5.0, 10.0)

Bounds = tuple[float, float, float]  # the value axis: minimum, maximum, step
Series = tuple[Sequence[float | None], Any]  # the values (None: no bar) and their colour


def value_axis_bounds(values: Sequence[float], ticks: int = 5) -> Bounds:
    """(minimum, maximum, step) of a value axis holding zero and every value, in round steps."""
    low = min([0.0, *values])
    high = max([0.0, *values])
    if high == low:
        high = low + 1.0
    raw_step = (high - low) / ticks
    magnitude = 10.0 ** math.floor(math.log10(raw_step))
    step = next(nice * magnitude for nice in _NICE_STEPS if nice * magnitude >= raw_step)
    return math.floor(low / step) * step, math.ceil(high / step) * step, step


def _axis_number(value: float) -> str:
    return f"{value:g}"


def _slanted(categories: Sequence[str], plot_width: float) -> bool:
    """Whether the category labels must be slanted not to overlap one another."""
    widest = max(text_width(name, _LABEL_SIZE) for name in categories)
    return widest + 2 > plot_width / len(categories)


def _style_category_axis(axis: Any, categories: Sequence[str], slanted: bool) -> None:
    axis.categoryNames = list(categories)
    axis.joinAxisMode = "bottom"  # below the plot, not at zero across negative bars
    axis.labels.fontName = FONT
    axis.labels.fontSize = _LABEL_SIZE
    if slanted:
        axis.labels.angle = 40
        axis.labels.boxAnchor = "ne"


def _style_value_axis(axis: Any, bounds: Bounds) -> None:
    axis.valueMin, axis.valueMax, axis.valueStep = bounds
    axis.labels.fontName = FONT
    axis.labels.fontSize = _LABEL_SIZE
    axis.labelTextFormat = _axis_number
    axis.visibleGrid = True
    axis.gridStrokeColor = GRID_COLOR


def _bar_chart(
    size: tuple[float, float], categories: Sequence[str], series: Sequence[Series], bounds: Bounds
) -> tuple[Drawing, Any]:
    """A drawing holding a bar chart, with room for axis titles and a legend on the right."""
    register_fonts()
    width, height = size
    drawing = Drawing(width, height)
    chart = VerticalBarChart()
    chart.width = width - _LEFT - _LEGEND_WIDTH
    slanted = _slanted(categories, chart.width)
    chart.x, chart.y = _LEFT, _BOTTOM_SLANTED if slanted else _BOTTOM
    chart.height = height - chart.y - _TOP
    chart.data = [list(values) for values, _ in series]
    for index, (_, color) in enumerate(series):
        chart.bars[index].fillColor = color
        chart.bars[index].strokeColor = None
    _style_category_axis(chart.categoryAxis, categories, slanted)
    _style_value_axis(chart.valueAxis, bounds)
    drawing.add(chart)
    return drawing, chart


def _limit_bar_width(chart: Any, bars_per_group: int, widest: float = 36.0) -> None:
    """Widens the gap between groups so that a few days do not make slabs of bars."""
    band = chart.width / len(chart.categoryAxis.categoryNames)
    bar_units = chart.barWidth * bars_per_group + chart.barSpacing * (bars_per_group - 1)
    # reportlab shares a category's band between its bars and the gap in proportion
    # to their units, so a bar is band * barWidth / (bar_units + groupSpacing) wide
    chart.groupSpacing = max(chart.groupSpacing, band * chart.barWidth / widest - bar_units)


def _axis_titles(drawing: Drawing, chart: Any, category_title: str, value_title: str) -> None:
    drawing.add(
        String(
            chart.x + chart.width / 2,
            4,
            category_title,
            fontName=FONT,
            fontSize=_AXIS_TITLE_SIZE,
            textAnchor="middle",
        )
    )
    rotated = Group(
        String(0, 0, value_title, fontName=FONT, fontSize=_AXIS_TITLE_SIZE, textAnchor="middle")
    )
    rotated.transform = (0, 1, -1, 0, 12, chart.y + chart.height / 2)  # a quarter turn left
    drawing.add(rotated)


def _legend(drawing: Drawing, entries: Sequence[tuple[Any, str]]) -> None:
    legend = Legend()
    legend.x = drawing.width - _LEGEND_WIDTH + 16
    legend.y = drawing.height - _TOP - 4
    legend.fontName = FONT
    legend.fontSize = _LABEL_SIZE + 1
    legend.alignment = "right"
    legend.columnMaximum = len(entries)
    legend.colorNamePairs = list(entries)
    drawing.add(legend)


def hold_by_gaming_day(days: Sequence[Mapping[str, Any]], width: float) -> Drawing:
    """Actual and theoretical hold % of each gaming day, as a pair of bars per day.

    Bars rather than lines: a day without handle has no hold, and a bar chart simply
    leaves its pair out, where a line would join across it as if nothing were missing.
    """
    actual = [ratio_as_float(day["hold_pct"]) for day in days]
    theoretical = [ratio_as_float(day["theoretical_hold_pct"]) for day in days]
    bounds = value_axis_bounds([value for value in (*actual, *theoretical) if value is not None])
    drawing, chart = _bar_chart(
        (width, 200),
        [str(day["gaming_day"]) for day in days],
        [(actual, ACTUAL_COLOR), (theoretical, THEORETICAL_COLOR)],
        bounds,
    )
    chart.groupSpacing = 6
    _limit_bar_width(chart, bars_per_group=2)
    _axis_titles(drawing, chart, "Gaming day", "Hold %")
    _legend(drawing, [(ACTUAL_COLOR, "Actual hold %"), (THEORETICAL_COLOR, "Theoretical hold %")])
    return drawing


def _percent_of(share: str | None) -> float | None:
    value = ratio_as_float(share)
    return None if value is None else 100 * value


def _expected_markers(chart: Any, expected: Sequence[float], bounds: Bounds) -> Group:
    """A line with a marker at each category's centre, on the bar chart's own scale."""
    low, high, _ = bounds
    band = chart.width / len(expected)
    points = [
        (chart.x + (index + 0.5) * band, chart.y + (value - low) / (high - low) * chart.height)
        for index, value in enumerate(expected)
    ]
    markers = Group(
        PolyLine(
            [coordinate for point in points for coordinate in point],
            strokeColor=THEORETICAL_COLOR,
            strokeWidth=1,
        )
    )
    for x, y in points:
        markers.add(Circle(x, y, 2.2, fillColor=THEORETICAL_COLOR, strokeColor=None))
    return markers


def point_total_distribution(point_totals: Sequence[Mapping[str, Any]], width: float) -> Drawing:
    """Observed share of hands per point total as bars, the exact probability as markers."""
    observed = [_percent_of(entry["observed"]) for entry in point_totals]
    expected = [100 * float(entry["expected"]) for entry in point_totals]
    bounds = value_axis_bounds([value for value in observed if value is not None] + expected)
    drawing, chart = _bar_chart(
        (width, 240),
        [str(entry["total"]) for entry in point_totals],
        [(observed, ACTUAL_COLOR)],
        bounds,
    )
    chart.barSpacing = 1
    chart.groupSpacing = 2
    drawing.add(_expected_markers(chart, expected, bounds))
    _axis_titles(drawing, chart, "Point total", "Share of hands (%)")
    _legend(
        drawing,
        [(ACTUAL_COLOR, "Observed share of hands"), (THEORETICAL_COLOR, "Expected (exact)")],
    )
    return drawing
