"""The settlement report as a PDF for casino finance.

Takes the report exactly as the settlement figures give it (plain JSON-like data) and
lays it out on A4 landscape, wide enough for a dozen columns of amounts:

1. the header, the filters applied and the totals of every currency (or, with no
   activity, a "No Activity" statement and nothing more but the adjustments);
2. per currency, its figures per table, per paytable and per gaming day;
3. the charts: hold % by gaming day per currency, and the distribution of point totals;
4. the voids and corrections, one row each.

Every page carries the footer "casino <version> · report <id> · page N". The output is
reportlab's invariant mode (fixed dates and document id), so the same report always
gives the same bytes.
"""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence
from functools import partial
from typing import Any
from xml.sax.saxutils import escape

from reportlab.lib.pagesizes import A4, landscape
from reportlab.pdfgen.canvas import Canvas
from reportlab.platypus import (
    Flowable,
    KeepTogether,
    PageBreak,
    Paragraph,
    SimpleDocTemplate,
    Spacer,
)

from casino.reports.pdf_charts import hold_by_gaming_day, point_total_distribution
from casino.reports.pdf_format import FONT, money, register_fonts, styles, timestamp
from casino.reports.pdf_tables import (
    grid,
    grids,
    per_gaming_day,
    per_paytable,
    per_table,
    totals_grid,
)
from casino.reports.settlement import NO_ACTIVITY

PAGE_SIZE = landscape(A4)
MARGIN = 36.0
_FOOTER_BASELINE = 20.0  # inside the bottom margin, below the frame
FRAME_WIDTH = PAGE_SIZE[0] - 2 * MARGIN
TITLE = "Settlement report"
_DOT = "\u00b7"


def _text(value: object) -> str:
    """Data placed in a Paragraph, whose text is markup."""
    return escape(str(value))


def _software(report: Mapping[str, Any]) -> str:
    return f"{report['software']['name']} {report['software']['version']}"


# --- page 1 -------------------------------------------------------------------------------


def _header(report: Mapping[str, Any]) -> list[Flowable]:
    line = (
        f"{_software(report)} {_DOT} generated {timestamp(report['generated_at'])} "
        f"{_DOT} report {report['report_id']}"
    )
    return [Paragraph(TITLE, styles()["title"]), Paragraph(_text(line), styles()["body"])]


def _filters(report: Mapping[str, Any]) -> list[Flowable]:
    filters = report["filters"]
    requested, period, gaming_day = filters["requested"], filters["period"], filters["gaming_day"]
    table = filters["table_id"]
    rows = [
        ["Filter", "Applied"],
        ["Requested", f"{requested['from']} to {requested['to']}"],
        ["Period start", timestamp(period["start"])],
        ["Period end", timestamp(period["end"])],
        ["Table", "all tables" if table is None else str(table)],
        [
            "Gaming day",
            f"starts {gaming_day['start_hour']:02d}:00, {gaming_day['time_zone']}",
        ],
    ]
    return [
        Spacer(0, 6),
        Paragraph("Filters", styles()["subheading"]),
        grid(rows, FRAME_WIDTH, key_columns=2),
    ]


def _method(report: Mapping[str, Any]) -> list[Flowable]:
    method = report.get("method") or {}
    if not method:
        return []
    rows = [["Figure", "How it is made"], *([name.replace("_", " ").capitalize(), text]
                                            for name, text in method.items())]  # fmt: skip
    return [
        Spacer(0, 6),
        Paragraph("Method", styles()["subheading"]),
        grid(rows, FRAME_WIDTH, key_columns=1, wrapped_column=1),
    ]


def _no_activity() -> list[Flowable]:
    return [
        Spacer(0, 24),
        Paragraph(NO_ACTIVITY, styles()["statement"]),
        Paragraph(
            "No round was settled in this period at the tables filtered above: "
            "there are no figures and no charts.",
            styles()["body"],
        ),
    ]


def _totals(currencies: Sequence[Mapping[str, Any]]) -> list[Flowable]:
    if not currencies:
        return []
    return [
        Spacer(0, 6),
        Paragraph("Totals by currency", styles()["subheading"]),
        totals_grid(currencies, FRAME_WIDTH),
    ]


# --- the breakdowns and the charts --------------------------------------------------------


def _breakdown(section: Mapping[str, Any]) -> list[Flowable]:
    return [
        PageBreak(),
        Paragraph(f"{_text(section['currency'])}: breakdown", styles()["heading"]),
        *per_table(section, FRAME_WIDTH),
        Spacer(0, 8),
        *per_paytable(section, FRAME_WIDTH),
        Spacer(0, 8),
        *per_gaming_day(section, FRAME_WIDTH),
    ]


def _chart(title: str, drawing: Flowable) -> Flowable:
    return KeepTogether([Paragraph(_text(title), styles()["subheading"]), drawing, Spacer(0, 10)])


def _charts(report: Mapping[str, Any]) -> list[Flowable]:
    charts = [
        _chart(
            f"Hold % by gaming day, {section['currency']}: actual vs theoretical",
            hold_by_gaming_day(section["days"], FRAME_WIDTH),
        )
        for section in report["currencies"]
        if section["days"]
    ]
    if report["point_totals"]:
        charts.append(
            _chart(
                "Distribution of point totals: observed share of hands vs expected probability",
                point_total_distribution(report["point_totals"], FRAME_WIDTH),
            )
        )
    if not charts:
        return []
    return [PageBreak(), Paragraph("Charts", styles()["heading"]), *charts]


# --- voids and corrections ----------------------------------------------------------------


def _adjustment_row(adjustment: Mapping[str, Any]) -> list[str]:
    currency = adjustment["currency"]
    return [
        str(adjustment["kind"]).capitalize(),
        str(adjustment["round_id"]),
        str(adjustment["table_id"]),
        timestamp(adjustment["at"]),
        str(adjustment["gaming_day"]),
        str(adjustment["actor"]),
        str(adjustment["reason"]),
        money(adjustment["refunded"], currency),
        money(adjustment["reclaimed"], currency),
    ]


def _adjustments(adjustments: Sequence[Mapping[str, Any]]) -> list[Flowable]:
    heading = [Spacer(0, 10), Paragraph("Voids and corrections", styles()["heading"])]
    if not adjustments:
        return [*heading, Paragraph("None in this period.", styles()["body"])]
    columns = ["Kind", "Round", "Table", "When", "Gaming day", "Who", "Why"]
    rows = [[*columns, "Refunded", "Reclaimed"], *map(_adjustment_row, adjustments)]
    tables = grids(rows, FRAME_WIDTH, key_columns=len(columns), wrapped_column=columns.index("Why"))
    return [*heading, *tables]


# --- the document -------------------------------------------------------------------------


def _story(report: Mapping[str, Any]) -> list[Flowable]:
    story = [*_header(report), *_filters(report), *_method(report)]
    if report["no_activity"]:
        story += _no_activity()
        if report["adjustments"]:  # should any come with it, they are not hidden
            story += _adjustments(report["adjustments"])
        return story
    story += _totals(report["currencies"])
    for section in report["currencies"]:
        story += _breakdown(section)
    story += _charts(report)
    story += _adjustments(report["adjustments"])
    return story


def _draw_footer(text: str, canvas: Canvas, document: SimpleDocTemplate) -> None:
    canvas.saveState()
    canvas.setFont(FONT, 7.5)
    canvas.drawRightString(
        PAGE_SIZE[0] - MARGIN, _FOOTER_BASELINE, f"{text} {_DOT} page {document.page}"
    )
    canvas.restoreState()


def render_settlement_pdf(report: Mapping[str, Any]) -> bytes:
    """The report as PDF bytes: the same report always gives the same bytes."""
    register_fonts()
    software = _software(report)
    buffer = io.BytesIO()
    document = SimpleDocTemplate(
        buffer,
        pagesize=PAGE_SIZE,
        leftMargin=MARGIN,
        rightMargin=MARGIN,
        topMargin=MARGIN,
        bottomMargin=MARGIN,
        title=TITLE,
        author=software,
        subject=f"report {report['report_id']}",
        creator=software,
        invariant=True,
    )
    footer = partial(_draw_footer, f"{software} {_DOT} report {report['report_id']}")
    document.build(_story(report), onFirstPage=footer, onLaterPages=footer)
    return buffer.getvalue()
