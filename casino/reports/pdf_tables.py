"""The settlement PDF's tables: a grid fitted to the page width, the currency totals, and
each currency's figures per table, per paytable and per gaming day.

The per-table and per-day figures are too many columns for one page width once amounts
run to trillions, so each breakdown is two grids with the same row keys: handle and win,
then theory and adjustments.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from xml.sax.saxutils import escape

from reportlab.lib.styles import ParagraphStyle
from reportlab.platypus import Flowable, Paragraph, Spacer, Table, TableStyle

from casino.reports.pdf_format import (
    FONT,
    FONT_BOLD,
    HEADER_FILL,
    MINUS_SIGN,
    RULE_COLOR,
    STRIPE_FILL,
    UNDEFINED,
    count,
    money,
    percent,
    styles,
    text_width,
    z_score,
)

CELL_SIZE = 7.0
SMALLEST_CELL_SIZE = 4.0  # below this a printed grid is unreadable anyway
_PADDING = 3.0
_WRAPPED_MIN_WIDTH = 150.0  # a wrapped column gets at least this, then the rest of the line

Figures = Mapping[str, Any]


# --- the fitted grid ----------------------------------------------------------------------


_CHUNK_ROWS = 60  # rows per table in a long listing


def _lines_width(cell: str, bold: bool) -> float:
    """Width at font size 1; widths scale linearly with the size."""
    return max(text_width(line, 1.0, bold) for line in cell.split("\n"))


def _unit_widths(rows: Sequence[Sequence[str]]) -> list[float]:
    return [
        max(_lines_width(row[column], bold=index == 0) for index, row in enumerate(rows))
        for column in range(len(rows[0]))
    ]


def _fitted_size(unit_widths: Sequence[float], room_for_text: float) -> float:
    """The cell font size, shrunk from CELL_SIZE just enough for the text to fit."""
    natural = sum(unit_widths)
    if natural * CELL_SIZE <= room_for_text:
        return CELL_SIZE
    return max(SMALLEST_CELL_SIZE, room_for_text / natural)


def _wrapped(text: str, size: float) -> Paragraph:
    style = ParagraphStyle("wrapped", parent=styles()["cell"], fontSize=size, leading=size * 1.2)
    return Paragraph(escape(text), style)


def _grid_style(rows: int, key_columns: int, size: float) -> TableStyle:
    return TableStyle(
        [
            ("FONT", (0, 0), (-1, -1), FONT, size, size * 1.2),
            ("FONT", (0, 0), (-1, 0), FONT_BOLD, size, size * 1.2),
            ("BACKGROUND", (0, 0), (-1, 0), HEADER_FILL),
            ("ROWBACKGROUNDS", (0, 1), (-1, rows - 1), [None, STRIPE_FILL]),
            ("LINEBELOW", (0, 0), (-1, 0), 0.6, RULE_COLOR),
            ("LINEBELOW", (0, -1), (-1, -1), 0.6, RULE_COLOR),
            ("ALIGN", (0, 0), (key_columns - 1, -1), "LEFT"),
            ("ALIGN", (key_columns, 0), (-1, -1), "RIGHT"),
            ("VALIGN", (0, 0), (-1, -1), "TOP"),
            ("LEFTPADDING", (0, 0), (-1, -1), _PADDING),
            ("RIGHTPADDING", (0, 0), (-1, -1), _PADDING),
            ("TOPPADDING", (0, 0), (-1, -1), 1.5),
            ("BOTTOMPADDING", (0, 0), (-1, -1), 1.5),
        ]
    )


def grid(
    rows: Sequence[Sequence[str]],
    width: float,
    key_columns: int = 1,
    wrapped_column: int | None = None,
) -> Table:
    """A table whose first row is the heading and repeats on every page it spans.

    The key columns are left-aligned, the figures right-aligned. The font shrinks until
    every column fits ``width`` on one line; the wrapped column, if any, takes the rest
    of the width and wraps its text instead.
    """
    return grids(rows, width, key_columns, wrapped_column, chunk=max(1, len(rows)))[0]


def grids(
    rows: Sequence[Sequence[str]],
    width: float,
    key_columns: int = 1,
    wrapped_column: int | None = None,
    chunk: int = _CHUNK_ROWS,
) -> list[Table]:
    """The grid of ``rows`` as consecutive tables of at most ``chunk`` rows, each with the
    heading and all with the same columns: reportlab measures every remaining row each
    time it splits a table across a page, so one long table costs time quadratic in its
    rows, and short ones cost linear time."""
    unit = _unit_widths(rows)
    if wrapped_column is not None:
        unit[wrapped_column] = 0.0
    reserved = 2 * _PADDING * len(unit) + (0.0 if wrapped_column is None else _WRAPPED_MIN_WIDTH)
    size = _fitted_size(unit, width - reserved)
    widths = [column * size + 2 * _PADDING for column in unit]
    if wrapped_column is not None:
        widths[wrapped_column] = max(_WRAPPED_MIN_WIDTH, width - sum(widths))
    heading, body = list(rows[0]), rows[1:]
    tables = []
    for start in range(0, max(1, len(body)), chunk):
        cells: list[list[str | Paragraph]] = [heading, *map(list, body[start : start + chunk])]
        if wrapped_column is not None:
            for row in cells[1:]:
                row[wrapped_column] = _wrapped(str(row[wrapped_column]), size)
        table = Table(cells, colWidths=widths, repeatRows=1, hAlign="LEFT")
        table.setStyle(_grid_style(len(cells), key_columns, size))
        tables.append(table)
    return tables


# --- the figures' columns -----------------------------------------------------------------


@dataclass(frozen=True)
class Column:
    heading: str  # short, on up to two lines, for a column
    label: str  # in full, for the row of a totals table
    show: Callable[[Figures, str], str]  # (figures, currency) -> the cell's text


HANDLE_AND_WIN = [
    Column("Rounds", "Rounds", lambda f, _: count(f["rounds"])),
    Column("Seats", "Seats", lambda f, _: count(f["seats"])),
    Column("Handle\nmain", "Handle, main bet", lambda f, c: money(f["main"]["handle"], c)),
    Column("Handle\nDoubles", "Handle, Doubles", lambda f, c: money(f["doubles"]["handle"], c)),
    Column("Handle", "Handle, total", lambda f, c: money(f["handle"], c)),
    Column("Payouts", "Payouts", lambda f, c: money(f["payouts"], c)),
    Column("Win", "Win", lambda f, c: money(f["win"], c)),
    Column("Hold %", "Hold %", lambda f, _: percent(f["hold_pct"])),
]

THEORY_AND_ADJUSTMENTS = [
    Column("Theo. win", "Theoretical win", lambda f, c: money(f["theoretical_win"], c)),
    Column("Theo.\nhold %", "Theoretical hold %", lambda f, _: percent(f["theoretical_hold_pct"])),
    Column(
        f"Win {MINUS_SIGN}\ntheo.",
        f"Win {MINUS_SIGN} theoretical",
        lambda f, c: money(f["win_minus_theoretical"], c),
    ),
    Column("Std. dev.", "Standard deviation", lambda f, c: money(f["standard_deviation"], c)),
    Column("z-score", "z-score", lambda f, _: z_score(f["z_score"])),
    Column("Voids", "Voids", lambda f, _: count(f["voids"])),
    Column("Voided\nrefunds", "Voided refunds", lambda f, c: money(f["voided_refunds"], c)),
    Column("Correc-\ntions", "Corrections", lambda f, _: count(f["corrections"])),
    Column("Corrections\nnet", "Corrections net", lambda f, c: money(f["corrections_net"], c)),
    Column("Adjusted\nwin", "Adjusted win", lambda f, c: money(f["adjusted_win"], c)),
]

BET = [
    Column("Wagers", "Wagers", lambda f, _: count(f["wagers"])),
    Column("Handle", "Handle", lambda f, c: money(f["handle"], c)),
    Column("Payouts", "Payouts", lambda f, c: money(f["payouts"], c)),
    Column("Win", "Win", lambda f, c: money(f["win"], c)),
    Column("Hold %", "Hold %", lambda f, _: percent(f["hold_pct"])),
    *THEORY_AND_ADJUSTMENTS[:2],
    *THEORY_AND_ADJUSTMENTS[3:5],
]


def _rows(
    keys: Sequence[str],
    columns: Sequence[Column],
    entries: Sequence[tuple[Sequence[str], Figures]],
    currency: str,
) -> list[list[str]]:
    heading = [*keys, *(column.heading for column in columns)]
    return [heading] + [
        [*key, *(column.show(figures, currency) for column in columns)] for key, figures in entries
    ]


# --- the sections -------------------------------------------------------------------------


def totals_grid(currencies: Sequence[Mapping[str, Any]], width: float) -> Table:
    """One row per figure, one column per currency."""
    heading = ["", *(section["currency"] for section in currencies)]
    rows = [
        [column.label, *(column.show(s["totals"], s["currency"]) for s in currencies)]
        for column in (*HANDLE_AND_WIN, *THEORY_AND_ADJUSTMENTS)
    ]
    return grid([heading, *rows], width)


def _paytable_number(number: int | None) -> str:
    return UNDEFINED if number is None else str(number)


def _figure_pair(
    title: str,
    keys: Sequence[str],
    entries: Sequence[tuple[Sequence[str], Figures]],
    currency: str,
    width: float,
) -> list[Flowable]:
    if not entries:
        return []
    subheading = styles()["subheading"]
    return [
        Paragraph(f"{currency}: {title}, handle and win", subheading),
        grid(_rows(keys, HANDLE_AND_WIN, entries, currency), width, len(keys)),
        Spacer(0, 6),
        Paragraph(f"{currency}: {title}, against theory and adjustments", subheading),
        grid(_rows(keys, THEORY_AND_ADJUSTMENTS, entries, currency), width, len(keys)),
    ]


def per_table(section: Mapping[str, Any], width: float) -> list[Flowable]:
    entries = [
        (
            [
                str(table["table_id"]),
                _paytable_number(table["main_paytable"]),
                _paytable_number(table["doubles_paytable"]),
            ],
            table,
        )
        for table in section["tables"]
    ]
    keys = ["Table", "Main\npaytable", "Doubles\npaytable"]
    return _figure_pair("per table", keys, entries, section["currency"], width)


def per_gaming_day(section: Mapping[str, Any], width: float) -> list[Flowable]:
    entries = [([str(day["gaming_day"])], day) for day in section["days"]]
    return _figure_pair("per gaming day", ["Gaming day"], entries, section["currency"], width)


def per_paytable(section: Mapping[str, Any], width: float) -> list[Flowable]:
    currency = section["currency"]
    entries = [
        ([str(bet["bet"]).capitalize(), _paytable_number(bet["paytable"])], bet)
        for bet in section["paytables"]
    ]
    if not entries:
        return []
    rows = _rows(["Bet", "Paytable"], BET, entries, currency)
    return [
        Paragraph(f"{currency}: per paytable", styles()["subheading"]),
        grid(rows, width, key_columns=2),
    ]
